// SPDX-License-Identifier: MIT
// DbgPrint and friends log to the library's logger with a driver prefix and a level from the
// importance level; Unicode format codes need PASSIVE_LEVEL. PAGED_CODE reports above APC_LEVEL.
// KdPrint is off without DBG (this translation unit); test_kdprint_dbg.cpp covers DBG=1.

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>

#include "kernel_test.hpp"
#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

// Captures the library logger's output as "level|message" lines for the test's duration.
class DebugPrint : public KernelTest {
  protected:
    void SetUp() override {
        KernelTest::SetUp();
        sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
        sink_->set_pattern("%l|%v");
        log::get().sinks().push_back(sink_);
        log::set_level(spdlog::level::trace);
    }
    void TearDown() override {
        auto& sinks = log::get().sinks();
        sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
        log::reload_from_environment();
        KernelTest::TearDown();
    }
    std::string captured() { return out_.str(); }

  private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

TEST_F(DebugPrint, DbgPrintLogsAtInfoWithTheDriverPrefix) {
    const UNICODE_STRING name = RTL_CONSTANT_STRING(u"nic0");
    EXPECT_EQ(DbgPrint("adapter %wZ up, %lu queues\n", &name, ULONG{4}),
              static_cast<ULONG>(STATUS_SUCCESS));
    EXPECT_EQ(captured(), "info|[driver] adapter nic0 up, 4 queues\n");
}

TEST_F(DebugPrint, DbgPrintExMapsLevelsAndNamesTheComponent) {
    DbgPrintEx(DPFLTR_IHVNETWORK_ID, DPFLTR_ERROR_LEVEL, "e=%d\n", 1);
    DbgPrintEx(DPFLTR_IHVNETWORK_ID, DPFLTR_WARNING_LEVEL, "w\n");
    DbgPrintEx(DPFLTR_IHVDRIVER_ID, DPFLTR_TRACE_LEVEL, "t\n");
    DbgPrintEx(DPFLTR_DEFAULT_ID, DPFLTR_INFO_LEVEL, "i\n");
    DbgPrintEx(DPFLTR_IHVDRIVER_ID, 7, "seven\n");
    DbgPrintEx(DPFLTR_IHVDRIVER_ID, DPFLTR_MASK | 0x2, "mask\n");
    DbgPrintEx(999, DPFLTR_ERROR_LEVEL, "odd\n");
    EXPECT_EQ(captured(),
              "error|[driver IHVNETWORK] e=1\n"
              "warning|[driver IHVNETWORK] w\n"
              "debug|[driver IHVDRIVER] t\n"
              "info|[driver] i\n"
              "trace|[driver IHVDRIVER] seven\n"
              "warning|[driver IHVDRIVER] mask\n"
              "error|[driver component 999] odd\n");
}

TEST_F(DebugPrint, EachLineOfAMessageIsOneLogLine) {
    DbgPrint("one\ntwo\n\nfour");
    EXPECT_EQ(captured(),
              "info|[driver] one\ninfo|[driver] two\ninfo|[driver] \ninfo|[driver] four\n");
}

ULONG forward(const char* prefix, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const ULONG status =
        vDbgPrintExWithPrefix(prefix, DPFLTR_IHVDRIVER_ID, DPFLTR_INFO_LEVEL, format, args);
    va_end(args);
    return status;
}

TEST_F(DebugPrint, VaListFormsAndPrefix) {
    forward("mydrv: ", "%s=%I64u\n", "bytes", ULONGLONG{10});
    EXPECT_EQ(captured(), "info|[driver IHVDRIVER] mydrv: bytes=10\n");
}

TEST_F(DebugPrint, UnicodeFormatCodesNeedPassiveLevel) {
    const UNICODE_STRING name = RTL_CONSTANT_STRING(u"x");
    EXPECT_EQ(violations_of([&] { DbgPrint("%wZ %ws\n", &name, u"y"); }), 0U);
    KIRQL old;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { DbgPrint("plain %d\n", 1); }), 0U);
    EXPECT_EQ(violations_of([&] { DbgPrint("%wZ\n", &name); }), 1U);
    EXPECT_EQ(violations_of([&] { DbgPrintEx(DPFLTR_IHVDRIVER_ID, 0, "%S\n", u"w"); }), 1U);
    KeLowerIrql(old);
    EXPECT_NE(captured().find("[driver] x y"), std::string::npos);
}

[[maybe_unused]] int evaluated = 0;
[[maybe_unused]] int touch() {
    return ++evaluated;
}

TEST_F(DebugPrint, KdPrintIsANoOpWithoutDbg) {
    KdPrint(("%d\n", touch()));
    KdPrintEx((DPFLTR_IHVDRIVER_ID, DPFLTR_ERROR_LEVEL, "%d\n", touch()));
    EXPECT_EQ(evaluated, 0);
    EXPECT_EQ(captured(), "");
}

void pageable_routine() {
    PAGED_CODE();
}

TEST_F(DebugPrint, PagedCodeReportsAboveApcLevel) {
    EXPECT_EQ(violations_of(pageable_routine), 0U);
    KIRQL old;
    KeRaiseIrql(APC_LEVEL, &old);
    EXPECT_EQ(violations_of(pageable_routine), 0U);
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of(pageable_routine), 1U);
    EXPECT_EQ(violations_of([] { PAGED_CODE_LOCKED(); }), 0U);
    KeLowerIrql(PASSIVE_LEVEL);
}

TEST(PagedCodeDeath, AbortsAtDispatchLevelByDefault) {
    EXPECT_DEATH(
        {
            ::unsetenv("NDKSIM_IRQL_VIOLATIONS");
            KIRQL old;
            KeRaiseIrql(DISPATCH_LEVEL, &old);
            pageable_routine();
        },
        "PAGED_CODE");
}

}  // namespace
}  // namespace ndksim::kernel::test
