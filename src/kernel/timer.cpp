// SPDX-License-Identifier: MIT
// KTIMER routines and the timer thread. The set timers are kept in a table ordered by due time,
// outside the consumer's KTIMER; one thread sleeps on the kernel clock until the first is due,
// signals it (a dispatcher object, so waiters wake), queues its DPC and re-arms a periodic one.
// Lock order: the timer table's mutex, then the dispatcher's or the DPC queue's.

#include "kernel/timer.hpp"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "kernel/clock.hpp"
#include "kernel/dispatcher.hpp"
#include "kernel/dpc.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::timer {
namespace {

constexpr std::int64_t k_ticks_per_ms = 10'000;

class timer_table {
  public:
    timer_table() {
        std::thread([this] { run(); }).detach();
    }

    std::mutex mutex;
    std::condition_variable changed;

    std::size_t size() const { return index_.size(); }

    // With the mutex held.
    std::size_t disarm_in(const unsigned char* begin, const unsigned char* end) {
        std::size_t removed = 0;
        for (auto it = index_.begin(); it != index_.end();) {
            const auto* at = reinterpret_cast<const unsigned char*>(it->first);
            if (at >= begin && at < end) {
                armed_.erase(it->second);
                it = index_.erase(it);
                ++removed;
            } else {
                ++it;
            }
        }
        return removed;
    }

    // Both with the mutex held.
    bool disarm(KTIMER* t) {
        const auto it = index_.find(t);
        if (it == index_.end()) {
            return false;
        }
        armed_.erase(it->second);
        index_.erase(it);
        return true;
    }
    void arm(KTIMER* t, std::int64_t due) {
        t->DueTime.QuadPart = static_cast<ULONGLONG>(due);
        index_[t] = armed_.emplace(due, t);
    }

  private:
    std::multimap<std::int64_t, KTIMER*> armed_;
    std::unordered_map<KTIMER*, std::multimap<std::int64_t, KTIMER*>::iterator> index_;

    [[noreturn]] void run() {
        std::unique_lock lock(mutex);
        for (;;) {
            if (armed_.empty()) {
                changed.wait(lock);
                continue;
            }
            const std::int64_t now = clock::interrupt_time();
            if (armed_.begin()->first > now) {
                clock::wait_until(changed, lock, armed_.begin()->first);
                continue;
            }
            expire_due(now);
        }
    }

    // Fires every timer due by `now`, with the mutex held, so a concurrent KeCancelTimer or
    // KeSetTimer sees each timer either before or after its expiry, never half-way.
    void expire_due(std::int64_t now) {
        LARGE_INTEGER system_time;
        system_time.QuadPart = clock::system_time();
        dispatcher& d = the_dispatcher();
        while (!armed_.empty() && armed_.begin()->first <= now) {
            const auto first = armed_.begin();
            KTIMER* t = first->second;
            const std::int64_t due = first->first;
            armed_.erase(first);
            index_.erase(t);
            // Read before the signal: a waiter released by it may free a one-shot timer.
            PKDPC const dpc = t->Dpc;
            if (t->Period != 0) {
                // The next period counts from the due time, not from when the thread woke;
                // after a long stall it restarts from now instead of firing a burst.
                const std::int64_t period = static_cast<std::int64_t>(t->Period) * k_ticks_per_ms;
                arm(t, due + period > now ? due + period : now + period);
            }
            {
                const std::lock_guard signal_lock(d.mutex);
                t->Header.SignalState = 1;
            }
            if (dpc != nullptr) {
                // Windows passes the expiry's system time to a timer DPC as its two arguments.
                dpc::insert(*dpc,
                            reinterpret_cast<PVOID>(static_cast<ULONG_PTR>(system_time.LowPart)),
                            reinterpret_cast<PVOID>(
                                static_cast<ULONG_PTR>(static_cast<ULONG>(system_time.HighPart))));
            }
        }
        d.signaled.notify_all();
    }
};

timer_table& the_timer_table() {
    static timer_table* const instance = new timer_table;
    return *instance;
}

bool require_timer(const char* function, const KTIMER& timer) {
    if (!is_initialized(timer.Header) || (timer.Header.Type != k_timer_notification &&
                                          timer.Header.Type != k_timer_synchronization)) {
        report_violation(function, "the timer was not initialized with KeInitializeTimer(Ex)",
                         current_irql());
        return false;
    }
    return true;
}

}  // namespace

