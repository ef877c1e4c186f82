// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>

#include <ndksim/testkit/driver_host.hpp>
#include "c_driver.h"
#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using DriverHost = KernelTest;
using testkit::driver_host;
using testkit::leak_summary;

std::u16string text_of(const UNICODE_STRING& s) {
    return std::u16string(reinterpret_cast<const char16_t*>(s.Buffer), s.Length / 2);
}

TEST_F(DriverHost, CDriverRunsAndUnloadsWithoutLeaks) {
    const ULONG64 violations = ndksim_kernel_irql_violations();
    driver_host host(c_driver_entry, "cdriver");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    PDRIVER_OBJECT d = host.driver_object();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->Type, IO_TYPE_DRIVER);
    EXPECT_EQ(d->Size, static_cast<CSHORT>(sizeof(DRIVER_OBJECT)));
    EXPECT_EQ(text_of(d->DriverName), u"\\Driver\\cdriver");
    EXPECT_EQ(d->DriverExtension->DriverObject, d);
    EXPECT_EQ(text_of(d->DriverExtension->ServiceKeyName), u"cdriver");
    EXPECT_EQ(d->DriverInit, &c_driver_entry);
    EXPECT_NE(d->DeviceObject, nullptr);
    EXPECT_TRUE(eventually([] { return c_driver_timer_ticks() >= 3; }));
    EXPECT_TRUE(eventually([] { return c_driver_work_irql() == PASSIVE_LEVEL; }));
    const leak_summary leaks = host.unload();
    EXPECT_TRUE(leaks.clean()) << leaks;
    EXPECT_EQ(host.unload_status(), STATUS_SUCCESS);
    EXPECT_EQ(host.driver_object(), nullptr);
    EXPECT_EQ(c_driver_thread_exit_reached(), 0) << "PsTerminateSystemThread returned";
    EXPECT_EQ(ndksim_kernel_irql_violations(), violations);
}

TEST_F(DriverHost, LeakyUnloadReportsEveryKindOfLeak) {
    c_driver_set_leaky(1);
    driver_host host(c_driver_entry, "cdriver");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    ASSERT_TRUE(eventually([] { return c_driver_work_irql() == PASSIVE_LEVEL; }));
    const leak_summary leaks = host.unload(std::chrono::milliseconds(100));
    c_driver_set_leaky(0);
    EXPECT_EQ(leaks.pool_allocations, 2U) << "the state and the work item";
    EXPECT_EQ(leaks.timers_set, 1U);
    EXPECT_EQ(leaks.system_threads_running, 1U);
    EXPECT_EQ(leaks.device_objects, 1U);
    EXPECT_EQ(leaks.work_items_pending, 0U);
    EXPECT_FALSE(leaks.clean());
    EXPECT_GE(leaks.total(), 5U);
    c_driver_clean_up_leaks();
    EXPECT_TRUE(host.leak_report().clean()) << host.leak_report();
}

std::u16string g_registry_path;
PDRIVER_OBJECT g_entered = nullptr;
std::atomic<int> g_unloads{0};

VOID count_unload(PDRIVER_OBJECT) {
    ++g_unloads;
}

NTSTATUS recording_entry(PDRIVER_OBJECT driver, PUNICODE_STRING registry_path) {
    g_registry_path = text_of(*registry_path);
    g_entered = driver;
    driver->DriverUnload = count_unload;
    return STATUS_SUCCESS;
}

TEST_F(DriverHost, EntryGetsTheServicesRegistryPath) {
    g_unloads = 0;
    driver_host host(recording_entry, "ndk");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    EXPECT_EQ(g_entered, host.driver_object());
    EXPECT_EQ(g_registry_path, u"\\Registry\\Machine\\System\\CurrentControlSet\\Services\\ndk");
    EXPECT_TRUE(host.unload().clean());
    EXPECT_EQ(g_unloads.load(), 1);
}

NTSTATUS failing_entry(PDRIVER_OBJECT driver, PUNICODE_STRING) {
    driver->DriverUnload = count_unload;
    return STATUS_INSUFFICIENT_RESOURCES;
}

TEST_F(DriverHost, FailedEntryIsNotUnloaded) {
    g_unloads = 0;
    driver_host host(failing_entry, "failing");
    EXPECT_EQ(host.load(), STATUS_INSUFFICIENT_RESOURCES);
    EXPECT_EQ(host.driver_object(), nullptr);
    EXPECT_EQ(g_unloads.load(), 0);
    EXPECT_TRUE(host.leak_report().clean());
}

NTSTATUS entry_without_unload(PDRIVER_OBJECT, PUNICODE_STRING) {
    return STATUS_SUCCESS;
}

TEST_F(DriverHost, DriverWithoutUnloadRoutineStaysLoaded) {
    g_unloads = 0;
    PDRIVER_OBJECT d = nullptr;
    ASSERT_EQ(ndksim_kernel_load_driver(entry_without_unload, "sticky", &d), STATUS_SUCCESS);
    EXPECT_EQ(ndksim_kernel_unload_driver(d, 1000, nullptr), STATUS_INVALID_DEVICE_REQUEST);
    d->DriverUnload = count_unload;
    EXPECT_EQ(ndksim_kernel_unload_driver(d, 1000, nullptr), STATUS_SUCCESS);
    EXPECT_EQ(g_unloads.load(), 1);
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = ndksim_kernel_unload_driver(d, 1000, nullptr); }), 1U)
        << "unloaded twice";
    EXPECT_EQ(status, STATUS_INVALID_PARAMETER);
}

