#pragma once
// Progress of a long run on stderr: a one-line bar redrawn in place when stderr is a terminal,
// otherwise a plain line every few seconds (logs and CI keep readable output).

#include <chrono>
#include <cstdint>
#include <string>

namespace ndksim::perf {

class progress {
  public:
    /// `total` messages over the whole run; `enabled` false prints nothing.
    progress(std::uint64_t total, bool enabled);

    /// Starts a new size; `done_before` messages of earlier sizes are finished.
    void begin(const std::string& label, std::uint64_t done_before);

    /// `done` messages of the current size are finished.
    void update(std::uint64_t done);

    /// Clears the bar (terminal) before results are printed.
    void clear();

  private:
    void draw(std::uint64_t done_total);

    std::uint64_t total_;
    bool enabled_;
    bool tty_;
    std::string label_;
    std::uint64_t before_ = 0;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_ = started_;
    bool drawn_ = false;
};

}  // namespace ndksim::perf
