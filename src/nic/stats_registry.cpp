// SPDX-License-Identifier: MIT
#include "nic/stats_registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace ndksim::nic {

std::shared_ptr<qp_stats> stats_registry::add_qp(std::uint32_t qpn) {
    auto s = std::make_shared<qp_stats>(qpn);
    std::lock_guard lock(mutex_);
    // Entries of destroyed QPs are dropped here once the list has doubled since the last
    // purge, so it stays within twice the live QPs and adding N QPs costs O(N), not O(N^2).
    if (qps_.size() >= purge_at_) {
        std::erase_if(qps_, [](const std::weak_ptr<qp_stats>& w) { return w.expired(); });
        purge_at_ = std::max<std::size_t>(16, 2 * qps_.size());
    }
    qps_.push_back(s);
    return s;
}

std::vector<std::shared_ptr<const qp_stats>> stats_registry::qps() const {
    std::vector<std::shared_ptr<const qp_stats>> out;
    {
        std::lock_guard lock(mutex_);
        out.reserve(qps_.size());
        for (const std::weak_ptr<qp_stats>& w : qps_) {
            if (std::shared_ptr<qp_stats> s = w.lock()) {
                out.push_back(std::move(s));
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x->qpn < y->qpn; });
    return out;
}

std::shared_ptr<const qp_stats> stats_registry::find(std::uint32_t qpn) const {
    std::lock_guard lock(mutex_);
    // A number is reused only after its QP is destroyed, so at most one live entry matches.
    for (const std::weak_ptr<qp_stats>& w : qps_) {
        if (std::shared_ptr<qp_stats> s = w.lock(); s && s->qpn == qpn) {
            return s;
        }
    }
    return nullptr;
}

std::uint64_t stats_registry::counter_source::value() const {
    if (cell != nullptr) {
        return cell->load(std::memory_order_relaxed);
    }
    return read ? read() : 0;
}

void stats_registry::add(counter_source source) {
    std::lock_guard lock(mutex_);
    for (const counter_source& c : counters_) {
        if (c.path == source.path) {
            throw std::logic_error("statistics: counter " + source.path + " registered twice");
        }
    }
    counters_.push_back(std::move(source));
}

void stats_registry::add_counter(std::string path, const std::atomic<std::uint64_t>& cell) {
    add(counter_source{std::move(path), &cell, {}});
}

void stats_registry::add_counter(std::string path, std::function<std::uint64_t()> read) {
    add(counter_source{std::move(path), nullptr, std::move(read)});
}

void stats_registry::add_absent_counter(std::string path) {
    add(counter_source{std::move(path), nullptr, {}});
}

std::uint64_t stats_registry::counter(std::string_view path) const {
    std::lock_guard lock(mutex_);
    for (const counter_source& c : counters_) {
        if (c.path == path) {
            return c.value();
        }
    }
    return 0;
}

std::vector<counter_value> stats_registry::counters() const {
    std::lock_guard lock(mutex_);
    std::vector<counter_value> out;
    out.reserve(counters_.size());
    for (const counter_source& c : counters_) {
        out.push_back(counter_value{c.path, c.value()});
    }
    return out;
}

}  // namespace ndksim::nic
