// SPDX-License-Identifier: MIT
// Registration from consumer threads while engine threads look up and move bytes. Run under
// TSan (NDKSIM_SANITIZE=thread) to check the locking design of translation_unit.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

using Concurrency = unit_test;

TEST_F(Concurrency, RegisteringFromOneThreadWhileAnotherLooksUpNeverCorruptsAnAccess) {
    guarded_buffer stable(4 * page_size, 0x30);
    stable.fill_pattern(42);
    const std::uint32_t stable_token =
        unit_.local_token(registered(stable.data(), 4 * page_size, access::local_write));
    guarded_buffer churn(2 * page_size);
    mdl_builder churn_mdl(host_);
    churn_mdl.add(churn.data(), 2 * page_size);

    std::atomic<std::uint32_t> churn_token{0};
    std::atomic<bool> stop{false};
    constexpr int k_rounds = 400;

    std::thread consumer([&] {
        for (int i = 0; i < k_rounds; ++i) {
            const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
            ASSERT_EQ(
                unit_.register_region(mr, churn_mdl.chain(), 2 * page_size, access::local_write),
                status::success);
            churn_token.store(unit_.local_token(mr), std::memory_order_relaxed);
            const window_id mw = unit_.create_window(pd_).id;
            const bind_request b{mw, mr, churn.address(), 128, access::remote_write};
            const token_result t = unit_.post_bind(pd_, b);
            ASSERT_EQ(unit_.execute_bind(pd_, b, t.token), status::success);
            EXPECT_EQ(unit_.deregister_region(mr), status::device_busy);
            ASSERT_EQ(unit_.destroy_window(mw), status::success);
            ASSERT_EQ(unit_.deregister_region(mr), status::success);
            ASSERT_EQ(unit_.destroy_region(mr), status::success);
        }
        stop.store(true);
    });

    std::thread engine([&] {
        std::vector<std::byte> out(4 * page_size);
        std::vector<std::byte> in(page_size, std::byte{0x5C});
        int lookups = 0;
        while (!stop.load() || lookups < 100) {
            const read_guard g = unit_.read();
            const sge s{stable.address() + 100, 3 * page_size, stable_token};
            sge_cursor c(unit_, pd_, access_op::local_read, std::span(&s, 1));
            const copy_result r = c.copy_from_host(g, out);
            ASSERT_TRUE(r.ok());
            ASSERT_EQ(std::memcmp(out.data(), stable.data() + 100, 3 * page_size), 0);
            const sge w{churn.address(), page_size, churn_token.load(std::memory_order_relaxed)};
            sge_cursor cw(unit_, pd_, access_op::local_write, std::span(&w, 1));
            const copy_result rw = cw.copy_to_host(g, in);
            ASSERT_TRUE(rw.ok() || rw.bytes == 0);
            ++lookups;
        }
    });

    consumer.join();
    engine.join();
    EXPECT_TRUE(stable.guards_intact());
    EXPECT_TRUE(churn.guards_intact());
    EXPECT_EQ(unit_.mapped_pages(), span_pages(stable.address(), 4 * page_size));
    EXPECT_EQ(unit_.cache_stats().stale_hits, 0u);
}

TEST_F(Concurrency, FastRegisterAndInvalidateRaceWithLookups) {
    guarded_buffer buf(4 * page_size);
    buf.fill_pattern(8);
    std::vector<std::uint64_t> pages;
    lam(buf.data(), 4 * page_size, pages);
    const region_id fr = unit_.create_region(pd_, region_kind::fast_register).id;
    ASSERT_EQ(unit_.initialize_fast_register(fr, 4, true), status::success);
    std::atomic<std::uint32_t> token{0};
    std::atomic<bool> stop{false};

    std::thread engine([&] {
        std::vector<std::byte> out(page_size);
        while (!stop.load()) {
            const read_guard g = unit_.read();
            const sge s{0x7000000000ULL + 16, page_size, token.load()};
            sge_cursor c(unit_, pd_, access_op::remote_read, std::span(&s, 1));
            const copy_result r = c.copy_from_host(g, out);
            if (r.ok()) {
                ASSERT_EQ(std::memcmp(out.data(), buf.data() + 16, page_size), 0);
            }
        }
    });
    for (int i = 0; i < 500; ++i) {
        const fast_register_request rq{
            fr, pages, 0, 4 * page_size, 0x7000000000ULL, access::remote_read};
        const token_result t = unit_.post_fast_register(pd_, rq);
        ASSERT_EQ(t.st, status::success);
        token.store(t.token);
        ASSERT_EQ(unit_.execute_fast_register(pd_, rq, t.token), status::success);
        ASSERT_EQ(unit_.execute_invalidate(pd_, fr), status::success);
    }
    stop.store(true);
    engine.join();
}

TEST_F(Concurrency, TwoEnginesShareTheUnitAndItsCache) {
    guarded_buffer buf(8 * page_size);
    buf.fill_pattern(3);
    const std::uint32_t token =
        unit_.local_token(registered(buf.data(), 8 * page_size, access::local_write));
    auto engine = [&] {
        std::vector<std::byte> out(page_size);
        for (int i = 0; i < 2000; ++i) {
            const std::uint64_t off = (static_cast<std::uint64_t>(i) * 1237) % (7 * page_size);
            const read_guard g = unit_.read();
            const sge s{buf.address() + off, page_size, token};
            sge_cursor c(unit_, pd_, access_op::local_read, std::span(&s, 1));
            ASSERT_TRUE(c.copy_from_host(g, out).ok());
            ASSERT_EQ(std::memcmp(out.data(), buf.data() + off, page_size), 0);
        }
    };
    std::thread a(engine);
    std::thread b(engine);
    std::thread c([&] {
        for (int i = 0; i < 200; ++i) {
            std::vector<std::uint64_t> pages;
            guarded_buffer other(page_size);
            mdl_builder m(host_);
            m.add(other.data(), 64);
            pages.resize(1);
            const lam_result r = unit_.build_lam(m.chain(), 64, pages);
            ASSERT_EQ(r.st, status::success);
            ASSERT_TRUE(unit_.release_lam(r.id));
        }
    });
    a.join();
    b.join();
    c.join();
    const cache_counters k = unit_.cache_stats();
    EXPECT_GE(k.hits + k.misses, 2u * 2000u);
    EXPECT_EQ(k.stale_hits, 0u);
}

}  // namespace
}  // namespace ndksim::mem::test

namespace ndksim::mem::test {
namespace {

TEST_F(Concurrency, ControlOperationUnderAReadGuardIsRefusedInsteadOfDeadlocking) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 64, access::local_write);
    const read_guard g = unit_.read();
    EXPECT_EQ(unit_.deregister_region(mr), status::invalid_device_state);
    EXPECT_EQ(unit_.create_region(pd_, region_kind::normal).st, status::invalid_device_state);
    EXPECT_NE(unit_.local_token(mr), 0u);  // queries are fine under a guard
    EXPECT_EQ(unit_.describe(mr).state, region_state::valid);
}

}  // namespace
}  // namespace ndksim::mem::test
