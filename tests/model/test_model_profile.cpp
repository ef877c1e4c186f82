// SPDX-License-Identifier: MIT
// Each profile parameter that shapes the engine beyond the stage formulas changes the modelled
// outcome in the expected direction, and by exactly its value where the model is exact:
// nic.qpc_cache_entries / qpc_miss_ns, nic.mtt_cache_entries, host.interrupt_ns,
// ack.coalesce_ns and ack.generation_ns (docs/timing.md). Two runs that differ only in one
// parameter are compared; simulated time only.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "model_pair.hpp"

namespace {

using ndksim::model::model_pair;
using end = model_pair::end;

const std::string data_dir = NDKSIM_TEST_MODEL_DATA;
constexpr ULONG64 ps_per_ns = 1'000;

std::string data_file(const char* name) {
    return data_dir + "/" + name;
}

ndksim_adapter_stats stats_of(model_pair& p, end at) {
    ndksim_adapter_stats s{};
    s.size = sizeof s;
    EXPECT_EQ(ndksim_adapter_get_stats(p.nic(at), &s), STATUS_SUCCESS);
    return s;
}

// Modelled time of `rounds` rounds of one 8-byte WRITE on each of the pair's `qps` QPs in turn,
// each waiting for its completion, after one warm-up round [ps].
ULONG64 round_robin_writes(model_pair& p, unsigned qps, unsigned rounds) {
    ULONG64 start = 0;
    for (unsigned r = 0; r <= rounds; ++r) {
        if (r == 1) {
            start = p.now();
        }
        for (unsigned q = 0; q < qps; ++q) {
            EXPECT_EQ(p.write(q, 8, 0), STATUS_SUCCESS);
            EXPECT_NE(p.run_until(end::a, 1), 0U);
        }
    }
    return p.now() - start;
}

// Modelled latency of one 8-byte WRITE (post to completion) on a pair with `profile`, after
// a warm-up WRITE [ps].
ULONG64 write_latency(const char* profile) {
    model_pair::options o;
    const std::string file = profile == nullptr ? std::string() : data_file(profile);
    o.profile = profile == nullptr ? nullptr : file.c_str();
    model_pair p(o);
    EXPECT_TRUE(p.ok()) << p.error();
    if (!p.ok()) {
        return 0;
    }
    EXPECT_EQ(p.write(0, 8, 0), STATUS_SUCCESS);
    EXPECT_NE(p.run_until(end::a, 1), 0U);
    p.settle();
    const ULONG64 start = p.now();
    EXPECT_EQ(p.write(0, 8, 0), STATUS_SUCCESS);
    const ULONG64 done = p.run_until(end::a, 1);
    EXPECT_EQ(p.failed(), 0U);
    return done - start;
}

// What a run of round_robin_writes shows: its modelled time and the QP context cache
// counters' growth at each end.
struct qpc_run {
    ULONG64 time = 0;
    ULONG64 a_hits = 0;
    ULONG64 a_misses = 0;
    ULONG64 b_hits = 0;
    ULONG64 b_misses = 0;
};

qpc_run qpc_round_robin(const char* profile, unsigned qps, unsigned rounds) {
    const std::string file = data_file(profile);
    model_pair::options o;
    o.qps = qps;
    o.queue_depth = 16;
    o.profile = file.c_str();
    model_pair p(o);
    EXPECT_TRUE(p.ok()) << p.error();
    qpc_run r;
    if (!p.ok()) {
        return r;
    }
    const ndksim_adapter_stats a0 = stats_of(p, end::a);
    const ndksim_adapter_stats b0 = stats_of(p, end::b);
    r.time = round_robin_writes(p, qps, rounds);
    const ndksim_adapter_stats a1 = stats_of(p, end::a);
    const ndksim_adapter_stats b1 = stats_of(p, end::b);
    r.a_hits = a1.qp_context_cache_hits - a0.qp_context_cache_hits;
    r.a_misses = a1.qp_context_cache_misses - a0.qp_context_cache_misses;
    r.b_hits = b1.qp_context_cache_hits - b0.qp_context_cache_hits;
    r.b_misses = b1.qp_context_cache_misses - b0.qp_context_cache_misses;
    EXPECT_EQ(p.failed(), 0U);
    return r;
}

TEST(ProfileEffect, QpsOutnumberingTheQpContextCachePayTheMissOnEveryAccess) {
    // Three QPs in turn: with a cache of three contexts every access hits after the warm-up;
    // with two, LRU evicts the context needed next. The requester's side reads a QP's context
    // for the request and finds it again for the ACK; the responder, which sees only the
    // requests, misses every time. So each WRITE pays two misses: one at each end.
    constexpr unsigned qps = 3;
    constexpr unsigned rounds = 10;
    const qpc_run fits = qpc_round_robin("qpc-3.toml", qps, rounds);
    const qpc_run thrash = qpc_round_robin("qpc-2.toml", qps, rounds);
    constexpr ULONG64 writes = qps * (rounds + 1);
    constexpr ULONG64 timed = qps * rounds;
    // Cold misses only: each QP's first request, and at b each QP's first arrival.
    EXPECT_EQ(fits.a_misses, qps);
    EXPECT_EQ(fits.a_hits, 2 * writes - qps);
    EXPECT_EQ(fits.b_misses, qps);
    EXPECT_EQ(fits.b_hits, writes - qps);
    // Thrashing: every request misses at both ends; the ACK finds its context at a.
    EXPECT_EQ(thrash.a_misses, writes);
    EXPECT_EQ(thrash.a_hits, writes);
    EXPECT_EQ(thrash.b_misses, writes);
    EXPECT_EQ(thrash.b_hits, 0U);
    // Each timed WRITE waits for two context fetches of qpc_miss_ns (550 ns) in series.
    EXPECT_EQ(thrash.time - fits.time, timed * 2 * 550 * ps_per_ns);
}

// Modelled time and translation-cache misses (both ends) of a second pass of 64 B WRITEs over
// 1024 one-page MRs, after a first pass that fills the cache.
std::pair<ULONG64, ULONG64> second_pass_over_1024_pages(const char* profile) {
    const std::string file = profile == nullptr ? std::string() : data_file(profile);
    model_pair::options o;
    o.profile = profile == nullptr ? nullptr : file.c_str();
    o.buffer_bytes = 4 << 20;
    o.regions = 1024;
    o.queue_depth = 64;
    model_pair p(o);
    EXPECT_TRUE(p.ok()) << p.error();
    if (!p.ok()) {
        return {0, 0};
    }
    for (unsigned r = 0; r < 1024; ++r) {
        EXPECT_EQ(p.write(0, 64, 0, r), STATUS_SUCCESS);
        EXPECT_NE(p.run_until(end::a, 1), 0U);
    }
    const ULONG64 before =
        stats_of(p, end::a).translation_cache_misses + stats_of(p, end::b).translation_cache_misses;
    const ULONG64 start = p.now();
    for (unsigned r = 0; r < 1024; ++r) {
        EXPECT_EQ(p.write(0, 64, 0, r), STATUS_SUCCESS);
        EXPECT_NE(p.run_until(end::a, 1), 0U);
    }
    const ULONG64 time = p.now() - start;
    const ULONG64 misses = stats_of(p, end::a).translation_cache_misses +
                           stats_of(p, end::b).translation_cache_misses - before;
    EXPECT_EQ(p.failed(), 0U);
    return {time, misses};
}

TEST(ProfileEffect, SmallerTranslationCacheMissesMoreAndTakesLonger) {
    // 1024 one-page MRs per side fit the default 4096-entry cache after the first pass, not
    // the 512 entries of small-mtt.toml, which misses on (nearly) every page at both ends.
    const auto [large_time, large_misses] = second_pass_over_1024_pages(nullptr);
    const auto [small_time, small_misses] = second_pass_over_1024_pages("small-mtt.toml");
    EXPECT_GT(small_misses, large_misses + 1024);
    EXPECT_GT(small_time, large_time);
}

TEST(ProfileEffect, CqNotificationArrivesExactlyOneInterruptAfterTheCompletion) {
    const std::string zero_file = data_file("no-interrupt.toml");
    ULONG64 completed[2] = {};
    ULONG64 notified[2] = {};
    const char* profiles[2] = {nullptr, zero_file.c_str()};  // cx4-edr: interrupt_ns 2000
    for (int i = 0; i < 2; ++i) {
        model_pair::options o;
        o.profile = profiles[i];
        model_pair p(o);
        ASSERT_TRUE(p.ok()) << p.error();
        ASSERT_EQ(p.receive(end::b, 0, 64), STATUS_SUCCESS);
        p.arm(end::b);
        ASSERT_EQ(p.send(end::a, 0, 64, 0), STATUS_SUCCESS);
        // Polling sees the receive as soon as it is queued: no interrupt is involved.
        completed[i] = p.run_until(end::b, 1);
        ASSERT_NE(completed[i], 0U);
        while (p.notifications(end::b) == 0) {
            ASSERT_TRUE(p.step()) << "no notification";
        }
        notified[i] = p.notified_at(end::b);
        p.settle();
        EXPECT_EQ(p.notifications(end::b), 1U);
        EXPECT_EQ(p.failed(), 0U);
    }
    EXPECT_EQ(completed[0], completed[1]) << "the interrupt does not slow the data path";
    EXPECT_EQ(notified[0] - completed[0], 2'000 * ps_per_ns);
    EXPECT_EQ(notified[1] - completed[1], 0U);
}

TEST(ProfileEffect, AckCoalescingWindowDelaysTheAckByItsLength) {
    // A lone WRITE completes when its ACK arrives: the window holds the ACK exactly 1 us.
    EXPECT_EQ(write_latency("coalesce-1us.toml") - write_latency(nullptr), 1'000 * ps_per_ns);
}

TEST(ProfileEffect, AckCoalescingWindowLetsFewerAcksCoverAStream) {
    const std::string coalesce_file = data_file("coalesce-1us.toml");
    ULONG64 acks[2] = {};
    ULONG64 coalesced[2] = {};
    const char* profiles[2] = {nullptr, coalesce_file.c_str()};
    for (int i = 0; i < 2; ++i) {
        model_pair::options o;
        o.profile = profiles[i];
        o.queue_depth = 64;
        model_pair p(o);
        ASSERT_TRUE(p.ok()) << p.error();
        for (unsigned w = 0; w < 64; ++w) {
            ASSERT_EQ(p.write(0, 4096, 0), STATUS_SUCCESS);
        }
        ASSERT_NE(p.run_until(end::a, 64), 0U);
        p.settle();
        const ndksim_adapter_stats s = stats_of(p, end::b);
        acks[i] = s.acks_sent;
        coalesced[i] = s.acks_coalesced;
        EXPECT_EQ(p.failed(), 0U);
    }
    EXPECT_LT(acks[1], acks[0]);
    EXPECT_GT(coalesced[1], coalesced[0]);
}

TEST(ProfileEffect, AckGenerationTimeDelaysTheAckByItsLength) {
    // slow-ack.toml builds ACKs in 120 ns instead of 20.
    EXPECT_EQ(write_latency("slow-ack.toml") - write_latency(nullptr), 100 * ps_per_ns);
}

}  // namespace
