// SPDX-License-Identifier: MIT
// The statistics block: histogram bucket edges, what a record counts, and snapshots that never
// see half a record while the engine writes (run under TSan with the threaded suites).

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "nic/stats_block.hpp"
#include "nic/stats_registry.hpp"

namespace ndksim::nic {
namespace {

TEST(StatsBlock, BucketsAreLog2OfNanoseconds) {
    EXPECT_EQ(0U, latency_bucket(0));
    EXPECT_EQ(0U, latency_bucket(999));    // below 1 ns
    EXPECT_EQ(1U, latency_bucket(1'000));  // [1, 2) ns
    EXPECT_EQ(1U, latency_bucket(1'999));
    EXPECT_EQ(2U, latency_bucket(2'000));       // [2, 4) ns
    EXPECT_EQ(11U, latency_bucket(1'024'000));  // [1024, 2048) ns
    EXPECT_EQ(k_latency_buckets - 1, latency_bucket(UINT64_MAX));
}

TEST(StatsBlock, RecordsCountSuccessesFailuresBytesAndTimedSamples) {
    stats_block b;
    b.record(stat_op::write, true, 100, true, 3'000);
    b.record(stat_op::write, true, 50, true, 1'500'000);
    b.record(stat_op::write, false, 999, true, 7);
    b.record(stat_op::receive, true, 64, false, 0);
    const stats_snapshot s = b.snapshot();
    const op_snapshot& w = s.ops[static_cast<std::size_t>(stat_op::write)];
    EXPECT_EQ(2U, w.completed);
    EXPECT_EQ(1U, w.errors);
    EXPECT_EQ(150U, w.bytes);
    EXPECT_EQ(1'503'000U, w.latency_sum_ps);
    EXPECT_EQ(3'000U, w.latency_min_ps);
    EXPECT_EQ(1'500'000U, w.latency_max_ps);
    EXPECT_EQ(1U, w.latency[latency_bucket(3'000)]);
    EXPECT_EQ(1U, w.latency[latency_bucket(1'500'000)]);
    const op_snapshot& r = s.ops[static_cast<std::size_t>(stat_op::receive)];
    EXPECT_EQ(1U, r.completed);
    EXPECT_EQ(64U, r.bytes);
    EXPECT_EQ(0U, r.latency_min_ps);
    for (std::uint64_t c : r.latency) {
        EXPECT_EQ(0U, c);
    }
}

TEST(StatsBlock, SnapshotsAreConsistentWhileTheWriterRuns) {
    stats_block b;
    constexpr std::uint64_t n = 200'000;
    std::thread writer([&] {
        for (std::uint64_t i = 0; i < n; ++i) {
            b.record(stat_op::send, true, 8, true, 5'000);
        }
    });
    std::uint64_t last = 0;
    while (last < n) {
        const op_snapshot o = b.snapshot().ops[static_cast<std::size_t>(stat_op::send)];
        // Every field belongs to the same number of records.
        ASSERT_EQ(o.completed * 8, o.bytes);
        ASSERT_EQ(o.completed * 5'000, o.latency_sum_ps);
        ASSERT_EQ(o.completed, o.latency[latency_bucket(5'000)]);
        ASSERT_GE(o.completed, last);
        last = o.completed;
    }
    writer.join();
}

TEST(StatsRegistry, ListsLiveQpsByNumberAndForgetsDestroyedOnes) {
    stats_registry r;
    auto q7 = r.add_qp(7);
    auto q3 = r.add_qp(3);
    {
        auto gone = r.add_qp(5);
        EXPECT_EQ(gone, r.find(5));
    }
    EXPECT_EQ(nullptr, r.find(5));
    const auto live = r.qps();
    ASSERT_EQ(2U, live.size());
    EXPECT_EQ(3U, live[0]->qpn);
    EXPECT_EQ(7U, live[1]->qpn);
    EXPECT_EQ(q7, r.find(7));
}

// The named counters: the registry reads the owner's cell at each read, a computed counter is
// computed at each read, an absent one reads 0, and a path is registered once.
TEST(StatsRegistry, NamedCountersReadTheirSourcesWhenRead) {
    stats_registry r;
    std::atomic<std::uint64_t> sent{0};
    std::uint64_t tally = 0;
    r.add_counter("packets.sent", sent);
    r.add_counter("cache.hits", [&tally] { return tally * 2; });
    r.add_absent_counter("sockets.send_errors");
    sent.fetch_add(3, std::memory_order_relaxed);
    tally = 5;
    EXPECT_EQ(3U, r.counter("packets.sent"));
    EXPECT_EQ(10U, r.counter("cache.hits"));
    EXPECT_EQ(0U, r.counter("sockets.send_errors"));
    EXPECT_EQ(0U, r.counter("no.such_counter"));
    const std::vector<counter_value> all = r.counters();
    ASSERT_EQ(3U, all.size());
    EXPECT_EQ("packets.sent", all[0].path);
    EXPECT_EQ(3U, all[0].value);
    EXPECT_EQ("cache.hits", all[1].path);
    EXPECT_EQ(10U, all[1].value);
    EXPECT_EQ("sockets.send_errors", all[2].path);
    EXPECT_EQ(0U, all[2].value);
}

TEST(StatsRegistry, APathIsRegisteredOnce) {
    stats_registry r;
    std::atomic<std::uint64_t> a{0};
    r.add_counter("link.frames_sent", a);
    EXPECT_THROW(r.add_counter("link.frames_sent", a), std::logic_error);
    EXPECT_THROW(r.add_absent_counter("link.frames_sent"), std::logic_error);
    EXPECT_EQ(1U, r.counters().size());
}

}  // namespace
}  // namespace ndksim::nic
