// SPDX-License-Identifier: MIT
// Log lines carry the simulated time of the engine that logged them beside the wall time, in a
// capture's seconds-and-nanoseconds form, and a placeholder outside every engine.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>

#include "timing/scheduler.hpp"
#include "util/log.hpp"

namespace ndksim::timing {
namespace {

// Captures the library logger's lines, laid out as its own sinks lay them out.
class LogClock : public testing::Test {
  protected:
    void SetUp() override {
        sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
        log::add_sink(sink_);
        log::set_level(spdlog::level::warn);
    }
    void TearDown() override { log::remove_sink(sink_); }
    std::string captured() {
        log::get().flush();
        return out_.str();
    }

  private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

TEST_F(LogClock, ATaskLineCarriesItsSchedulersTimeAndAnOutsideLineThePlaceholder) {
    scheduler s({run_mode::deterministic, poll_policy::block, "t"});
    s.post_at(microseconds(12) + nanoseconds(345), [] { NDKSIM_WARN("inside the engine"); });
    ASSERT_EQ(s.run_until_idle(), 1U);
    NDKSIM_WARN("outside");
    const std::string text = captured();
    const std::regex inside(R"(\[\d\d:\d\d:\d\d\.\d{6}\] \[sim 0\.000012345\] \[warning\] )"
                            R"(\[t\d+\] inside the engine\n)");
    EXPECT_TRUE(std::regex_search(text, inside)) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\] \[sim -\] \[warning\] \[t\d+\] outside)")))
        << text;
}

TEST_F(LogClock, WholeSecondsAndPicosecondsAreShownAsACaptureStampsThem) {
    scheduler s({run_mode::deterministic, poll_policy::block, "t"});
    // 3 s + 7 ns + 999 ps: the picoseconds are truncated, as in a capture's nanosecond field.
    s.post_at(seconds(3) + nanoseconds(7) + picoseconds(999), [] { NDKSIM_WARN("late"); });
    ASSERT_EQ(s.run_until_idle(), 1U);
    EXPECT_NE(captured().find("[sim 3.000000007] [warning]"), std::string::npos) << captured();
}

TEST_F(LogClock, AnEngineThreadsLineCarriesItsClock) {
    scheduler s({run_mode::threaded, poll_policy::block, "engine"});
    std::atomic<bool> done{false};
    s.post([&] {
        NDKSIM_WARN("from the engine thread");
        done.store(true, std::memory_order_release);
    });
    ASSERT_TRUE(s.wait_until([&] { return done.load(std::memory_order_acquire); },
                             std::chrono::seconds(30)))
        << "the task did not run";
    EXPECT_TRUE(std::regex_search(
        captured(),
        std::regex(R"(\[sim \d+\.\d{9}\] \[warning\] \[t\d+\] from the engine thread)")))
        << captured();
}

}  // namespace
}  // namespace ndksim::timing
