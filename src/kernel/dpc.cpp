// SPDX-License-Identifier: MIT
// DPC objects and the simulated DPC queue (dpc.hpp). The queue and the "running" state live
// outside the consumer's KDPC; DpcData marks a queued DPC, as on Windows, and is read and
// written only under the queue's mutex.

#include "kernel/dpc.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "kernel/clock.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::dpc {
namespace {

// Windows' object type number of a DPC (KOBJECTS DpcObject), stored in KDPC.Type.
constexpr UCHAR k_dpc_object = 0x13;

// One queue entry: a DPC, or (dpc == nullptr) a KeFlushQueuedDpcs marker.
struct entry {
    KDPC* dpc;
    std::uint64_t marker;
};

class dpc_queue {
  public:
    dpc_queue() {
        std::thread([this] { run(); }).detach();
    }

    std::mutex mutex;
    std::condition_variable work;      // an entry was queued
    std::condition_variable progress;  // a DPC finished or a marker was passed
    std::deque<entry> entries;
    std::size_t dpcs_queued = 0;  // entries that are DPCs
    bool running = false;
    std::uint64_t next_marker = 1;
    std::uint64_t passed_marker = 0;

  private:
    [[noreturn]] void run() {
        // DPC routines run at DISPATCH_LEVEL; the thread never leaves it.
        set_irql(DISPATCH_LEVEL);
        std::unique_lock lock(mutex);
        for (;;) {
            work.wait(lock, [this] { return !entries.empty(); });
            const entry next = entries.front();
            entries.pop_front();
            if (next.dpc == nullptr) {
                passed_marker = next.marker;
                progress.notify_all();
                continue;
            }
            --dpcs_queued;
            KDPC& dpc = *next.dpc;
            // Dequeued before its routine runs, so the routine may queue it again (or free it:
            // nothing below touches the KDPC after the call).
            dpc.DpcData = nullptr;
            const PKDEFERRED_ROUTINE routine = dpc.DeferredRoutine;
            PVOID const context = dpc.DeferredContext;
            PVOID const argument1 = dpc.SystemArgument1;
            PVOID const argument2 = dpc.SystemArgument2;
            running = true;
            lock.unlock();
            routine(&dpc, context, argument1, argument2);
            if (current_irql() != DISPATCH_LEVEL) {
                report_violation("DPC routine",
                                 "the routine returned at an IRQL other than "
                                 "DISPATCH_LEVEL",
                                 current_irql());
                set_irql(DISPATCH_LEVEL);
            }
            lock.lock();
            running = false;
            progress.notify_all();
        }
    }
};

// Never destroyed: its thread may be inside a DPC routine while the process exits.
dpc_queue& the_queue() {
    static dpc_queue* const instance = new dpc_queue;
    return *instance;
}

}  // namespace

bool insert(KDPC& dpc, PVOID argument1, PVOID argument2) {
    dpc_queue& q = the_queue();
    {
        const std::lock_guard lock(q.mutex);
        if (dpc.DpcData != nullptr) {
            return false;
        }
        dpc.SystemArgument1 = argument1;
        dpc.SystemArgument2 = argument2;
        dpc.DpcData = &q;
        // KeInsertQueueDpc: a HighImportance DPC is placed at the head of the queue, the others
        // at its tail.
        if (dpc.Importance == HighImportance) {
            q.entries.push_front(entry{&dpc, 0});
        } else {
            q.entries.push_back(entry{&dpc, 0});
        }
        ++q.dpcs_queued;
    }
    q.work.notify_one();
    return true;
}

std::size_t forget_in(const unsigned char* begin, const unsigned char* end) {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    const std::size_t before = q.entries.size();
    std::erase_if(q.entries, [&](const entry& e) {
        const auto* at = reinterpret_cast<const unsigned char*>(e.dpc);
        return e.dpc != nullptr && at >= begin && at < end;
    });
    const std::size_t removed = before - q.entries.size();
    q.dpcs_queued -= removed;
    return removed;
}

std::size_t queued_or_running() {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    return q.dpcs_queued + (q.running ? 1 : 0);
}

