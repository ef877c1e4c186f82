// SPDX-License-Identifier: MIT
// KeWaitForSingleObject / KeWaitForMultipleObjects on dispatcher objects: events, timers and
// thread objects, told apart by their DISPATCHER_HEADER Type.

#include <cstdint>
#include <optional>
#include <span>

#include "kernel/clock.hpp"
#include "kernel/dispatcher.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "timing/sync_options.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

void check_wait_irql(const char* function, const LARGE_INTEGER* timeout) {
    const std::uint8_t irql = current_irql();
    // KeWaitForSingleObject: "Callers ... must be running at IRQL <= DISPATCH_LEVEL. However, if
    // Timeout = NULL or *Timeout != 0, the caller must be running at IRQL <= APC_LEVEL."
    if (irql > DISPATCH_LEVEL) {
        report_violation(function, "callers must be at IRQL <= DISPATCH_LEVEL", irql);
    } else if (irql == DISPATCH_LEVEL && (timeout == nullptr || timeout->QuadPart != 0)) {
        report_violation(function, "callers at DISPATCH_LEVEL must use a zero timeout", irql);
    }
}

// The objects of one wait, all checked to be initialized dispatcher objects.
struct wait_set {
    std::span<PVOID const> objects;
    bool wait_all;

    DISPATCHER_HEADER& header(std::size_t i) const {
        return *static_cast<DISPATCHER_HEADER*>(objects[i]);
    }

    static void consume(DISPATCHER_HEADER& h) {
        // A satisfied wait resets a synchronization event or timer: that is what releases one
        // waiter.
        if (resets_on_wait(h.Type)) {
            h.SignalState = 0;
        }
    }

    // Called with the dispatcher mutex held. The index that satisfied the wait, if any.
    std::optional<ULONG> try_satisfy() const {
        if (!wait_all) {
            for (std::size_t i = 0; i < objects.size(); ++i) {
                if (header(i).SignalState != 0) {
                    consume(header(i));
                    return static_cast<ULONG>(i);
                }
            }
            return std::nullopt;
        }
        for (std::size_t i = 0; i < objects.size(); ++i) {
            if (header(i).SignalState == 0) {
                return std::nullopt;
            }
        }
        for (std::size_t i = 0; i < objects.size(); ++i) {
            consume(header(i));
        }
        return 0U;
    }
};

NTSTATUS wait_for(const wait_set& set, const LARGE_INTEGER* timeout) {
    const std::optional<std::int64_t> deadline = clock::deadline_of(timeout);
    dispatcher& d = the_dispatcher();
    std::unique_lock lock(d.mutex);
    for (;;) {
        if (const std::optional<ULONG> index = set.try_satisfy()) {
            return STATUS_WAIT_0 + static_cast<NTSTATUS>(*index);
        }
        if (deadline && clock::interrupt_time() >= *deadline) {
            return STATUS_TIMEOUT;
        }
        // Synchronized time: a thread blocked here has reacted to what the simulation showed
        // it, so simulated time may move on (a callback may be what wakes it).
        timing::note_consumer_blocks();
        ++d.blocked;
        if (deadline) {
            clock::wait_until(d.signaled, lock, *deadline);
        } else {
            d.signaled.wait(lock);
        }
        --d.blocked;
    }
}

bool check_objects(const char* function, std::span<PVOID const> objects) {
    for (PVOID object : objects) {
        const auto* header = static_cast<const DISPATCHER_HEADER*>(object);
        if (header == nullptr || !is_initialized(*header) || !is_waitable(header->Type)) {
            report_violation(function,
                             "the object is not an initialized event, timer or thread object",
                             current_irql());
            return false;
        }
    }
    return true;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS KeWaitForSingleObject(PVOID Object, KWAIT_REASON WaitReason,
                                          KPROCESSOR_MODE WaitMode, BOOLEAN Alertable,
                                          PLARGE_INTEGER Timeout) {
    UNREFERENCED_PARAMETER(WaitReason);
    UNREFERENCED_PARAMETER(WaitMode);
    UNREFERENCED_PARAMETER(Alertable);
    check_wait_irql("KeWaitForSingleObject", Timeout);
    PVOID objects[] = {Object};
    if (!check_objects("KeWaitForSingleObject", objects)) {
        return STATUS_INVALID_PARAMETER;
    }
    return wait_for(wait_set{objects, false}, Timeout);
}

NDKSIM_API NTSTATUS KeWaitForMultipleObjects(ULONG Count, PVOID Object[], WAIT_TYPE WaitType,
                                             KWAIT_REASON WaitReason, KPROCESSOR_MODE WaitMode,
                                             BOOLEAN Alertable, PLARGE_INTEGER Timeout,
                                             PKWAIT_BLOCK WaitBlockArray) {
    UNREFERENCED_PARAMETER(WaitReason);
    UNREFERENCED_PARAMETER(WaitMode);
    UNREFERENCED_PARAMETER(Alertable);
    check_wait_irql("KeWaitForMultipleObjects", Timeout);
    if (Count == 0) {
        report_violation("KeWaitForMultipleObjects", "Count must be at least 1", current_irql());
        return STATUS_INVALID_PARAMETER;
    }
    // KeWaitForMultipleObjects: "If Count <= THREAD_WAIT_OBJECTS, then WaitBlockArray can be
    // NULL"; otherwise the caller must supply Count wait blocks.
    if (Count > THREAD_WAIT_OBJECTS && WaitBlockArray == nullptr) {
        report_violation("KeWaitForMultipleObjects",
                         "WaitBlockArray is required when Count > THREAD_WAIT_OBJECTS",
                         current_irql());
    }
    const std::span<PVOID const> objects(Object, Count);
    if (!check_objects("KeWaitForMultipleObjects", objects)) {
        return STATUS_INVALID_PARAMETER;
    }
    return wait_for(wait_set{objects, WaitType == WaitAll}, Timeout);
}
}  // extern "C"
