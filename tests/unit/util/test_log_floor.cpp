// SPDX-License-Identifier: MIT
// NDKSIM_LOG asking for a level the build's compile-time floor removed warns once, naming the
// configure option; a level the build keeps does not warn.

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>

#include "util/log.hpp"

namespace ndksim {
namespace {

constexpr auto k_floor = static_cast<spdlog::level::level_enum>(SPDLOG_ACTIVE_LEVEL);

std::string name_of(spdlog::level::level_enum level) {
    const auto v = spdlog::level::to_string_view(level);
    return {v.data(), v.size()};
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

// Sets NDKSIM_LOG for the test and captures the logger's output; restores both afterwards.
class LogFloor : public testing::Test {
  protected:
    void SetUp() override {
        if (const char* v = std::getenv("NDKSIM_LOG")) {
            saved_ = v;
        }
        // A level every build keeps: clears what an earlier test in this process warned about.
        set_env("error");
        sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
        log::add_sink(sink_);
    }
    void TearDown() override {
        if (sink_ == nullptr) {
            return;  // skipped before SetUp
        }
        if (saved_) {
            ::setenv("NDKSIM_LOG", saved_->c_str(), 1);
        } else {
            ::unsetenv("NDKSIM_LOG");
        }
        log::remove_sink(sink_);
    }
    static void set_env(const std::string& level) { ::setenv("NDKSIM_LOG", level.c_str(), 1); }
    std::string captured() {
        log::get().flush();
        return out_.str();
    }

  private:
    std::optional<std::string> saved_;
    std::ostringstream out_;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

// The same, asking for the level just below the build's floor (none below trace).
class LogBelowFloor : public LogFloor {
  protected:
    void SetUp() override {
        if (k_floor == spdlog::level::trace) {
            GTEST_SKIP() << "this build keeps every level";
        }
        LogFloor::SetUp();
        below_ = name_of(static_cast<spdlog::level::level_enum>(k_floor - 1));
    }
    std::string below_;
};

TEST_F(LogBelowFloor, WarnsOnceNamingTheConfigureOption) {
    set_env(below_);
    log::reload_from_environment();
    log::reload_from_environment();
    const std::string text = captured();
    EXPECT_EQ(count(text, "-DNDKSIM_LOG_FLOOR=" + below_), 1U) << text;
    EXPECT_NE(text.find("NDKSIM_LOG=" + below_ + ": this build compiled out every log line below " +
                        name_of(k_floor)),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("[warning]"), std::string::npos) << text;
}

TEST_F(LogBelowFloor, WarnsAgainAfterALevelTheBuildKeeps) {
    set_env(below_);
    log::reload_from_environment();
    set_env("warn");
    log::reload_from_environment();
    set_env(below_);
    log::reload_from_environment();
    EXPECT_EQ(count(captured(), "-DNDKSIM_LOG_FLOOR="), 2U) << captured();
}

TEST_F(LogFloor, TheFloorItselfDoesNotWarn) {
    set_env(k_floor == spdlog::level::warn ? "warn" : name_of(k_floor));
    log::reload_from_environment();
    EXPECT_EQ(count(captured(), "NDKSIM_LOG_FLOOR"), 0U) << captured();
}

}  // namespace
}  // namespace ndksim
