// SPDX-License-Identifier: MIT
#include "util/refusal_log.hpp"

#include <algorithm>
#include <cstring>
#include <exception>

#include "util/log.hpp"
#include "util/refusal.hpp"

namespace ndksim::util {

status refusal_log::record(std::string_view ident, std::string_view call, status s) noexcept {
    const char* why = refusal::take();
    const verifier::rule broken = refusal::take_rule();
    std::array<char, 320> text{};
    const auto r = fmt::format_to_n(text.data(), text.size(), "{}: {} refused with {}: {}", ident,
                                    call, s, why != nullptr ? why : "no further detail");
    const std::string_view message(text.data(), std::min(r.size, text.size()));
    refusal::set_last_on_this_thread(message);
    std::uint64_t n = 0;
    {
        std::lock_guard lock(mutex_);
        std::copy(message.begin(), message.end(), last_.begin());
        last_size_ = message.size();
        n = ++count_;
    }
    if (n <= k_logged_in_full) {
        NDKSIM_INFO("{}", message);
    } else if (n % k_every_after == 0) {
        NDKSIM_INFO("{} (refusal {} of this adapter; the lines in between are not logged)", message,
                    n);
    }
    if (broken != verifier::rule::none && verifier_ != nullptr && verifier_->on()) {
        try {
            verifier_->raise(broken, ident, call, s, why != nullptr ? why : "");
        } catch (const std::exception&) {
            // The refusal stands; only its report could not be formatted.
        }
    }
    return s;
}

std::size_t refusal_log::last(char* out, std::size_t size) const noexcept {
    std::lock_guard lock(mutex_);
    if (out != nullptr && size > 0) {
        const std::size_t n = std::min(last_size_, size - 1);
        std::memcpy(out, last_.data(), n);
        out[n] = '\0';
    }
    return last_size_;
}

std::uint64_t refusal_log::count() const noexcept {
    std::lock_guard lock(mutex_);
    return count_;
}

}  // namespace ndksim::util
