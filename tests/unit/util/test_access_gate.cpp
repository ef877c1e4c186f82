// SPDX-License-Identifier: MIT
// The access gate (util/access_gate.hpp): the reader's flag, the mutex's way in, and their
// exclusion. Run under TSan as well (NDKSIM_SANITIZE=thread), which checks that every holder
// is ordered after the one before.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "unit/eventually.hpp"
#include "util/access_gate.hpp"

namespace ndksim::util::test {
namespace {

using ndksim::test::eventually;

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
    EXPECT_TRUE(eventually([&] { return gate.closed(); })) << "the writer never closed the gate";
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
    EXPECT_TRUE(eventually([&] { return gate.closed(); }))
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

}  // namespace
}  // namespace ndksim::util::test