NTSTATUS entry_at_dispatch(PDRIVER_OBJECT driver, PUNICODE_STRING) {
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    driver->DriverUnload = count_unload;
    return STATUS_SUCCESS;
}

TEST_F(DriverHost, EntryReturningAbovePassiveLevelIsAViolation) {
    driver_host host(entry_at_dispatch, "raised");
    NTSTATUS status = STATUS_UNSUCCESSFUL;
    EXPECT_EQ(violations_of([&] { status = host.load(); }), 1U);
    EXPECT_EQ(status, STATUS_SUCCESS);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL) << "restored after the report";
}

// A driver whose work item runs until the test opens its gate.
struct Gated {
    KEVENT gate;
    std::atomic<bool> unloading{false};
    Tally ran;
};
Gated* g_gated = nullptr;

VOID gated_work(PDEVICE_OBJECT, PVOID, PIO_WORKITEM item) {
    LARGE_INTEGER timeout;
    timeout.QuadPart = -20 * 10'000'000LL;
    KeWaitForSingleObject(&g_gated->gate, Executive, KernelMode, FALSE, &timeout);
    IoFreeWorkItem(item);
    g_gated->ran.bump();
}

VOID gated_work_ex(PVOID, PVOID context, PIO_WORKITEM item) {
    gated_work(nullptr, context, item);
}

VOID gated_unload(PDRIVER_OBJECT driver) {
    g_gated->unloading = true;
    IoDeleteDevice(driver->DeviceObject);
}

NTSTATUS gated_entry(PDRIVER_OBJECT driver, PUNICODE_STRING) {
    PDEVICE_OBJECT device = nullptr;
    IoCreateDevice(driver, 0, nullptr, FILE_DEVICE_UNKNOWN, 0, FALSE, &device);
    IoQueueWorkItemEx(IoAllocateWorkItem(device), gated_work_ex, DelayedWorkQueue, nullptr);
    driver->DriverUnload = gated_unload;
    return STATUS_SUCCESS;
}

TEST_F(DriverHost, UnloadWaitsForTheDriversWorkItems) {
    Gated gated;
    KeInitializeEvent(&gated.gate, NotificationEvent, FALSE);
    g_gated = &gated;
    driver_host host(gated_entry, "gated");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    PDRIVER_OBJECT d = host.driver_object();
    leak_summary leaks;
    std::thread unloader([&] { leaks = host.unload(); });
    ASSERT_TRUE(eventually([&] { return gated.unloading.load(); }));
    EXPECT_EQ(ndksim_kernel_work_items_pending(d), 1U) << "the item keeps the driver loaded";
    KeSetEvent(&gated.gate, 0, FALSE);
    unloader.join();
    EXPECT_TRUE(leaks.clean()) << leaks;
    EXPECT_EQ(gated.ran.count(), 1);
}

TEST_F(DriverHost, UnloadWaitIsBoundedAndReportsTheItemStillRunning) {
    Gated gated;
    KeInitializeEvent(&gated.gate, NotificationEvent, FALSE);
    g_gated = &gated;
    driver_host host(gated_entry, "gated");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    PDRIVER_OBJECT d = host.driver_object();
    const leak_summary leaks = host.unload(std::chrono::milliseconds(20));
    EXPECT_EQ(leaks.work_items_pending, 1U);
    EXPECT_EQ(leaks.pool_allocations, 1U) << "the work item, freed by its routine later";
    KeSetEvent(&gated.gate, 0, FALSE);
    ASSERT_TRUE(gated.ran.reaches(1));
    EXPECT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(d) == 0; }));
    EXPECT_TRUE(host.leak_report().clean());
}

SIZE_T two_leaks() {
    return 2;
}

TEST_F(DriverHost, RegisteredReportersAreCounted) {
    ndksim_kernel_add_leak_reporter("test objects", two_leaks);
    ndksim_kernel_add_leak_reporter("renamed test objects", two_leaks);
    NDKSIM_LEAK_SUMMARY s{};
    EXPECT_EQ(ndksim_kernel_leak_report(nullptr, &s), 2U) << "added once";
    EXPECT_EQ(s.ReporterLeaks, 2U);
    EXPECT_EQ(s.Total, 2U);
    ndksim_kernel_remove_leak_reporter(two_leaks);
    EXPECT_EQ(ndksim_kernel_leak_report(nullptr, &s), 0U);
}

TEST_F(DriverHost, LiveResourcesAreCounted) {
    ERESOURCE resource;
    ExInitializeResourceLite(&resource);
    NDKSIM_LEAK_SUMMARY s{};
    ndksim_kernel_leak_report(nullptr, &s);
    EXPECT_EQ(s.ResourcesLive, 1U);
    ExDeleteResourceLite(&resource);
    EXPECT_EQ(ndksim_kernel_leak_report(nullptr, &s), 0U);
}

TEST_F(DriverHost, LeakSummaryPrintsTheNonzeroCounts) {
    leak_summary l;
    std::ostringstream clean;
    clean << l;
    EXPECT_EQ(clean.str(), "no leaks");
    l.pool_allocations = 2;
    l.timers_set = 1;
    std::ostringstream out;
    out << l;
    EXPECT_EQ(out.str(), "pool 2, timers 1");
    EXPECT_EQ(l.total(), 3U);
}

}  // namespace
}  // namespace ndksim::kernel::test
