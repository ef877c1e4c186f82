// SPDX-License-Identifier: MIT
#pragma once
// The dispatcher database: one process-wide mutex and condition variable guard the SignalState
// of every dispatcher object (events, timers, thread objects). Windows keeps a wait list in each
// object; the simulator keeps the consumer's objects within their Windows sizes, so waiters
// block on the shared condition variable and re-check their objects when any object is
// signaled. Signals are rare next to the data path,
// so the shared lock costs little, and it makes KeWaitForMultipleObjects' WaitAll atomic.

#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "wdm.h"

namespace ndksim::kernel {

struct dispatcher {
    std::mutex mutex;
    std::condition_variable signaled;
    std::size_t blocked = 0;  // threads inside a wait that found nothing signaled
};

/// Windows' dispatcher object type numbers (DISPATCHER_HEADER.Type) of the waitable objects the
/// simulator has. Events use their EVENT_TYPE, which has the same values.
enum object_type : UCHAR {
    k_event_notification = 0,
    k_event_synchronization = 1,
    k_thread_object = 6,
    k_timer_notification = 8,
    k_timer_synchronization = 9,
};

/// Whether KeWaitFor* accept an object of this type.
constexpr bool is_waitable(UCHAR type) noexcept {
    return type == k_event_notification || type == k_event_synchronization ||
           type == k_thread_object || type == k_timer_notification ||
           type == k_timer_synchronization;
}

/// Whether a satisfied wait resets the object (synchronization events and timers).
constexpr bool resets_on_wait(UCHAR type) noexcept {
    return type == k_event_synchronization || type == k_timer_synchronization;
}

/// The process's dispatcher state.
dispatcher& the_dispatcher() noexcept;

/// How many threads are blocked in KeWaitFor*Object(s) right now (tests wait for this to know
/// their waiters are parked before they signal).
std::size_t blocked_waiters();

/// Whether KeInitializeEvent formatted this header (its wait list head points at itself).
bool is_initialized(const DISPATCHER_HEADER& header) noexcept;

/// Formats the header as initialized with the given type and state.
void initialize_header(DISPATCHER_HEADER& header, UCHAR type, UCHAR size, LONG state) noexcept;

/// Sets the object signaled under the dispatcher mutex and wakes the waiters to re-check.
void signal(DISPATCHER_HEADER& header);

}  // namespace ndksim::kernel
