#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace ndksim::perf {

progress::progress(std::uint64_t total, bool enabled)
    : total_(total == 0 ? 1 : total), enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1) {}

void progress::begin(const std::string& label, std::uint64_t done_before) {
    label_ = label;
    before_ = done_before;
}

void progress::update(std::uint64_t done) {
    if (!enabled_) {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    // A terminal is redrawn ten times a second; a log gets a line every five seconds.
    const auto period = tty_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(5000);
    if (now - last_ < period) {
        return;
    }
    last_ = now;
    draw(before_ + done);
}

void progress::draw(std::uint64_t done_total) {
    const double fraction = static_cast<double>(done_total) / static_cast<double>(total_);
    const double elapsed = std::chrono::duration<double>(last_ - started_).count();
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    if (tty_) {
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r[%s] %5.1f%%  %-16s  %6.1fs, ~%.0fs left  ", bar.c_str(),
                     fraction * 100, label_.c_str(), elapsed, eta);
        drawn_ = true;
    } else {
        std::fprintf(stderr, "ndksim-perf: %5.1f%% (%s), %.1fs elapsed, ~%.0fs left\n",
                     fraction * 100, label_.c_str(), elapsed, eta);
    }
    std::fflush(stderr);
}

void progress::clear() {
    if (enabled_ && tty_ && drawn_) {
        std::fprintf(stderr, "\r%*s\r", 80, "");
        std::fflush(stderr);
        drawn_ = false;
    }
}

}  // namespace ndksim::perf
