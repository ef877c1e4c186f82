// SPDX-License-Identifier: MIT
#pragma once
// The statistics of one adapter: the single place its counters are registered and read from
// (docs/statistics.md).
//
// - Operation statistics: the adapter-wide operation counters (every QP the adapter ever had,
//   closed ones included) and the per-QP counters of its QPs. A QP's engine state holds its
//   counters; the registry keeps weak references, so statistics may be read from any thread
//   while QPs come and go, and a QP's counters vanish from the listing with the QP.
// - Named counters: every other counter of the adapter (the engine's packet, drop, CM and
//   reliability counters, the link's, the fault layer's, the sockets', the cache models'),
//   registered once while the adapter is built, under the path the statistics document gives it
//   ("packets.sent"). Each counter stays a plain relaxed atomic in the object that counts (or a
//   model's own tally): the registry only holds where to read it, so counting costs what it
//   did and reading walks the registrations.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nic/stats_block.hpp"

namespace ndksim::nic {

/// The counters of one QP.
struct qp_stats {
    explicit qp_stats(std::uint32_t number) : qpn(number) {}
    const std::uint32_t qpn;  ///< the QP number at creation
    stats_block ops;
};

/// A named counter and its value at one read.
struct counter_value {
    std::string path;  ///< "group.name" (the statistics document's keys, '.'-separated)
    std::uint64_t value = 0;
};

class stats_registry {
  public:
    /// Setup only (before the adapter is published): registers `cell` under `path`. The owner
    /// keeps counting into it; `cell` must outlive every read. Throws std::logic_error when the
    /// path is taken.
    void add_counter(std::string path, const std::atomic<std::uint64_t>& cell);
    /// Setup only: a counter computed when it is read (a sum, or a model's own tally); `read`
    /// may be called from any thread.
    void add_counter(std::string path, std::function<std::uint64_t()> read);
    /// Setup only: a counter whose source this adapter lacks (the socket counters of the
    /// in-process wire, the fault counters of a link without a fault layer). It reads 0, so
    /// every adapter lists the same counters.
    void add_absent_counter(std::string path);

    /// Any thread: the value of the counter registered under `path`; 0 when none is.
    std::uint64_t counter(std::string_view path) const;
    /// Any thread: every named counter and its value, in registration order.
    std::vector<counter_value> counters() const;

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
    struct counter_source {
        std::string path;
        const std::atomic<std::uint64_t>* cell = nullptr;  ///< read this, or
        std::function<std::uint64_t()> read;               ///< call this (neither: reads 0)
        std::uint64_t value() const;
    };
    void add(counter_source source);

    mutable std::mutex mutex_;
    std::vector<counter_source> counters_;
    std::vector<std::weak_ptr<qp_stats>> qps_;
    std::size_t purge_at_ = 16;  // list length at which add_qp next drops destroyed QPs' entries
    stats_block totals_;
};

}  // namespace ndksim::nic
