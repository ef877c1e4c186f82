// SPDX-License-Identifier: MIT
// The driver life cycle: ndksim_kernel_load_driver builds a DRIVER_OBJECT and calls DriverEntry;
// ndksim_kernel_unload_driver calls DriverUnload, waits (bounded) for the driver's work items and
// the queued DPCs as Windows keeps an unloading driver's image until they have run, and reports
// leaks. Driver objects and their strings are the simulator's memory, not pool, so they never
// show as pool leaks.

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel/clock.hpp"
#include "kernel/critical_region.hpp"
#include "kernel/device.hpp"
#include "kernel/dpc.hpp"
#include "kernel/irp.hpp"
#include "kernel/irql.hpp"
#include "kernel/thread.hpp"
#include "kernel/timer.hpp"
#include "kernel/violation.hpp"
#include "kernel/work_item.hpp"
#include "util/log.hpp"
#include "wsk.h"

namespace ndksim::kernel::driver {
namespace {

// How long a failed DriverEntry's work items may take before its object is kept as leaked.
constexpr std::int64_t k_failed_entry_wait = 20 * 10'000'000LL;  // 20 s in 100 ns units

struct driver_block {
    DRIVER_OBJECT object{};
    DRIVER_EXTENSION extension{};
    std::u16string name;
    std::u16string registry_path;
    std::u16string service;
    UNICODE_STRING registry_path_string{};
};

struct reporter {
    std::string name;
    NDKSIM_LEAK_REPORTER function;
};

struct registry {
    std::mutex mutex;
    std::unordered_map<PDRIVER_OBJECT, std::unique_ptr<driver_block>> loaded;
    // Objects a work item or device object still referred to when their driver went away.
    std::vector<std::unique_ptr<driver_block>> retired;
    std::vector<reporter> reporters;
};

registry& the_registry() {
    static registry* const instance = new registry;
    return *instance;
}

UNICODE_STRING counted(std::u16string& text) {
    UNICODE_STRING s;
    s.Length = static_cast<USHORT>(text.size() * sizeof(WCHAR));
    s.MaximumLength = s.Length;
    s.Buffer = reinterpret_cast<PWSTR>(text.data());
    return s;
}

std::u16string widen(const char* text) {
    std::u16string wide;
    for (const char* p = text; *p != '\0'; ++p) {
        wide += static_cast<char16_t>(static_cast<unsigned char>(*p));
    }
    return wide;
}

std::unique_ptr<driver_block> make_block(PDRIVER_INITIALIZE entry, const char* service) {
    auto block = std::make_unique<driver_block>();
    block->service = widen(service);
    block->name = u"\\Driver\\" + block->service;
    block->registry_path =
        u"\\Registry\\Machine\\System\\CurrentControlSet\\Services\\" + block->service;
    block->registry_path_string = counted(block->registry_path);
    DRIVER_OBJECT& d = block->object;
    d.Type = IO_TYPE_DRIVER;
    d.Size = static_cast<CSHORT>(sizeof(DRIVER_OBJECT));
    d.DriverExtension = &block->extension;
    d.DriverName = counted(block->name);
    d.DriverInit = entry;
    std::fill(std::begin(d.MajorFunction), std::end(d.MajorFunction), &irp::invalid_device_request);
    block->extension.DriverObject = &d;
    block->extension.ServiceKeyName = counted(block->service);
    return block;
}

// Frees the driver's object, or keeps it when a work item or device object still refers to it.
void retire(PDRIVER_OBJECT d) {
    registry& r = the_registry();
    const bool referenced = work_item::pending(d) != 0 || device::live_count(d, false) != 0;
    const std::lock_guard lock(r.mutex);
    const auto it = r.loaded.find(d);
    if (it == r.loaded.end()) {
        return;
    }
    if (referenced) {
        r.retired.push_back(std::move(it->second));
    }
    r.loaded.erase(it);
}

void log_count(SIZE_T count, const char* what) {
    if (count != 0) {
        NDKSIM_ERROR("leak: {} {}", count, what);
    }
}

}  // namespace
}  // namespace ndksim::kernel::driver

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID ndksim_kernel_add_leak_reporter(const char* Name, NDKSIM_LEAK_REPORTER Reporter) {
    driver::registry& r = driver::the_registry();
    const std::lock_guard lock(r.mutex);
    for (driver::reporter& existing : r.reporters) {
        if (existing.function == Reporter) {
            existing.name = Name;
            return;
        }
    }
    r.reporters.push_back(driver::reporter{Name, Reporter});
}

NDKSIM_API VOID ndksim_kernel_remove_leak_reporter(NDKSIM_LEAK_REPORTER Reporter) {
    driver::registry& r = driver::the_registry();
    const std::lock_guard lock(r.mutex);
    std::erase_if(r.reporters,
                  [&](const driver::reporter& existing) { return existing.function == Reporter; });
}

