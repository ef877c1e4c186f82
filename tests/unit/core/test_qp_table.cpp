// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "core/qp_table.hpp"

namespace ndksim::core {
namespace {

// A counted object that says when it is gone: `alive` is cleared by the destructor, and the
// number of destroyed objects is counted, so a lookup that returned a freed object and a leak
// both show (the sanitizer builds also catch the access itself).
struct counted {
    static inline std::atomic<int> destroyed{0};
    std::atomic<int> refs{1};
    std::atomic<bool> alive{true};
    explicit counted(std::uint32_t t) : tag(t) {}
    ~counted() {
        alive.store(false);
        destroyed.fetch_add(1);
    }
    std::uint32_t tag;
};

void intrusive_ptr_add_ref(counted* c) noexcept {
    c->refs.fetch_add(1, std::memory_order_relaxed);
}
void intrusive_ptr_release(counted* c) noexcept {
    if (c->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete c;
    }
}

// Spins (yielding) until `cond` holds; fails the test loudly after 10 s of wall time.
template <class Cond>
bool await(Cond cond) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cond()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "condition not reached within 10 s";
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

TEST(QpTable, NumbersStartAfterTheSpecialQpsAndRunOut) {
    qp_table<counted> t(6);
    EXPECT_EQ(t.capacity(), 4u);
    EXPECT_EQ(t.allocate(), 2u);
    EXPECT_EQ(t.allocate(), 3u);
    EXPECT_EQ(t.allocate(), 4u);
    EXPECT_EQ(t.allocate(), 5u);
    EXPECT_EQ(t.allocate(), 0u);  // every number in use
}

TEST(QpTable, GivenBackNumbersAreReusedOldestFirstAfterTheFreshOnes) {
    qp_table<counted> t(6);
    const std::uint32_t a = t.allocate();
    const std::uint32_t b = t.allocate();
    t.release(b);
    t.release(a);
    // Fresh numbers first, so a late packet for b or a does not reach a new QP.
    EXPECT_EQ(t.allocate(), 4u);
    EXPECT_EQ(t.allocate(), 5u);
    EXPECT_EQ(t.allocate(), b);
    EXPECT_EQ(t.allocate(), a);
    EXPECT_EQ(t.allocate(), 0u);
    t.release(0);  // the special numbers and numbers out of range are never handed out
    t.release(1);
    t.release(99);
    EXPECT_EQ(t.allocate(), 0u);
}

TEST(QpTable, LookupFindsTheObjectOnlyWhileAttached) {
    qp_table<counted> t(8);
    const std::uint32_t n = t.allocate();
    EXPECT_FALSE(t.find(n));  // handed out, not yet built
    boost::intrusive_ptr<counted> obj(new counted(7), false);
    t.attach(n, obj.get());
    {
        const boost::intrusive_ptr<counted> found = t.find(n);
        ASSERT_TRUE(found);
        EXPECT_EQ(found->tag, 7u);
        EXPECT_EQ(obj->refs.load(), 2);  // the lookup's reference
    }
    EXPECT_EQ(obj->refs.load(), 1);
    t.detach(n);
    EXPECT_FALSE(t.find(n));
    EXPECT_FALSE(t.find(99));  // out of range: nothing, no fault
}

// The lookup of a packet on the engine thread against a close on a consumer thread: the
// reference the lookup took keeps the QP alive after the close detached it and dropped the
// consumer's reference, and the QP is freed by the lookup's release, once.
TEST(QpTable, AReferenceTakenByALookupOutlivesTheDetachAndTheOwnersRelease) {
    qp_table<counted> t(8);
    const std::uint32_t n = t.allocate();
    constexpr int k_rounds = 200;
    counted::destroyed.store(0);
    std::atomic<int> published{-1};
    std::atomic<int> held{-1};
    std::atomic<int> dropped{-1};
    std::thread reader([&] {
        for (int r = 0; r < k_rounds; ++r) {
            if (!await([&] { return published.load() == r; })) {
                return;
            }
            boost::intrusive_ptr<counted> found = t.find(n);
            ASSERT_TRUE(found);
            held.store(r);
            // The owner detaches and releases now; the object must stay whole meanwhile.
            if (!await([&] { return dropped.load() == r; })) {
                return;
            }
            EXPECT_TRUE(found->alive.load());
            EXPECT_EQ(found->tag, static_cast<std::uint32_t>(r));
            EXPECT_EQ(found->refs.load(), 1);  // only this lookup's reference is left
        }
    });
    for (int r = 0; r < k_rounds; ++r) {
        boost::intrusive_ptr<counted> obj(new counted(static_cast<std::uint32_t>(r)), false);
        t.attach(n, obj.get());
        published.store(r);
        if (!await([&] { return held.load() == r; })) {
            break;
        }
        t.detach(n);
        obj.reset();
        dropped.store(r);
    }
    reader.join();
    EXPECT_EQ(counted::destroyed.load(), k_rounds);
    EXPECT_FALSE(t.find(n));
}

// Lookups racing attach, detach and free with no handshake: every lookup returns a live object
// or nothing, and every object is freed exactly once (the sanitizer builds watch the accesses).
TEST(QpTable, LookupsRacingClosesNeverSeeAFreedObject) {
    qp_table<counted> t(8);
    const std::uint32_t n = t.allocate();
    constexpr int k_objects = 20000;
    counted::destroyed.store(0);
    std::atomic<bool> done{false};
    std::atomic<int> found_live{0};
    std::thread reader([&] {
        while (!done.load(std::memory_order_acquire)) {
            if (const boost::intrusive_ptr<counted> found = t.find(n)) {
                EXPECT_TRUE(found->alive.load());
                found_live.fetch_add(1, std::memory_order_relaxed);
            }
        }
    });
    for (int i = 0; i < k_objects; ++i) {
        auto* obj = new counted(static_cast<std::uint32_t>(i));
        t.attach(n, obj);
        t.detach(n);
        intrusive_ptr_release(obj);
    }
    done.store(true, std::memory_order_release);
    reader.join();
    EXPECT_EQ(counted::destroyed.load(), k_objects);
    // How often a lookup overlapped an attached object depends on the host; it is reported.
    RecordProperty("lookups_that_found_an_object", found_live.load());
}

}  // namespace
}  // namespace ndksim::core
