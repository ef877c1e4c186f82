// SPDX-License-Identifier: MIT
// The memory unit's access gate (util/access_gate.hpp) as the unit uses it: nested guards and
// queries under a guard, and a control operation from another thread waiting for the data
// path. Run under TSan as well (NDKSIM_SANITIZE=thread).

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <deque>
#include <thread>

#include "mem_test_support.hpp"
#include "unit/eventually.hpp"

namespace ndksim::mem::test {
namespace {

using ndksim::test::eventually;

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
        EXPECT_TRUE(eventually([&] { return unit_.control_waiting(); }))
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

TEST_F(AccessGateOfUnit, AQueryFromAnotherThreadDoesNotWaitForTheDataPath) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), page_size, access::local_write);
    const std::uint32_t token = unit_.local_token(mr);
    std::atomic<bool> answered{false};
    std::atomic<std::uint32_t> seen{0};
    std::thread consumer;
    {
        const read_guard g = unit_.read();
        consumer = std::thread([&] {
            seen.store(unit_.local_token(mr));
            answered.store(unit_.describe(mr).state == region_state::valid);
        });
        // Answered while the data path is still inside: queries leave the gate alone.
        EXPECT_TRUE(eventually([&] { return answered.load(); }))
            << "a query waited for the data path to leave the unit";
        EXPECT_FALSE(unit_.control_waiting());
    }
    consumer.join();
    EXPECT_EQ(seen.load(), token);
}

// One thread inside the gates of more units than it can record would not know, at the next
// one, that it is inside: a nested guard or a query there would wait for itself. It stops
// with a message instead of hanging later.
// Holds a read guard on units[i], then on every later one inside it.
void guard_each_inside_the_last(const std::deque<translation_unit>& units, std::size_t i) {
    if (i == units.size()) {
        return;
    }
    const read_guard g = units[i].read();
    guard_each_inside_the_last(units, i + 1);
}

TEST_F(AccessGateOfUnit, GuardsOnMoreUnitsThanOneThreadRecordsStopTheProcessWithAMessage) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    std::deque<translation_unit> units;
    for (int i = 0; i < 8; ++i) {
        units.emplace_back(host_, default_config());
    }
    guard_each_inside_the_last(units, 0);  // eight are fine
    units.emplace_back(host_, default_config());
    EXPECT_DEATH(guard_each_inside_the_last(units, 0),
                 "read guards on more than 8 units held by one thread");
}

}  // namespace
}  // namespace ndksim::mem::test
