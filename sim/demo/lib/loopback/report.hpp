// SPDX-License-Identifier: MIT
#pragma once
// Output of the loopback roles: one line per step, prefixed by the role, and a count of failed
// checks. A failed check prints what was expected and what happened.

#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace ndksim::loopback {

class report {
  public:
    explicit report(std::string role, std::FILE* out = stdout)
        : role_(std::move(role)), out_(out) {}

    template <class... Args>
    void step(fmt::format_string<Args...> f, Args&&... args) {
        line("", fmt::format(f, std::forward<Args>(args)...));
    }

    /// Counts a failure unless `ok`; returns `ok`.
    template <class... Args>
    bool check(bool ok, fmt::format_string<Args...> f, Args&&... args) {
        if (!ok) {
            ++failures_;
            line("FAILED: ", fmt::format(f, std::forward<Args>(args)...));
        }
        return ok;
    }

    unsigned failures() const { return failures_; }
    const std::string& role() const { return role_; }

  private:
    void line(const char* tag, const std::string& text) {
        std::fprintf(out_, "[%s] %s%s\n", role_.c_str(), tag, text.c_str());
        std::fflush(out_);
    }

    std::string role_;
    std::FILE* out_;
    unsigned failures_ = 0;
};

}  // namespace ndksim::loopback
