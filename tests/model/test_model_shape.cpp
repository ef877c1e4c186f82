// SPDX-License-Identifier: MIT
// The shape of the timing model, through the public API on one deterministic loop: latency
// grows with size, bandwidth saturates at the link rate minus headers, QPs share the link,
// translation-cache misses cost time. Simulated time only; the exact figures are the
// calibration report's business (bench/calibration), these tests check relations.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_pair.hpp"

namespace {

using ndksim::model::model_pair;
using end = model_pair::end;

const std::string data_dir = NDKSIM_TEST_MODEL_DATA;

// Round trip of a SEND ping-pong of `bytes` (silent sends: only receives complete) [ps],
// after a warm-up round.
ULONG64 ping_pong(model_pair& p, ULONG bytes) {
    const ULONG64 start = p.now();
    for (int round = 0; round < 2; ++round) {
        const ULONG64 begin = p.now();
        p.receive(end::a, 0, bytes);
        p.receive(end::b, 0, bytes);
        EXPECT_EQ(p.send(end::a, 0, bytes, NDK_OP_FLAG_SILENT_SUCCESS), STATUS_SUCCESS);
        EXPECT_NE(p.run_until(end::b, 1), 0U);
        EXPECT_EQ(p.send(end::b, 0, bytes, NDK_OP_FLAG_SILENT_SUCCESS), STATUS_SUCCESS);
        EXPECT_NE(p.run_until(end::a, 1), 0U);
        if (round == 1) {
            return p.now() - begin;
        }
    }
    return p.now() - start;
}

// Payload bits per second of `count` WRITEs of `bytes` posted at once on each of the pair's
// QPs, over the second half of the completions.
double write_bandwidth(model_pair& p, unsigned qps, unsigned count, ULONG bytes) {
    for (unsigned i = 0; i < count; ++i) {
        for (unsigned q = 0; q < qps; ++q) {
            EXPECT_EQ(p.write(q, bytes, 0), STATUS_SUCCESS);
        }
    }
    std::vector<ULONG64> times;
    EXPECT_TRUE(p.record(end::a, count * qps, times));
    const std::size_t from = times.size() / 2;
    return static_cast<double>(times.size() - 1 - from) * bytes * 8 * 1e12 /
           static_cast<double>(times.back() - times[from]);
}

TEST(ModelShape, LatencyRisesMonotonicallyWithSize) {
    model_pair::options o;
    o.queue_depth = 64;
    model_pair p(o);
    ASSERT_TRUE(p.ok()) << p.error();
    ULONG64 previous = 0;
    for (ULONG bytes = 1; bytes <= 256 * 1024; bytes *= 2) {
        const ULONG64 t = ping_pong(p, bytes);
        EXPECT_GT(t, previous) << bytes << " bytes";
        previous = t;
    }
    EXPECT_EQ(p.failed(), 0U);
}

TEST(ModelShape, BandwidthSaturatesAtTheLinkRateMinusHeaders) {
    model_pair::options o;
    o.profile = nullptr;
    o.queue_depth = 128;
    const std::string fast = data_dir + "/fast-pcie.toml";
    o.profile = fast.c_str();
    model_pair p(o);
    ASSERT_TRUE(p.ok()) << p.error();
    // 64 KiB = 16 packets of 4096 B; each carries BTH 12 + ICRC 4 + LRH/VCRC 10 (and the first
    // a 16 B RETH) on a 100 Gb/s link.
    const double link_payload = 100e9 * 65536.0 / (16 * 4122.0 + 16);
    const double bw = write_bandwidth(p, 1, 128, 65536);
    EXPECT_NEAR(bw, link_payload, link_payload * 0.01);
    EXPECT_EQ(p.failed(), 0U);
}

TEST(ModelShape, BandwidthNeverExceedsTheLink) {
    model_pair::options o;
    o.queue_depth = 128;
    model_pair p(o);
    ASSERT_TRUE(p.ok()) << p.error();
    const double link_payload = 100e9 * 65536.0 / (16 * 4122.0 + 16);
    const double bw = write_bandwidth(p, 1, 128, 65536);
    EXPECT_LT(bw, link_payload);
    EXPECT_GT(bw, link_payload * 0.9);  // the slower PCIe reads, not anything else
}

TEST(ModelShape, TwoQpsSharingTheLinkGetHalfEach) {
    model_pair::options o;
    o.queue_depth = 128;
    double one_qp = 0;
    {
        model_pair alone(o);
        ASSERT_TRUE(alone.ok()) << alone.error();
        one_qp = write_bandwidth(alone, 1, 128, 65536);
    }
    o.qps = 2;
    model_pair p(o);
    ASSERT_TRUE(p.ok()) << p.error();
    for (unsigned i = 0; i < 128; ++i) {
        ASSERT_EQ(p.write(0, 65536, 0), STATUS_SUCCESS);
        ASSERT_EQ(p.write(1, 65536, 0), STATUS_SUCCESS);
    }
    // After a warm-up (cold translation caches favour whichever QP went first), each QP has
    // about half of the next 128 completions...
    ASSERT_NE(p.run_until(end::a, 64), 0U);
    const unsigned first = p.completions(end::a, 0);
    const unsigned second = p.completions(end::a, 1);
    const ULONG64 start = p.now();
    ASSERT_NE(p.run_until(end::a, 128), 0U);
    EXPECT_NEAR(p.completions(end::a, 0) - first, 64.0, 64 * 0.1);
    EXPECT_NEAR(p.completions(end::a, 1) - second, 64.0, 64 * 0.1);
    // ...and together they get what one QP alone gets.
    const double both = 128.0 * 65536 * 8 * 1e12 / static_cast<double>(p.now() - start);
    EXPECT_NEAR(both, one_qp, one_qp * 0.05);
    p.settle();
    EXPECT_EQ(p.failed(), 0U);
}

// Total time of `count` WRITEs of 64 B, one after the other, the i-th to MR `region(i)`.
template <class Region>
ULONG64 sequential_writes(model_pair& p, unsigned count, Region region) {
    const ULONG64 start = p.now();
    for (unsigned i = 0; i < count; ++i) {
        EXPECT_EQ(p.write(0, 64, 0, region(i)), STATUS_SUCCESS);
        EXPECT_NE(p.run_until(end::a, 1), 0U);
    }
    return p.now() - start;
}

TEST(ModelShape, CacheMissHeavyPatternIsSlowerThanCacheFriendly) {
    // 1024 MRs of one page each on both sides: twice the translation cache's entries (a
    // profile of 512), so a round-robin over them misses on every access, while one MR stays
    // cached.
    const std::string small = data_dir + "/small-mtt.toml";
    model_pair::options o;
    o.profile = small.c_str();
    o.queue_depth = 64;
    o.buffer_bytes = 4 << 20;
    o.regions = 1024;
    model_pair p(o);
    ASSERT_TRUE(p.ok()) << p.error();
    const ULONG64 friendly = sequential_writes(p, 2048, [](unsigned) { return 0U; });
    const ULONG64 scattered = sequential_writes(p, 2048, [](unsigned i) { return i % 1024; });
    EXPECT_GT(scattered, friendly + friendly / 4);
    EXPECT_EQ(p.failed(), 0U);
}

}  // namespace
