// SPDX-License-Identifier: MIT
#pragma once
// One adapter's record of the consumer calls it refused: the last refusal's text (for the test
// kit to print beside a failed assertion, through ndksim_adapter_last_refusal) and a count, and
// an info-level log line per refusal, rate-limited so that a consumer that retries a refused
// call in a loop does not flood the log. Info is compiled into Release builds (the default
// compile-time floor); NDKSIM_LOG=info shows the lines.

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "util/status.hpp"
#include "util/verifier.hpp"

namespace ndksim::util {

class refusal_log {
  public:
    /// Lines logged in full before the log only counts (then one line every k_every_after).
    static constexpr std::uint64_t k_logged_in_full = 32;
    static constexpr std::uint64_t k_every_after = 1000;

    /// Records that `call` on the object named `ident` was refused with `s`, with the reason
    /// the failing check gave (refusal::because) or "no further detail". Also sets the calling
    /// thread's last refusal. Returns `s`.
    /// When the reason named a verifier rule (refusal::because(rule, why)), the adapter's
    /// verifier reports it too.
    status record(std::string_view ident, std::string_view call, status s) noexcept;

    /// The verifier that reports the refusals naming a rule (the adapter's own).
    void attach(const verifier::checker* v) noexcept { verifier_ = v; }

    /// Copies the last refusal's text into `out` (truncated, NUL-terminated when `size` > 0);
    /// returns the text's full length (0: nothing refused yet).
    std::size_t last(char* out, std::size_t size) const noexcept;

    /// Refusals recorded so far.
    std::uint64_t count() const noexcept;

  private:
    mutable std::mutex mutex_;
    std::array<char, 320> last_{};
    std::size_t last_size_ = 0;
    std::uint64_t count_ = 0;
    const verifier::checker* verifier_ = nullptr;
};

}  // namespace ndksim::util
