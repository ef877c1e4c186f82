// SPDX-License-Identifier: MIT
// KdPrint and KdPrintEx in a debug build (DBG=1 before the WDK headers, as the WDK's Debug
// configuration defines it): they print through DbgPrint/DbgPrintEx.

#define DBG 1

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

TEST(KdPrintDbg, PrintsThroughDbgPrint) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    sink->set_pattern("%l|%v");
    log::get().sinks().push_back(sink);
    log::set_level(spdlog::level::trace);
    KdPrint(("kd %d\n", 1));
    KdPrintEx((DPFLTR_IHVNETWORK_ID, DPFLTR_WARNING_LEVEL, "kdex %s\n", "two"));
    auto& sinks = log::get().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
    log::reload_from_environment();
    EXPECT_EQ(out.str(), "info|[driver] kd 1\nwarning|[driver IHVNETWORK] kdex two\n");
}

}  // namespace
}  // namespace ndksim::kernel::test
