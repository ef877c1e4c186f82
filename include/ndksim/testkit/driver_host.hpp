// SPDX-License-Identifier: MIT
#pragma once
// A GoogleTest-friendly host for one kernel-mode driver: loads it through its DriverEntry,
// unloads it through its DriverUnload, and returns what the simulator's leak report found
// (pool allocations, work items, DPCs, timers, system threads, device objects, ERESOURCEs and
// the registered reporters' objects). Header-only over the C API of ndksim_kernel_io.h.
//
// Usage:
//   TEST(MyDriver, LoadsAndUnloadsCleanly) {
//       ndksim::testkit::driver_host host(&DriverEntry, "mydriver");
//       ASSERT_EQ(host.load(), STATUS_SUCCESS);
//       ... drive the driver through host.driver_object() ...
//       const ndksim::testkit::leak_summary leaks = host.unload();
//       EXPECT_TRUE(leaks.clean()) << leaks;
//   }
//
// The report's pool, DPC, timer, thread and resource counts are process-wide: run one driver at
// a time per test process, or make earlier tests leave nothing behind.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>

#include <wdm.h>

namespace ndksim::testkit {

/// The leak report of one unload, in C++ form.
struct leak_summary {
    std::size_t pool_allocations = 0;
    std::size_t work_items_pending = 0;
    std::size_t dpcs_queued = 0;
    std::size_t timers_set = 0;
    std::size_t system_threads_running = 0;
    std::size_t device_objects = 0;
    std::size_t resources_live = 0;
    std::size_t reporter_leaks = 0;

    /// Every leak counted above, together.
    std::size_t total() const noexcept {
        return pool_allocations + work_items_pending + dpcs_queued + timers_set +
               system_threads_running + device_objects + resources_live + reporter_leaks;
    }
    /// True when nothing leaked.
    bool clean() const noexcept { return total() == 0; }

    /// The C report's counts.
    static leak_summary from(const NDKSIM_LEAK_SUMMARY& s) noexcept {
        leak_summary l;
        l.pool_allocations = s.PoolAllocations;
        l.work_items_pending = s.WorkItemsPending;
        l.dpcs_queued = s.DpcsQueued;
        l.timers_set = s.TimersSet;
        l.system_threads_running = s.SystemThreadsRunning;
        l.device_objects = s.DeviceObjects;
        l.resources_live = s.ResourcesLive;
        l.reporter_leaks = s.ReporterLeaks;
        return l;
    }

    friend bool operator==(const leak_summary&, const leak_summary&) = default;

    /// "pool 2, timers 1" (only the nonzero counts), or "no leaks".
    friend std::ostream& operator<<(std::ostream& out, const leak_summary& l) {
        const std::pair<const char*, std::size_t> counts[] = {
            {"pool", l.pool_allocations},
            {"work items", l.work_items_pending},
            {"DPCs", l.dpcs_queued},
            {"timers", l.timers_set},
            {"system threads", l.system_threads_running},
            {"device objects", l.device_objects},
            {"ERESOURCEs", l.resources_live},
            {"reporters", l.reporter_leaks}};
        const char* separator = "";
        for (const auto& [name, count] : counts) {
            if (count != 0) {
                out << separator << name << ' ' << count;
                separator = ", ";
            }
        }
        if (l.clean()) {
            out << "no leaks";
        }
        return out;
    }
};

/// Loads one driver and unloads it (at the latest in the destructor).
class driver_host {
  public:
    /// How long unload() waits for the driver's work items and the queued DPCs by default.
    static constexpr std::chrono::milliseconds k_default_unload_wait{20'000};

    /// A host for the driver whose DriverEntry is `driver_entry`, loaded under the service
    /// (registry) name `service_name`; nothing runs until load().
    driver_host(PDRIVER_INITIALIZE driver_entry, std::string service_name)
        : entry_(driver_entry), service_(std::move(service_name)) {}

    driver_host(const driver_host&) = delete;
    driver_host& operator=(const driver_host&) = delete;

    /// Unloads the driver if the test did not.
    ~driver_host() {
        if (driver_ != nullptr) {
            unload();
        }
    }

    /// Calls DriverEntry; returns its status. A failed entry leaves nothing to unload: its
    /// leaks are then in leak_report().
    NTSTATUS load() { return ndksim_kernel_load_driver(entry_, service_.c_str(), &driver_); }

    /// Calls DriverUnload, waits up to `wait` for the driver's work items and queued DPCs, and
    /// returns the leak report. A driver without DriverUnload stays loaded; unload_status()
    /// then says STATUS_INVALID_DEVICE_REQUEST and the report is taken anyway.
    leak_summary unload(std::chrono::milliseconds wait = k_default_unload_wait) {
        NDKSIM_LEAK_SUMMARY s{};
        unload_status_ = ndksim_kernel_unload_driver(driver_, static_cast<ULONG>(wait.count()), &s);
        if (unload_status_ == STATUS_SUCCESS) {
            driver_ = nullptr;
            return leak_summary::from(s);
        }
        return leak_report();
    }

    /// The leak report now, without unloading.
    leak_summary leak_report() const {
        NDKSIM_LEAK_SUMMARY s{};
        ndksim_kernel_leak_report(driver_, &s);
        return leak_summary::from(s);
    }

    /// The loaded driver's object; null before load() succeeds and after unload().
    PDRIVER_OBJECT driver_object() const noexcept { return driver_; }

    /// The status of the last unload() (STATUS_SUCCESS once unloaded).
    NTSTATUS unload_status() const noexcept { return unload_status_; }

  private:
    PDRIVER_INITIALIZE entry_;
    std::string service_;
    PDRIVER_OBJECT driver_ = nullptr;
    NTSTATUS unload_status_ = STATUS_SUCCESS;
};

}  // namespace ndksim::testkit