bool wait_idle(std::int64_t deadline) {
    dpc_queue& q = the_queue();
    std::unique_lock lock(q.mutex);
    while (q.dpcs_queued != 0 || q.running) {
        if (clock::interrupt_time() >= deadline) {
            return false;
        }
        clock::wait_until(q.progress, lock, deadline);
    }
    return true;
}

namespace {

bool cancel(KDPC& dpc) {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    if (dpc.DpcData == nullptr) {
        return false;
    }
    for (auto it = q.entries.begin(); it != q.entries.end(); ++it) {
        if (it->dpc == &dpc) {
            q.entries.erase(it);
            --q.dpcs_queued;
            break;
        }
    }
    dpc.DpcData = nullptr;
    return true;
}

void flush() {
    dpc_queue& q = the_queue();
    std::unique_lock lock(q.mutex);
    const std::uint64_t marker = q.next_marker++;
    q.entries.push_back(entry{nullptr, marker});
    q.work.notify_one();
    q.progress.wait(lock, [&] { return q.passed_marker >= marker; });
}

void initialize(KDPC& dpc, PKDEFERRED_ROUTINE routine, PVOID context) {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    // KeInitializeDpc must not be called on a queued DPC: the queue still links it.
    if (dpc.DpcData == &q) {
        report_violation("KeInitializeDpc", "the DPC is queued", current_irql());
        return;
    }
    dpc.Type = k_dpc_object;
    dpc.Importance = MediumImportance;
    dpc.Number = 0;
    dpc.DpcListEntry.Next = nullptr;
    dpc.ProcessorHistory = 0;
    dpc.DeferredRoutine = routine;
    dpc.DeferredContext = context;
    dpc.SystemArgument1 = nullptr;
    dpc.SystemArgument2 = nullptr;
    dpc.DpcData = nullptr;
}

// Importance and Number are read by insert() under the mutex, so they are written under it.
void set_importance(KDPC& dpc, UCHAR importance) {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    dpc.Importance = importance;
}

void set_number(KDPC& dpc, USHORT number) {
    dpc_queue& q = the_queue();
    const std::lock_guard lock(q.mutex);
    dpc.Number = number;
}

}  // namespace
}  // namespace ndksim::kernel::dpc

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID KeInitializeDpc(PRKDPC Dpc, PKDEFERRED_ROUTINE DeferredRoutine,
                                PVOID DeferredContext) {
    dpc::initialize(*Dpc, DeferredRoutine, DeferredContext);
}

NDKSIM_API BOOLEAN KeInsertQueueDpc(PRKDPC Dpc, PVOID SystemArgument1, PVOID SystemArgument2) {
    return dpc::insert(*Dpc, SystemArgument1, SystemArgument2) ? TRUE : FALSE;
}

NDKSIM_API BOOLEAN KeRemoveQueueDpc(PRKDPC Dpc) {
    return dpc::cancel(*Dpc) ? TRUE : FALSE;
}

NDKSIM_API VOID KeFlushQueuedDpcs(void) {
    // KeFlushQueuedDpcs: IRQL PASSIVE_LEVEL.
    if (current_irql() != PASSIVE_LEVEL) {
        report_violation("KeFlushQueuedDpcs", "callers must be at PASSIVE_LEVEL", current_irql());
        // A caller at DISPATCH_LEVEL may be the DPC thread itself, whose flush could never
        // finish; it returns at once.
        if (current_irql() >= DISPATCH_LEVEL) {
            return;
        }
    }
    dpc::flush();
}

NDKSIM_API VOID KeSetImportanceDpc(PRKDPC Dpc, KDPC_IMPORTANCE Importance) {
    dpc::set_importance(*Dpc, static_cast<UCHAR>(Importance));
}

NDKSIM_API VOID KeSetTargetProcessorDpc(PRKDPC Dpc, CCHAR Number) {
    dpc::set_number(*Dpc, static_cast<USHORT>(static_cast<UCHAR>(Number)));
}

}  // extern "C"