std::size_t forget_in(const unsigned char* begin, const unsigned char* end) {
    timer_table& table = the_timer_table();
    const std::lock_guard lock(table.mutex);
    return table.disarm_in(begin, end);
}

std::size_t set_count() {
    timer_table& table = the_timer_table();
    const std::lock_guard lock(table.mutex);
    return table.size();
}

}  // namespace ndksim::kernel::timer

using namespace ndksim::kernel;
using ndksim::kernel::timer::the_timer_table;

extern "C" {

NDKSIM_API VOID KeInitializeTimerEx(PKTIMER Timer, TIMER_TYPE Type) {
    // KeInitializeTimerEx: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeInitializeTimerEx", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    timer::timer_table& table = the_timer_table();
    const std::lock_guard lock(table.mutex);
    if (table.disarm(Timer)) {
        report_violation("KeInitializeTimerEx", "the timer is set (cancel it first)",
                         current_irql());
    }
    {
        dispatcher& d = the_dispatcher();
        const std::lock_guard signal_lock(d.mutex);
        initialize_header(
            Timer->Header,
            Type == SynchronizationTimer ? k_timer_synchronization : k_timer_notification,
            static_cast<UCHAR>(sizeof(KTIMER) / sizeof(LONG)), 0);
    }
    Timer->DueTime.QuadPart = 0;
    InitializeListHead(&Timer->TimerListEntry);
    Timer->Dpc = nullptr;
    Timer->Processor = 0;
    Timer->Period = 0;
}

NDKSIM_API VOID KeInitializeTimer(PKTIMER Timer) {
    KeInitializeTimerEx(Timer, NotificationTimer);
}

NDKSIM_API BOOLEAN KeSetTimerEx(PKTIMER Timer, LARGE_INTEGER DueTime, LONG Period, PKDPC Dpc) {
    // KeSetTimerEx: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeSetTimerEx", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    if (!timer::require_timer("KeSetTimerEx", *Timer)) {
        return FALSE;
    }
    if (Period < 0) {
        report_violation("KeSetTimerEx", "the period must not be negative", current_irql());
        return FALSE;
    }
    const std::int64_t due = clock::due_time(DueTime.QuadPart);
    timer::timer_table& table = the_timer_table();
    bool was_set = false;
    {
        const std::lock_guard lock(table.mutex);
        was_set = table.disarm(Timer);
        Timer->Period = static_cast<ULONG>(Period);
        Timer->Dpc = Dpc;
        {
            dispatcher& d = the_dispatcher();
            const std::lock_guard signal_lock(d.mutex);
            Timer->Header.SignalState = 0;
        }
        table.arm(Timer, due);
    }
    table.changed.notify_one();
    return was_set ? TRUE : FALSE;
}

NDKSIM_API BOOLEAN KeSetTimer(PKTIMER Timer, LARGE_INTEGER DueTime, PKDPC Dpc) {
    return KeSetTimerEx(Timer, DueTime, 0, Dpc);
}

NDKSIM_API BOOLEAN KeCancelTimer(PKTIMER Timer) {
    // KeCancelTimer: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeCancelTimer", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    timer::timer_table& table = the_timer_table();
    const std::lock_guard lock(table.mutex);
    return table.disarm(Timer) ? TRUE : FALSE;
}

NDKSIM_API BOOLEAN KeReadStateTimer(PKTIMER Timer) {
    if (!timer::require_timer("KeReadStateTimer", *Timer)) {
        return FALSE;
    }
    dispatcher& d = the_dispatcher();
    const std::lock_guard lock(d.mutex);
    return Timer->Header.SignalState != 0 ? TRUE : FALSE;
}

}  // extern "C"
