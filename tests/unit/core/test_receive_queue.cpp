// SPDX-License-Identifier: MIT
// core::receive_queue: the posted receives of a QP receive queue or an SRQ.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/receive_queue.hpp"
#include "core_test_env.hpp"

namespace ndksim::core {
namespace {

using test::ctx;
using test::num;

std::array<sge, 3> sges_for(std::uint32_t n) {
    return {sge{0x1000ULL * n, n, 0x100 + n}, sge{0x2000ULL * n, 2 * n, 0x200 + n},
            sge{0x3000ULL * n, 3 * n, 0x300 + n}};
}

TEST(ReceiveQueue, TakeReturnsContextsAndSgesInPostOrder) {
    receive_queue q(4, 3);
    for (std::uint32_t n = 1; n <= 3; ++n) {
        const auto s = sges_for(n);
        ASSERT_EQ(q.post(ctx(n), s.data(), n), status::success);
    }
    EXPECT_EQ(q.size(), 3U);
    for (std::uint32_t n = 1; n <= 3; ++n) {
        received r{};
        ASSERT_TRUE(q.take(r));
        EXPECT_EQ(num(r.context), n);
        ASSERT_EQ(r.sges.size(), n);
        const auto s = sges_for(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            EXPECT_EQ(r.sges[i].address, s[i].address);
            EXPECT_EQ(r.sges[i].length, s[i].length);
            EXPECT_EQ(r.sges[i].token, s[i].token);
        }
        q.release(r.slot);
    }
    received none{};
    EXPECT_FALSE(q.take(none));
    EXPECT_EQ(q.size(), 0U);
}

TEST(ReceiveQueue, PostingBeyondTheDepthIsInsufficientResources) {
    receive_queue q(2, 1);
    const sge s{0x1000, 64, 7};
    ASSERT_EQ(q.post(ctx(1), &s, 1), status::success);
    ASSERT_EQ(q.post(ctx(2), &s, 1), status::success);
    EXPECT_EQ(q.post(ctx(3), &s, 1), status::insufficient_resources);
    EXPECT_EQ(q.size(), 2U);
}

TEST(ReceiveQueue, ATakenReceiveOccupiesItsSlotUntilReleased) {
    receive_queue q(1, 1);
    const sge s{0x1000, 64, 7};
    ASSERT_EQ(q.post(ctx(1), &s, 1), status::success);
    received r{};
    ASSERT_TRUE(q.take(r));
    EXPECT_EQ(q.size(), 0U);
    EXPECT_EQ(q.outstanding(), 1U);
    EXPECT_EQ(q.post(ctx(2), &s, 1), status::insufficient_resources);
    q.release(r.slot);
    EXPECT_EQ(q.post(ctx(2), &s, 1), status::success);
}

TEST(ReceiveQueue, MoreSgesThanMaxSgeIsInvalidParameterAndChangesNothing) {
    receive_queue q(4, 2);
    const auto s = sges_for(1);
    EXPECT_EQ(q.post(ctx(1), s.data(), 3), status::invalid_parameter);
    EXPECT_EQ(q.post(ctx(1), nullptr, 1), status::invalid_parameter);
    EXPECT_EQ(q.size(), 0U);
    EXPECT_EQ(q.post(ctx(1), s.data(), 2), status::success);
}

TEST(ReceiveQueue, AReceiveWithoutSgesIsAccepted) {
    receive_queue q(2, 0);
    ASSERT_EQ(q.post(ctx(5), nullptr, 0), status::success);
    received r{};
    ASSERT_TRUE(q.take(r));
    EXPECT_EQ(num(r.context), 5U);
    EXPECT_TRUE(r.sges.empty());
    q.release(r.slot);
}

TEST(ReceiveQueue, FrontPeeksWithoutRemovingAndPopFreesTheSlot) {
    receive_queue q(1, 3);
    const auto s = sges_for(2);
    ASSERT_EQ(q.post(ctx(2), s.data(), 2), status::success);
    received r{};
    ASSERT_TRUE(q.front(r));
    EXPECT_EQ(num(r.context), 2U);
    EXPECT_EQ(r.sges.size(), 2U);
    EXPECT_EQ(q.size(), 1U);
    q.pop();
    EXPECT_EQ(q.outstanding(), 0U);
    EXPECT_FALSE(q.front(r));
    EXPECT_EQ(q.post(ctx(3), s.data(), 1), status::success);
}

TEST(ReceiveQueue, DrainHandsEveryQueuedReceiveInOrderAndEmptiesTheQueue) {
    receive_queue q(4, 3);
    const auto s = sges_for(1);
    for (std::uintptr_t n = 1; n <= 3; ++n) {
        ASSERT_EQ(q.post(ctx(n), s.data(), 1), status::success);
    }
    received first{};
    ASSERT_TRUE(q.take(first));  // receive 1 completes normally
    q.release(first.slot);
    for (std::uintptr_t n = 4; n <= 5; ++n) {  // wraps around the ring
        ASSERT_EQ(q.post(ctx(n), s.data(), 1), status::success);
    }
    std::vector<std::uintptr_t> order;
    const std::uint32_t n = q.drain([&order](const received& r) {
        order.push_back(num(r.context));
        EXPECT_EQ(r.sges.size(), 1U);
    });
    EXPECT_EQ(n, 4U);
    EXPECT_EQ(order, (std::vector<std::uintptr_t>{2, 3, 4, 5}));
    EXPECT_EQ(q.size(), 0U);
    EXPECT_EQ(q.outstanding(), 0U);
    EXPECT_EQ(q.drain([](const received&) { ADD_FAILURE() << "queue not empty"; }), 0U);
}

TEST(ReceiveQueue, GrowingKeepsOrderAndTheSgesOfATakenReceive) {
    receive_queue q(2, 3);
    const auto s1 = sges_for(1);
    const auto s2 = sges_for(2);
    ASSERT_EQ(q.post(ctx(1), s1.data(), 3), status::success);
    ASSERT_EQ(q.post(ctx(2), s2.data(), 3), status::success);
    received held{};
    ASSERT_TRUE(q.take(held));
    ASSERT_EQ(q.resize(8), status::success);
    EXPECT_EQ(q.depth(), 8U);
    // The span obtained before the resize still reads receive 1's SGEs.
    ASSERT_EQ(held.sges.size(), 3U);
    EXPECT_EQ(held.sges[2].address, s1[2].address);
    for (std::uintptr_t n = 3; n <= 8; ++n) {
        ASSERT_EQ(q.post(ctx(n), s1.data(), 1), status::success) << n;
    }
    EXPECT_EQ(q.post(ctx(9), s1.data(), 1), status::insufficient_resources);
    q.release(held.slot);
    std::vector<std::uintptr_t> order;
    q.drain([&order](const received& r) { order.push_back(num(r.context)); });
    EXPECT_EQ(order, (std::vector<std::uintptr_t>{2, 3, 4, 5, 6, 7, 8}));
}

TEST(ReceiveQueue, ShrinkingBelowTheOutstandingCountIsInvalidParameter) {
    receive_queue q(4, 1);
    const sge s{0x1000, 64, 7};
    for (std::uintptr_t n = 1; n <= 3; ++n) {
        ASSERT_EQ(q.post(ctx(n), &s, 1), status::success);
    }
    EXPECT_EQ(q.resize(2), status::invalid_parameter);
    EXPECT_EQ(q.resize(0), status::invalid_parameter);
    EXPECT_EQ(q.depth(), 4U);
    ASSERT_EQ(q.resize(3), status::success);
    EXPECT_EQ(q.post(ctx(4), &s, 1), status::insufficient_resources);
    ASSERT_EQ(q.resize(4), status::success);  // back up within the slots already allocated
    EXPECT_EQ(q.post(ctx(4), &s, 1), status::success);
}

// One consumer thread posts while the engine thread takes and releases (rule 8: one poster per
// queue); every receive arrives once, in order.
TEST(ReceiveQueue, OnePosterAndTheEngineOnAnotherThreadKeepFifoOrder) {
    constexpr std::uintptr_t k_total = 50'000;
    receive_queue q(64, 2);
    std::atomic<bool> failed{false};
    std::thread engine([&] {
        std::uintptr_t expected = 1;
        while (expected <= k_total) {
            received r{};
            if (!q.take(r)) {
                std::this_thread::yield();
                continue;
            }
            if (num(r.context) != expected || r.sges.size() != 2 ||
                r.sges[1].length != static_cast<std::uint32_t>(expected)) {
                failed = true;
            }
            q.release(r.slot);
            ++expected;
        }
    });
    for (std::uintptr_t n = 1; n <= k_total;) {
        const std::array<sge, 2> s{sge{n, 1, 1}, sge{n, static_cast<std::uint32_t>(n), 2}};
        const status st = q.post(ctx(n), s.data(), 2);
        if (st == status::success) {
            ++n;
        } else if (st == status::insufficient_resources) {
            std::this_thread::yield();
        } else {
            std::abort();  // the engine thread would wait forever for the missing receive
        }
    }
    engine.join();
    EXPECT_FALSE(failed.load());
    EXPECT_EQ(q.outstanding(), 0U);
}

}  // namespace
}  // namespace ndksim::core
