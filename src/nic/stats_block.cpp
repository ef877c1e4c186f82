// SPDX-License-Identifier: MIT
#include "nic/stats_block.hpp"

#include <thread>

#include "util/single_writer.hpp"

namespace ndksim::nic {

void stats_block::record(stat_op op, bool ok, std::uint64_t bytes, bool timed,
                         std::uint64_t latency_ps) noexcept {
    const auto k = static_cast<std::size_t>(op);
    op_head& h = heads_[k];
    const std::uint64_t s = h.seq.load(std::memory_order_relaxed);
    h.seq.store(s + 1, std::memory_order_relaxed);  // odd: a record is in progress
    std::atomic_thread_fence(std::memory_order_release);
    if (!ok) {
        util::single_writer_add(h.errors, 1);
    } else {
        util::single_writer_add(h.completed, 1);
        util::single_writer_add(h.bytes, bytes);
        if (timed) {
            util::single_writer_add(latency_[k][latency_bucket(latency_ps)], 1);
            util::single_writer_add(h.latency_sum, latency_ps);
            if (latency_ps < h.latency_min.load(std::memory_order_relaxed)) {
                h.latency_min.store(latency_ps, std::memory_order_relaxed);
            }
            if (latency_ps > h.latency_max.load(std::memory_order_relaxed)) {
                h.latency_max.store(latency_ps, std::memory_order_relaxed);
            }
        }
    }
    h.seq.store(s + 2, std::memory_order_release);
}

stats_snapshot stats_block::snapshot() const noexcept {
    stats_snapshot out;
    for (std::size_t i = 0; i < k_stat_ops; ++i) {
        const op_head& h = heads_[i];
        op_snapshot& o = out.ops[i];
        for (;;) {
            const std::uint64_t before = h.seq.load(std::memory_order_acquire);
            if ((before & 1) != 0) {
                std::this_thread::yield();
                continue;
            }
            o.completed = h.completed.load(std::memory_order_relaxed);
            o.errors = h.errors.load(std::memory_order_relaxed);
            o.bytes = h.bytes.load(std::memory_order_relaxed);
            o.latency_sum_ps = h.latency_sum.load(std::memory_order_relaxed);
            const std::uint64_t lo = h.latency_min.load(std::memory_order_relaxed);
            o.latency_min_ps = lo == UINT64_MAX ? 0 : lo;
            o.latency_max_ps = h.latency_max.load(std::memory_order_relaxed);
            for (std::size_t b = 0; b < k_latency_buckets; ++b) {
                o.latency[b] = latency_[i][b].load(std::memory_order_relaxed);
            }
            std::atomic_thread_fence(std::memory_order_acquire);
            if (h.seq.load(std::memory_order_relaxed) == before) {
                break;
            }
        }
    }
    return out;
}

}  // namespace ndksim::nic
