// SPDX-License-Identifier: MIT
// I/O work items and the system worker threads that run them. The item's state lives in the
// item (the structure is the simulator's own: IO_WORKITEM is opaque to drivers) and is read and
// written under the pool's mutex; the queues and the per-driver counts of queued and running
// items live in the pool.

#include "kernel/work_item.hpp"

#include <array>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "kernel/clock.hpp"
#include "kernel/critical_region.hpp"
#include "kernel/device.hpp"
#include "kernel/irp.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

// The work item. Drivers only hold pointers to it, or IoSizeofWorkItem() bytes of storage.
struct _IO_WORKITEM {
    ULONG magic;      // k_formatted while usable
    bool allocated;   // from IoAllocateWorkItem (freed by IoFreeWorkItem)
    bool queued;      // between IoQueueWorkItem(Ex) and the start of its routine
    PVOID io_object;  // the driver or device object it was formatted for
    PDEVICE_OBJECT device;
    PDRIVER_OBJECT driver;
    PIO_WORKITEM_ROUTINE routine;
    PIO_WORKITEM_ROUTINE_EX routine_ex;
    PVOID context;
};

namespace ndksim::kernel::work_item {
namespace {

constexpr ULONG k_formatted = 0x6B576F49;  // "IoWk"
constexpr ULONG k_work_item_tag = irp::pool_tag("IoWk");

// Threads serving the queues. A routine may block (waiting for another work item, say), so
// there are several; Windows has many more.
constexpr int k_worker_threads = 4;

// The queues in the order workers serve them: the most urgent first.
constexpr std::array<WORK_QUEUE_TYPE, 7> k_service_order = {
    RealTimeWorkQueue, HyperCriticalWorkQueue, SuperCriticalWorkQueue, CriticalWorkQueue,
    NormalWorkQueue,   DelayedWorkQueue,       BackgroundWorkQueue};

std::size_t queue_index(WORK_QUEUE_TYPE type) {
    for (std::size_t i = 0; i < k_service_order.size(); ++i) {
        if (k_service_order[i] == type) {
            return i;
        }
    }
    // CustomPriorityWorkQueue (+ a priority) and unknown values: the delayed queue.
    return 5;
}

class worker_pool {
  public:
    worker_pool() {
        for (int i = 0; i < k_worker_threads; ++i) {
            std::thread([this] { run(); }).detach();
        }
    }

    std::mutex mutex;
    std::condition_variable work;
    std::condition_variable finished;
    std::array<std::deque<_IO_WORKITEM*>, k_service_order.size()> queues;
    std::unordered_map<PDRIVER_OBJECT, std::size_t> pending;  // queued + running, by driver

    std::size_t pending_for(PDRIVER_OBJECT driver) const {
        if (driver != nullptr) {
            const auto it = pending.find(driver);
            return it == pending.end() ? 0 : it->second;
        }
        std::size_t total = 0;
        for (const auto& [d, n] : pending) {
            total += n;
        }
        return total;
    }

  private:
    _IO_WORKITEM* next_item() {
        for (auto& queue : queues) {
            if (!queue.empty()) {
                _IO_WORKITEM* item = queue.front();
                queue.pop_front();
                return item;
            }
        }
        return nullptr;
    }

    [[noreturn]] void run() {
        std::unique_lock lock(mutex);
        for (;;) {
            _IO_WORKITEM* item = next_item();
            if (item == nullptr) {
                work.wait(lock);
                continue;
            }
            // Not queued any more: the routine may queue it again or free it, so nothing below
            // reads the item after the call.
            item->queued = false;
            const PIO_WORKITEM_ROUTINE routine = item->routine;
            const PIO_WORKITEM_ROUTINE_EX routine_ex = item->routine_ex;
            PVOID const io_object = item->io_object;
            PVOID const context = item->context;
            const PDEVICE_OBJECT device = item->device;
            const PDRIVER_OBJECT driver = item->driver;
            lock.unlock();
            if (routine_ex != nullptr) {
                routine_ex(io_object, context, item);
            } else {
                routine(device, context);
            }
            check_returned_at_passive("work item routine");
            if (device != nullptr) {
                device::dereference(device);
            }
            lock.lock();
            if (--pending[driver] == 0) {
                pending.erase(driver);
            }
            finished.notify_all();
        }
    }
};

worker_pool& the_pool() {
    static worker_pool* const instance = new worker_pool;
    return *instance;
}

bool require_formatted(const char* function, const _IO_WORKITEM* item) {
    if (item == nullptr || item->magic != k_formatted) {
        report_violation(function, "the work item was not allocated or initialized",
                         current_irql());
        return false;
    }
    return true;
}

void format(_IO_WORKITEM* item, PVOID io_object, bool allocated) {
    item->magic = k_formatted;
    item->allocated = allocated;
    item->queued = false;
    item->io_object = io_object;
    // IoInitializeWorkItem accepts a driver object or a device object; both start with their
    // CSHORT Type.
    if (static_cast<const DRIVER_OBJECT*>(io_object)->Type == IO_TYPE_DRIVER) {
        item->device = nullptr;
        item->driver = static_cast<PDRIVER_OBJECT>(io_object);
    } else {
        item->device = static_cast<PDEVICE_OBJECT>(io_object);
        item->driver = item->device->DriverObject;
    }
    item->routine = nullptr;
    item->routine_ex = nullptr;
    item->context = nullptr;
}

// Returns false (after the report) when the item is queued.
bool unformat(const char* function, _IO_WORKITEM* item) {
    worker_pool& pool = the_pool();
    const std::lock_guard lock(pool.mutex);
    if (item->queued) {
        report_violation(function, "the work item is still queued", current_irql());
        return false;
    }
    item->magic = 0;
    return true;
}

void queue(const char* function, _IO_WORKITEM* item, PIO_WORKITEM_ROUTINE routine,
           PIO_WORKITEM_ROUTINE_EX routine_ex, WORK_QUEUE_TYPE type, PVOID context) {
    // IoQueueWorkItem: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    if (!require_formatted(function, item)) {
        return;
    }
    worker_pool& pool = the_pool();
    {
        const std::lock_guard lock(pool.mutex);
        if (item->queued) {
            report_violation(function, "the work item is already queued", current_irql());
            return;
        }
        item->queued = true;
        item->routine = routine;
        item->routine_ex = routine_ex;
        item->context = context;
        ++pool.pending[item->driver];
        // The queued item holds its device object (Windows takes a reference on it), which
        // keeps the driver loaded until the routine has returned. Taken before a worker can
        // see the item, so its release cannot come first.
        if (item->device != nullptr) {
            device::reference(item->device);
        }
        pool.queues[queue_index(type)].push_back(item);
    }
    pool.work.notify_one();
}

}  // namespace

