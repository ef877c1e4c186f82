// KeWaitForSingleObject / KeWaitForMultipleObjects on events, and the system clock their
// absolute timeouts are measured on.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>

#include "kernel/dispatcher.hpp"
#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

using steady = std::chrono::steady_clock;
using ticks = std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>;  // 100 ns

// 100 ns intervals from 1601-01-01 (the Windows epoch) to 1970-01-01 (the Unix epoch).
constexpr std::int64_t k_unix_epoch_in_windows_ticks = 116'444'736'000'000'000;

std::int64_t system_time_now() {
    const auto since_unix =
        std::chrono::duration_cast<ticks>(std::chrono::system_clock::now().time_since_epoch());
    return since_unix.count() + k_unix_epoch_in_windows_ticks;
}

// Timeout semantics of KeWaitForSingleObject: NULL is infinite, negative is relative, positive is
// an absolute system time. An absolute time is converted once to the steady clock, so a change
// of the system clock during the wait does not move its end (Windows would follow the change).
std::optional<steady::time_point> deadline_of(const LARGE_INTEGER* timeout) {
    if (timeout == nullptr) {
        return std::nullopt;
    }
    const steady::time_point now = steady::now();
    if (timeout->QuadPart <= 0) {
        return now + ticks(-timeout->QuadPart);
    }
    const std::int64_t remaining = timeout->QuadPart - system_time_now();
    return remaining > 0 ? now + ticks(remaining) : now;
}

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

// The events of one wait, all checked to be initialized.
struct wait_set {
    std::span<PVOID const> objects;
    bool wait_all;

    KEVENT& event(std::size_t i) const { return *static_cast<KEVENT*>(objects[i]); }

    static void consume(KEVENT& e) {
        // A satisfied wait resets a synchronization event: that is what releases one waiter.
        if (e.Header.Type == SynchronizationEvent) {
            e.Header.SignalState = 0;
        }
    }

    // Called with the dispatcher mutex held. The index that satisfied the wait, if any.
    std::optional<ULONG> try_satisfy() const {
        if (!wait_all) {
            for (std::size_t i = 0; i < objects.size(); ++i) {
                if (event(i).Header.SignalState != 0) {
                    consume(event(i));
                    return static_cast<ULONG>(i);
                }
            }
            return std::nullopt;
        }
        for (std::size_t i = 0; i < objects.size(); ++i) {
            if (event(i).Header.SignalState == 0) {
                return std::nullopt;
            }
        }
        for (std::size_t i = 0; i < objects.size(); ++i) {
            consume(event(i));
        }
        return 0U;
    }
};

NTSTATUS wait_for(const wait_set& set, const LARGE_INTEGER* timeout) {
    const std::optional<steady::time_point> deadline = deadline_of(timeout);
    dispatcher& d = the_dispatcher();
    std::unique_lock lock(d.mutex);
    for (;;) {
        if (const std::optional<ULONG> index = set.try_satisfy()) {
            return STATUS_WAIT_0 + static_cast<NTSTATUS>(*index);
        }
        if (deadline && steady::now() >= *deadline) {
            return STATUS_TIMEOUT;
        }
        ++d.blocked;
        if (deadline) {
            d.signaled.wait_until(lock, *deadline);
        } else {
            d.signaled.wait(lock);
        }
        --d.blocked;
    }
}

bool check_objects(const char* function, std::span<PVOID const> objects) {
    for (PVOID object : objects) {
        const auto* header = static_cast<const DISPATCHER_HEADER*>(object);
        if (header == nullptr || !is_initialized(*header) ||
            (header->Type != NotificationEvent && header->Type != SynchronizationEvent)) {
            report_violation(function,
                             "the object is not an event initialized by KeInitializeEvent",
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

NDKSIM_API VOID KeQuerySystemTime(PLARGE_INTEGER CurrentTime) {
    CurrentTime->QuadPart = system_time_now();
}

}  // extern "C"
