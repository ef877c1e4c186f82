// SPDX-License-Identifier: MIT
// The access gate between a unit's data path and its control operations: the reader's flag,
// the exclusive way in, and their exclusion. Run under TSan as well (NDKSIM_SANITIZE=thread),
// which checks that every holder is ordered after the one before.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

// Waits, without sleeping, until `pred` holds; false after 10 s of wall time (the caller
// fails the test, naming what never happened).
template <class Pred>
bool eventually(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

TEST(AccessGate, AReaderAloneGetsInByItsFlagAndLeavesItDown) {
    access_gate gate;
    const access_gate::entry how = gate.enter_read();
    EXPECT_EQ(how, access_gate::entry::fast);
    EXPECT_TRUE(gate.reader_inside());
    EXPECT_FALSE(gate.closed());
    gate.leave(how);
    EXPECT_FALSE(gate.reader_inside());
}

TEST(AccessGate, AControlOperationClosesTheGateAndOpensItWhenItLeaves) {
    access_gate gate;
    const access_gate::entry how = gate.enter_exclusive();
    EXPECT_EQ(how, access_gate::entry::exclusive);
    EXPECT_TRUE(gate.closed());
    gate.leave(how);
    EXPECT_FALSE(gate.closed());
    // With the gate open again, the reader's way is the fast one.
    const access_gate::entry read = gate.enter_read();
    EXPECT_EQ(read, access_gate::entry::fast);
    gate.leave(read);
}

TEST(AccessGate, AControlOperationWaitsForTheReaderInsideToLeave) {
    access_gate gate;
    const access_gate::entry how = gate.enter_read();
    ASSERT_EQ(how, access_gate::entry::fast);
    std::atomic<int> step{0};
    std::atomic<int> writer_saw{-1};
    std::thread writer([&] {
        const access_gate::entry w = gate.enter_exclusive();
        writer_saw.store(step.load());
        gate.leave(w);
    });
    // The writer has the mutex and waits for the reader: the gate is closed, the writer not in.
    ASSERT_TRUE(eventually([&] { return gate.closed(); })) << "the writer never closed the gate";
    EXPECT_EQ(writer_saw.load(), -1);
    step.store(1);
    gate.leave(how);
    writer.join();
    EXPECT_EQ(writer_saw.load(), 1) << "the writer got in before the reader left";
    EXPECT_FALSE(gate.closed());
}

TEST(AccessGate, ASecondReaderWaitsItsTurnBehindTheFirst) {
    access_gate gate;
    const access_gate::entry first = gate.enter_read();
    ASSERT_EQ(first, access_gate::entry::fast);
    std::atomic<int> step{0};
    std::atomic<int> second_saw{-1};
    std::atomic<access_gate::entry> second_how{access_gate::entry::fast};
    std::thread second([&] {
        const access_gate::entry how = gate.enter_read();
        second_saw.store(step.load());
        second_how.store(how);
        gate.leave(how);
    });
    // The flag is taken, so the second reader goes the exclusive way and closes the gate.
    ASSERT_TRUE(eventually([&] { return gate.closed(); }))
        << "the second reader never queued behind the first";
    EXPECT_EQ(second_saw.load(), -1);
    step.store(1);
    gate.leave(first);
    second.join();
    EXPECT_EQ(second_saw.load(), 1) << "two readers were inside at once";
    EXPECT_EQ(second_how.load(), access_gate::entry::exclusive);
    EXPECT_FALSE(gate.reader_inside());
}

TEST(AccessGate, AReaderAndControlOperationsAreNeverInsideTogether) {
    access_gate gate;
    // Plain ints: an overlap is a data race (TSan) and a wrong count (any build).
    int inside = 0;
    int entries = 0;
    constexpr int k_rounds = 20000;
    std::atomic<int> overlaps{0};
    auto visit = [&](access_gate::entry how) {
        if (++inside != 1) {
            overlaps.fetch_add(1);
        }
        ++entries;
        --inside;
        gate.leave(how);
    };
    std::thread reader([&] {
        for (int i = 0; i < k_rounds; ++i) {
            visit(gate.enter_read());
        }
    });
    std::thread control([&] {
        for (int i = 0; i < k_rounds / 10; ++i) {
            visit(gate.enter_exclusive());
        }
    });
    reader.join();
    control.join();
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_EQ(entries, k_rounds + k_rounds / 10);
}

using AccessGateOfUnit = unit_test;

TEST_F(AccessGateOfUnit, AGuardNestedOnTheSameUnitAndAQueryUnderAGuardDoNotWaitForThemselves) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), page_size, access::local_write);
    const read_guard outer = unit_.read();
    {
        const read_guard inner = unit_.read();
        EXPECT_EQ(unit_.local_token(mr), unit_.local_token(mr));
        EXPECT_NE(unit_.local_token(mr), 0u);
        EXPECT_EQ(unit_.describe(mr).state, region_state::valid);
    }
    // The inner guard left nothing: a control operation from this thread is still refused.
    EXPECT_EQ(unit_.deregister_region(mr), status::invalid_device_state);
}

TEST_F(AccessGateOfUnit, AControlOperationFromAnotherThreadRunsOnceTheReaderLeaves) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), page_size, access::local_write);
    std::atomic<bool> reader_left{false};
    std::atomic<bool> ran_after_reader{false};
    std::atomic<status> result{status::unsuccessful};
    std::thread consumer;
    {
        const read_guard g = unit_.read();
        consumer = std::thread([&] {
            result.store(unit_.deregister_region(mr));
            ran_after_reader.store(reader_left.load());
        });
        ASSERT_TRUE(eventually([&] { return unit_.control_waiting(); }))
            << "the deregistration never reached the unit's gate";
        // It waits for the data path: the region is still registered.
        EXPECT_EQ(unit_.describe(mr).state, region_state::valid);
        reader_left.store(true);
    }
    consumer.join();
    EXPECT_EQ(result.load(), status::success);
    EXPECT_TRUE(ran_after_reader.load())
        << "the deregistration ran while the data path was inside the unit";
    EXPECT_EQ(unit_.describe(mr).state, region_state::unregistered);
}

}  // namespace
}  // namespace ndksim::mem::test
