// SPDX-License-Identifier: MIT
#pragma once
// Progress of a long run on stderr: a one-line bar redrawn in place when stderr is a terminal,
// otherwise a plain line every few seconds (logs and CI keep readable output).
//
// The estimate of the time left weighs each message by its size. A message's host cost is a
// fixed part (posting, completing, the events of its frames) plus a part per byte (placing the
// payload); in a sweep from 2 bytes to 8 MiB the per-byte part of the last sizes is almost the
// whole run. Counting messages alone, as if each cost the same, extrapolated the speed of the
// small sizes: in `write_bw -a` it promised the end 30 to 850 times too early (measured: 0.5 s
// left when 184 s were), where this estimate stays within a factor of 2 to 4.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ndksim::perf {

/// The host time of one message of `size` bytes, fixed + per_byte x size [s], fitted to the
/// sizes measured so far.
struct cost_model {
    double fixed = 0;
    double per_byte = 0;
    bool known = false;  ///< false until one size has been measured
    double of(std::uint64_t size) const { return fixed + per_byte * static_cast<double>(size); }
};

/// Fits a cost_model to `sizes` and the host time of one message at each [s]: the fixed part
/// is the median over the sizes below k_prior_bytes (without one, the smallest size's time
/// split by the prior's ratio); the part
/// per byte is the slope to the largest size once that reaches k_observable_bytes, and the
/// fixed part over k_prior_bytes before.
cost_model fit_cost(const std::vector<std::uint64_t>& sizes, const std::vector<double>& seconds);

/// Until a size shows its per-byte cost, a message's fixed part is taken to cost as much as
/// this many bytes (the bandwidth and latency runs of the default profile lie between 1 and
/// 12 KiB).
inline constexpr double k_prior_bytes = 4096;
/// The size from which the per-byte part is measured rather than assumed.
inline constexpr double k_observable_bytes = 16 * k_prior_bytes;

class progress {
  public:
    /// A run of `sizes`, each `per_size` messages, or `seconds` of wall time each (-D; then
    /// per_size is 0); `enabled` false prints nothing.
    progress(std::vector<std::uint64_t> sizes, std::uint64_t per_size, std::uint32_t seconds,
             bool enabled);

    /// Starts size number `index`.
    void begin(std::size_t index);

    /// `done` messages of the current size are finished.
    void update(std::uint64_t done);

    /// The current size is finished after `done` messages: learns its cost, and clears the
    /// bar (terminal) before its results are printed.
    void end(std::uint64_t done);

    /// Wall seconds the run still needs, by the cost model, when `done` messages of the
    /// current size are finished (exposed for the tests).
    double remaining(std::uint64_t done) const;

  private:
    void draw(std::uint64_t done);

    std::vector<std::uint64_t> sizes_;
    std::uint64_t per_size_;
    std::uint32_t seconds_;
    bool enabled_;
    bool tty_;
    std::size_t index_ = 0;
    std::vector<std::uint64_t> measured_sizes_;
    std::vector<double> measured_seconds_;  // host time of one message at each
    cost_model model_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point size_started_ = started_;
    std::chrono::steady_clock::time_point last_ = started_;
    bool drawn_ = false;
};

}  // namespace ndksim::perf
