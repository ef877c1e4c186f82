// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ndksim::perf {

cost_model fit_cost(const std::vector<std::uint64_t>& sizes, const std::vector<double>& seconds) {
    cost_model m;
    if (sizes.empty()) {
        return m;
    }
    m.known = true;
    // The fixed part: the median over the sizes whose payload costs little, as one size of a
    // sweep often runs much faster or slower than its neighbours on a shared host.
    std::vector<double> small;
    std::size_t largest = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (static_cast<double>(sizes[i]) < k_prior_bytes) {
            small.push_back(seconds[i]);
        }
        largest = sizes[i] > sizes[largest] ? i : largest;
    }
    if (small.empty()) {
        // The smallest size's time, split by the prior's ratio.
        const auto i =
            static_cast<std::size_t>(std::min_element(sizes.begin(), sizes.end()) - sizes.begin());
        m.fixed = seconds[i] * k_prior_bytes / (k_prior_bytes + static_cast<double>(sizes[i]));
    } else {
        std::nth_element(small.begin(), small.begin() + (small.size() - 1) / 2, small.end());
        m.fixed = small[(small.size() - 1) / 2];
    }
    // The part per byte shows only in a size whose payload outweighs the fixed part; below
    // that, the differences between sizes are noise, and the prior stands in.
    const auto top = static_cast<double>(sizes[largest]);
    if (top >= k_observable_bytes) {
        m.per_byte = std::max(0.0, (seconds[largest] - m.fixed) / top);
    } else {
        m.per_byte = m.fixed / k_prior_bytes;
    }
    return m;
}

progress::progress(std::vector<std::uint64_t> sizes, std::uint64_t per_size, std::uint32_t seconds,
                   bool enabled)
    : sizes_(std::move(sizes)),
      per_size_(per_size),
      seconds_(seconds),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) == 1) {}

void progress::begin(std::size_t index) {
    index_ = index;
    size_started_ = std::chrono::steady_clock::now();
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
    draw(done);
}

void progress::end(std::uint64_t done) {
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - size_started_).count();
    if (done > 0) {
        measured_sizes_.push_back(sizes_[index_]);
        measured_seconds_.push_back(took / static_cast<double>(done));
        model_ = fit_cost(measured_sizes_, measured_seconds_);
    }
    if (enabled_ && tty_ && drawn_) {
        std::fprintf(stderr, "\r%*s\r", 100, "");
        std::fflush(stderr);
        drawn_ = false;
    }
}

double progress::remaining(std::uint64_t done) const {
    const double in_size =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - size_started_).count();
    const std::size_t later = sizes_.size() - index_ - 1;
    if (per_size_ == 0) {  // -D: each size takes its seconds
        return std::max(0.0, seconds_ - in_size) + static_cast<double>(later) * seconds_;
    }
    // The current size at the speed it has shown; the sizes to come by the model (or, before
    // any size is done, by the current size's speed under the prior's fixed-to-byte ratio).
    cost_model m = model_;
    if (!m.known && done > 0) {
        m = fit_cost({sizes_[index_]}, {in_size / static_cast<double>(done)});
    }
    if (!m.known) {
        return 0;
    }
    const double per_message =
        done > 0 ? in_size / static_cast<double>(done) : m.of(sizes_[index_]);
    double left = per_message * static_cast<double>(per_size_ - std::min(done, per_size_));
    for (std::size_t k = index_ + 1; k < sizes_.size(); ++k) {
        left += m.of(sizes_[k]) * static_cast<double>(per_size_);
    }
    return left;
}

void progress::draw(std::uint64_t done) {
    const double elapsed = std::chrono::duration<double>(last_ - started_).count();
    const double left = remaining(done);
    const double fraction = elapsed + left > 0 ? elapsed / (elapsed + left) : 0;
    const std::string label = std::to_string(sizes_[index_]) + " bytes (" +
                              std::to_string(index_ + 1) + "/" + std::to_string(sizes_.size()) +
                              ")";
    if (tty_) {
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r[%s] %5.1f%%  %-22s  %6.1fs, ~%.0fs left  ", bar.c_str(),
                     fraction * 100, label.c_str(), elapsed, left);
        drawn_ = true;
    } else {
        std::fprintf(stderr, "ndksim-perf: %5.1f%% (%s), %.1fs elapsed, ~%.0fs left\n",
                     fraction * 100, label.c_str(), elapsed, left);
    }
    std::fflush(stderr);
}

}  // namespace ndksim::perf
