// SPDX-License-Identifier: MIT
#pragma once
// Operation statistics of one QP or one adapter: per operation type, the completions, the
// failures, the bytes moved and a histogram of the modelled latency from post to completion
// (simulated time). Fixed-size arrays of atomics, so recording never allocates.
//
// Concurrency: one writer, the engine of the adapter (every completion is queued by an engine
// task, pipeline.hpp), and any number of readers. The writer brackets each record with the
// sequence counter of its operation type (a seqlock per type), so snapshot() returns each
// type's fields of one moment: a reader that overlapped a record of that type reads it again.
// Every field is an atomic, so readers never race on memory.
//
// Layout: a type's sequence counter and its scalar fields are side by side (56 bytes), apart
// from the histograms, so a record touches those and the line of its histogram bucket: two or
// three lines, where one sequence counter for the whole block made it three or four. With
// thousands of QPs each QP's block is cold when its completion is recorded, and each line is
// a miss.

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace ndksim::nic {

/// The operation types statistics distinguish (the order of ndksim_stats_op in ndksim.h).
enum class stat_op : std::uint8_t {
    send,
    receive,
    write,
    read,
    send_invalidate,
    bind,
    fast_register,
    invalidate,
};

inline constexpr std::size_t k_stat_ops = 8;

/// Latency histogram buckets: bucket 0 holds latencies below 1 ns, bucket b >= 1 those in
/// [2^(b-1), 2^b) ns; the last bucket also holds everything above (2^38 ns is ~275 s).
inline constexpr std::size_t k_latency_buckets = 40;

/// The histogram bucket of a latency of `ps` picoseconds.
constexpr std::size_t latency_bucket(std::uint64_t ps) noexcept {
    const std::uint64_t ns = ps / 1000;
    const auto b = static_cast<std::size_t>(std::bit_width(ns));
    return b < k_latency_buckets ? b : k_latency_buckets - 1;
}

/// One operation type's counters, copied out.
struct op_snapshot {
    std::uint64_t completed = 0;       ///< completed with STATUS_SUCCESS
    std::uint64_t errors = 0;          ///< completed with a failure status (flushes included)
    std::uint64_t bytes = 0;           ///< bytes of the successful completions
    std::uint64_t latency_sum_ps = 0;  ///< sum of the timed latencies
    std::uint64_t latency_min_ps = 0;  ///< 0 when nothing was timed
    std::uint64_t latency_max_ps = 0;
    std::array<std::uint64_t, k_latency_buckets> latency{};  ///< timed completions per bucket
};

/// Every operation type's counters, copied out at one moment.
struct stats_snapshot {
    std::array<op_snapshot, k_stat_ops> ops{};
};

class stats_block {
  public:
    stats_block() = default;
    stats_block(const stats_block&) = delete;
    stats_block& operator=(const stats_block&) = delete;

    /// Engine only: counts one completion of `op`. A successful one adds `bytes`, and, when
    /// `timed`, a latency sample of `latency_ps` picoseconds (post to completion).
    void record(stat_op op, bool ok, std::uint64_t bytes, bool timed,
                std::uint64_t latency_ps) noexcept;

    /// Any thread: a copy of every counter, each operation type's of one moment.
    stats_snapshot snapshot() const noexcept;

  private:
    using cell = std::atomic<std::uint64_t>;
    /// One operation type's sequence counter and scalar fields, side by side.
    struct op_head {
        cell seq{0};  // odd while a record of this type is in progress
        cell completed{0};
        cell errors{0};
        cell bytes{0};
        cell latency_sum{0};
        cell latency_min{UINT64_MAX};  // UINT64_MAX: nothing timed yet
        cell latency_max{0};
    };
    static_assert(sizeof(op_head) == 56);

    std::array<op_head, k_stat_ops> heads_{};
    std::array<std::array<cell, k_latency_buckets>, k_stat_ops> latency_{};
};

}  // namespace ndksim::nic