NDKSIM_API SIZE_T ndksim_kernel_leak_report(PDRIVER_OBJECT DriverObject,
                                            PNDKSIM_LEAK_SUMMARY Leaks) {
    NDKSIM_LEAK_SUMMARY s{};
    s.PoolAllocations = ndksim_kernel_pool_report();
    s.WorkItemsPending = work_item::pending(DriverObject);
    driver::log_count(s.WorkItemsPending, "work item(s) still queued or running");
    s.DpcsQueued = dpc::queued_or_running();
    driver::log_count(s.DpcsQueued, "DPC(s) still queued or running");
    s.TimersSet = timer::set_count();
    driver::log_count(s.TimersSet, "timer(s) still set");
    s.SystemThreadsRunning = thread::running_count();
    driver::log_count(s.SystemThreadsRunning, "system thread(s) still running");
    s.DeviceObjects = device::live_count(DriverObject, true);
    s.ResourcesLive = ndksim_kernel_resources_live();
    driver::log_count(s.ResourcesLive, "ERESOURCE(s) not deleted");
    std::vector<driver::reporter> reporters;
    {
        driver::registry& r = driver::the_registry();
        const std::lock_guard lock(r.mutex);
        reporters = r.reporters;
    }
    // Called without the registry's lock: a reporter may do anything but add or remove
    // reporters concurrently with itself.
    for (const driver::reporter& reporter : reporters) {
        const SIZE_T found = reporter.function();
        if (found != 0) {
            NDKSIM_ERROR("leak: {} reported {}", reporter.name, found);
        }
        s.ReporterLeaks += found;
    }
    // WSK registrations and the NDK adapters opened through them (with their live NDK objects)
    // are the kernel runtime's own, so they are always part of the report.
    const SIZE_T wsk = ndksim_kernel_wsk_report();
    if (wsk != 0) {
        NDKSIM_ERROR("leak: WSK reported {}", wsk);
    }
    s.ReporterLeaks += wsk;
    s.Total = s.PoolAllocations + s.WorkItemsPending + s.DpcsQueued + s.TimersSet +
              s.SystemThreadsRunning + s.DeviceObjects + s.ResourcesLive + s.ReporterLeaks;
    if (Leaks != nullptr) {
        *Leaks = s;
    }
    return s.Total;
}

NDKSIM_API NTSTATUS ndksim_kernel_load_driver(PDRIVER_INITIALIZE DriverEntry,
                                              const char* ServiceName,
                                              PDRIVER_OBJECT* DriverObject) {
    // DriverEntry runs at PASSIVE_LEVEL on Windows (in a system thread's context).
    require_irql_at_most("ndksim_kernel_load_driver", PASSIVE_LEVEL,
                         "callers must be at PASSIVE_LEVEL");
    *DriverObject = nullptr;
    std::unique_ptr<driver::driver_block> block = driver::make_block(DriverEntry, ServiceName);
    PDRIVER_OBJECT d = &block->object;
    PUNICODE_STRING registry_path = &block->registry_path_string;
    {
        driver::registry& r = driver::the_registry();
        const std::lock_guard lock(r.mutex);
        r.loaded[d] = std::move(block);
    }
    const NTSTATUS status = DriverEntry(d, registry_path);
    check_returned_at_passive("DriverEntry");
    if (!NT_SUCCESS(status)) {
        // Windows frees the driver object of a failed DriverEntry without calling
        // DriverUnload; whatever the entry left behind is the caller's leak report.
        work_item::wait_idle(d, clock::interrupt_time() + driver::k_failed_entry_wait);
        driver::retire(d);
        return status;
    }
    *DriverObject = d;
    return status;
}

NDKSIM_API NTSTATUS ndksim_kernel_unload_driver(PDRIVER_OBJECT DriverObject,
                                                ULONG TimeoutMilliseconds,
                                                PNDKSIM_LEAK_SUMMARY Leaks) {
    require_irql_at_most("ndksim_kernel_unload_driver", PASSIVE_LEVEL,
                         "callers must be at PASSIVE_LEVEL");
    {
        driver::registry& r = driver::the_registry();
        const std::lock_guard lock(r.mutex);
        if (!r.loaded.contains(DriverObject)) {
            report_violation("ndksim_kernel_unload_driver",
                             "the driver object is not loaded (unloaded twice?)", current_irql());
            return STATUS_INVALID_PARAMETER;
        }
    }
    if (DriverObject->DriverUnload == nullptr) {
        return STATUS_INVALID_DEVICE_REQUEST;
    }
    DriverObject->DriverUnload(DriverObject);
    check_returned_at_passive("DriverUnload");
    const std::int64_t deadline =
        clock::interrupt_time() + static_cast<std::int64_t>(TimeoutMilliseconds) * 10'000;
    work_item::wait_idle(DriverObject, deadline);
    dpc::wait_idle(deadline);
    ndksim_kernel_leak_report(DriverObject, Leaks);
    driver::retire(DriverObject);
    return STATUS_SUCCESS;
}

NDKSIM_API SIZE_T ndksim_kernel_work_items_pending(PDRIVER_OBJECT DriverObject) {
    return work_item::pending(DriverObject);
}

NDKSIM_API SIZE_T ndksim_kernel_devices_live(PDRIVER_OBJECT DriverObject) {
    return device::live_count(DriverObject, false);
}

NDKSIM_API SIZE_T ndksim_kernel_dpcs_queued(void) {
    return dpc::queued_or_running();
}

NDKSIM_API SIZE_T ndksim_kernel_timers_set(void) {
    return timer::set_count();
}

NDKSIM_API SIZE_T ndksim_kernel_system_threads_running(void) {
    return thread::running_count();
}

}  // extern "C"