std::size_t forget_in(const unsigned char* begin, const unsigned char* end) {
    worker_pool& pool = the_pool();
    std::vector<PDEVICE_OBJECT> devices;
    std::size_t removed = 0;
    {
        const std::lock_guard lock(pool.mutex);
        for (auto& queue : pool.queues) {
            std::erase_if(queue, [&](_IO_WORKITEM* item) {
                const auto* at = reinterpret_cast<const unsigned char*>(item);
                if (at < begin || at >= end) {
                    return false;
                }
                ++removed;
                if (--pool.pending[item->driver] == 0) {
                    pool.pending.erase(item->driver);
                }
                if (item->device != nullptr) {
                    devices.push_back(item->device);
                }
                return true;
            });
        }
    }
    for (PDEVICE_OBJECT device : devices) {
        device::dereference(device);
    }
    if (removed != 0) {
        pool.finished.notify_all();
    }
    return removed;
}

std::size_t pending(PDRIVER_OBJECT driver) {
    worker_pool& pool = the_pool();
    const std::lock_guard lock(pool.mutex);
    return pool.pending_for(driver);
}

bool wait_idle(PDRIVER_OBJECT driver, std::int64_t deadline) {
    worker_pool& pool = the_pool();
    std::unique_lock lock(pool.mutex);
    while (pool.pending_for(driver) != 0) {
        if (clock::interrupt_time() >= deadline) {
            return false;
        }
        clock::wait_until(pool.finished, lock, deadline);
    }
    return true;
}

}  // namespace ndksim::kernel::work_item

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API ULONG IoSizeofWorkItem(void) {
    return sizeof(_IO_WORKITEM);
}

NDKSIM_API VOID IoInitializeWorkItem(PVOID IoObject, PIO_WORKITEM IoWorkItem) {
    work_item::format(IoWorkItem, IoObject, false);
}

NDKSIM_API VOID IoUninitializeWorkItem(PIO_WORKITEM IoWorkItem) {
    // IoUninitializeWorkItem: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoUninitializeWorkItem", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    if (work_item::require_formatted("IoUninitializeWorkItem", IoWorkItem)) {
        work_item::unformat("IoUninitializeWorkItem", IoWorkItem);
    }
}

NDKSIM_API PIO_WORKITEM IoAllocateWorkItem(PDEVICE_OBJECT DeviceObject) {
    // IoAllocateWorkItem: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoAllocateWorkItem", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    auto* item = static_cast<PIO_WORKITEM>(
        ExAllocatePoolWithTag(NonPagedPoolNx, sizeof(_IO_WORKITEM), work_item::k_work_item_tag));
    if (item != nullptr) {
        work_item::format(item, DeviceObject, true);
    }
    return item;
}

NDKSIM_API VOID IoFreeWorkItem(PIO_WORKITEM IoWorkItem) {
    // IoFreeWorkItem: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoFreeWorkItem", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    if (!work_item::require_formatted("IoFreeWorkItem", IoWorkItem)) {
        return;
    }
    if (!IoWorkItem->allocated) {
        report_violation("IoFreeWorkItem",
                         "the work item was not allocated by IoAllocateWorkItem (use "
                         "IoUninitializeWorkItem)",
                         current_irql());
        return;
    }
    if (work_item::unformat("IoFreeWorkItem", IoWorkItem)) {
        ExFreePoolWithTag(IoWorkItem, work_item::k_work_item_tag);
    }
}

NDKSIM_API VOID IoQueueWorkItem(PIO_WORKITEM IoWorkItem, PIO_WORKITEM_ROUTINE WorkerRoutine,
                                WORK_QUEUE_TYPE QueueType, PVOID Context) {
    work_item::queue("IoQueueWorkItem", IoWorkItem, WorkerRoutine, nullptr, QueueType, Context);
}

NDKSIM_API VOID IoQueueWorkItemEx(PIO_WORKITEM IoWorkItem, PIO_WORKITEM_ROUTINE_EX WorkerRoutine,
                                  WORK_QUEUE_TYPE QueueType, PVOID Context) {
    work_item::queue("IoQueueWorkItemEx", IoWorkItem, nullptr, WorkerRoutine, QueueType, Context);
}

}  // extern "C"
