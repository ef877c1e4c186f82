#include "nic/stats_registry.hpp"

#include <algorithm>

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

}  // namespace ndksim::nic
