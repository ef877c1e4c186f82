// SPDX-License-Identifier: MIT
#include "util/refusal.hpp"

#include <algorithm>
#include <array>

namespace ndksim::refusal {
namespace {

thread_local const char* t_reason = nullptr;
thread_local verifier::rule t_rule = verifier::rule::none;
// Fixed room: a refusal's text is an identity, a call name, a status and one reason.
thread_local std::array<char, 321> t_last{};  // one more for the terminating NUL
thread_local std::size_t t_last_size = 0;

}  // namespace

void because(const char* why) noexcept {
    t_reason = why;
    t_rule = verifier::rule::none;
}

void because(verifier::rule r, const char* why) noexcept {
    t_reason = why;
    t_rule = r;
}

verifier::rule take_rule() noexcept {
    const verifier::rule r = t_rule;
    t_rule = verifier::rule::none;
    return r;
}

const char* take() noexcept {
    const char* r = t_reason;
    t_reason = nullptr;
    return r;
}

std::string_view last_on_this_thread() noexcept {
    return {t_last.data(), t_last_size};
}

void set_last_on_this_thread(std::string_view text) noexcept {
    t_last_size = std::min(text.size(), t_last.size() - 1);
    std::copy_n(text.begin(), t_last_size, t_last.begin());
    t_last[t_last_size] = '\0';
}

}  // namespace ndksim::refusal
