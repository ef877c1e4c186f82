// SPDX-License-Identifier: MIT
// KEVENT routines. The state lives in the consumer's KEVENT (Header.SignalState) and is read and
// written only under the dispatcher mutex (dispatcher.hpp).

#include "kernel/dispatcher.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

void require_event(const char* function, const KEVENT& event) {
    if (!is_initialized(event.Header)) {
        report_violation(function, "the event was not initialized with KeInitializeEvent",
                         current_irql());
    }
}

// KeResetEvent and KeClearEvent: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
LONG reset_event(const char* function, KEVENT& event) {
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    require_event(function, event);
    dispatcher& d = the_dispatcher();
    const std::lock_guard lock(d.mutex);
    const LONG previous = event.Header.SignalState;
    event.Header.SignalState = 0;
    return previous;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID KeInitializeEvent(PRKEVENT Event, EVENT_TYPE Type, BOOLEAN State) {
    dispatcher& d = the_dispatcher();
    const std::lock_guard lock(d.mutex);
    initialize_header(Event->Header, static_cast<UCHAR>(Type),
                      static_cast<UCHAR>(sizeof(KEVENT) / sizeof(LONG)), State ? 1 : 0);
}

NDKSIM_API LONG KeSetEvent(PRKEVENT Event, LONG Increment, BOOLEAN Wait) {
    UNREFERENCED_PARAMETER(Increment);
    UNREFERENCED_PARAMETER(Wait);
    // KeSetEvent: "Callers of KeSetEvent must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeSetEvent", DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    require_event("KeSetEvent", *Event);
    dispatcher& d = the_dispatcher();
    LONG previous = 0;
    {
        const std::lock_guard lock(d.mutex);
        previous = Event->Header.SignalState;
        Event->Header.SignalState = 1;
    }
    // Every waiter re-checks its own objects; a synchronization event is consumed by the first
    // waiter that takes the mutex, so exactly one is released.
    d.signaled.notify_all();
    return previous;
}

NDKSIM_API LONG KeResetEvent(PRKEVENT Event) {
    return reset_event("KeResetEvent", *Event);
}

NDKSIM_API VOID KeClearEvent(PRKEVENT Event) {
    reset_event("KeClearEvent", *Event);
}

NDKSIM_API LONG KeReadStateEvent(PRKEVENT Event) {
    require_event("KeReadStateEvent", *Event);
    dispatcher& d = the_dispatcher();
    const std::lock_guard lock(d.mutex);
    return Event->Header.SignalState;
}

}  // extern "C"
