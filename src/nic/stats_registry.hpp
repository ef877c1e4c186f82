#pragma once
// The statistics of one adapter's engine: the adapter-wide operation counters (every QP the
// adapter ever had, closed ones included) and the per-QP counters of its QPs. A QP's engine
// state holds its counters; the registry keeps weak references, so statistics may be read from
// any thread while QPs come and go, and a QP's counters vanish from the listing with the QP.

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "nic/stats_block.hpp"

namespace ndksim::nic {

/// The counters of one QP.
struct qp_stats {
    explicit qp_stats(std::uint32_t number) : qpn(number) {}
    const std::uint32_t qpn;  ///< the QP number at creation
    stats_block ops;
};

class stats_registry {
  public:
    /// Any thread (QP creation): new counters for QP `qpn`, listed until the QP is destroyed.
    std::shared_ptr<qp_stats> add_qp(std::uint32_t qpn);

    /// The adapter-wide counters.
    stats_block& totals() noexcept { return totals_; }
    const stats_block& totals() const noexcept { return totals_; }

    /// Any thread: the counters of every QP alive now, by QP number.
    std::vector<std::shared_ptr<const qp_stats>> qps() const;

    /// Any thread: the counters of the live QP numbered `qpn`, or nullptr.
    std::shared_ptr<const qp_stats> find(std::uint32_t qpn) const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::weak_ptr<qp_stats>> qps_;
    std::size_t purge_at_ = 16;  // list length at which add_qp next drops destroyed QPs' entries
    stats_block totals_;
};

}  // namespace ndksim::nic
