// SPDX-License-Identifier: MIT
// The clock behind every timed kernel routine (clock.hpp), and the time queries of wdm.h. The
// host's steady clock drives the interrupt time; the real-time clock gives the system time.

#include "kernel/clock.hpp"

#include <thread>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::clock {
namespace {

using steady = std::chrono::steady_clock;
using ticks = std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>;  // 100 ns

// 100 ns intervals from 1601-01-01 (the Windows epoch) to 1970-01-01 (the Unix epoch).
constexpr std::int64_t k_unix_epoch_in_windows_ticks = 116'444'736'000'000'000;

// The performance counter's rate: 10 MHz, what Windows 10 and later report on most machines.
constexpr std::int64_t k_performance_frequency = 10'000'000;

// Windows' default clock interval: 15.625 ms in 100 ns units.
constexpr ULONG k_time_increment = 156'250;

steady::time_point boot() noexcept {
    static const steady::time_point instance = steady::now();
    return instance;
}

}  // namespace

std::int64_t interrupt_time() noexcept {
    return std::chrono::duration_cast<ticks>(steady::now() - boot()).count();
}

std::int64_t system_time() noexcept {
    const auto since_unix =
        std::chrono::duration_cast<ticks>(std::chrono::system_clock::now().time_since_epoch());
    return since_unix.count() + k_unix_epoch_in_windows_ticks;
}

std::int64_t due_time(std::int64_t windows_time) noexcept {
    const std::int64_t now = interrupt_time();
    if (windows_time <= 0) {
        return now - windows_time;
    }
    const std::int64_t remaining = windows_time - system_time();
    return remaining > 0 ? now + remaining : now;
}

std::optional<std::int64_t> deadline_of(const LARGE_INTEGER* timeout) noexcept {
    if (timeout == nullptr) {
        return std::nullopt;
    }
    return due_time(timeout->QuadPart);
}

steady::time_point host_point(std::int64_t deadline) noexcept {
    return boot() + ticks(deadline);
}

void sleep_until(std::int64_t deadline) {
    std::this_thread::sleep_until(host_point(deadline));
}

}  // namespace ndksim::kernel::clock

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID KeQuerySystemTime(PLARGE_INTEGER CurrentTime) {
    CurrentTime->QuadPart = clock::system_time();
}

NDKSIM_API VOID KeQuerySystemTimePrecise(PLARGE_INTEGER CurrentTime) {
    CurrentTime->QuadPart = clock::system_time();
}

NDKSIM_API ULONGLONG KeQueryInterruptTime(void) {
    return static_cast<ULONGLONG>(clock::interrupt_time());
}

NDKSIM_API LARGE_INTEGER KeQueryPerformanceCounter(PLARGE_INTEGER PerformanceFrequency) {
    if (PerformanceFrequency != nullptr) {
        PerformanceFrequency->QuadPart = clock::k_performance_frequency;
    }
    // The interrupt time is already in 100 ns units, which is one tick at 10 MHz.
    LARGE_INTEGER counter;
    counter.QuadPart = clock::interrupt_time();
    return counter;
}

NDKSIM_API ULONG KeQueryTimeIncrement(void) {
    return clock::k_time_increment;
}

NDKSIM_API ULONG64 ndksim_kernel_tick_count(void) {
    return static_cast<ULONG64>(clock::interrupt_time()) / clock::k_time_increment;
}

NDKSIM_API NTSTATUS KeDelayExecutionThread(KPROCESSOR_MODE WaitMode, BOOLEAN Alertable,
                                           PLARGE_INTEGER Interval) {
    UNREFERENCED_PARAMETER(WaitMode);
    UNREFERENCED_PARAMETER(Alertable);
    // KeDelayExecutionThread: "Callers of KeDelayExecutionThread must be running at IRQL <=
    // APC_LEVEL."
    require_irql_at_most("KeDelayExecutionThread", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    clock::sleep_until(clock::due_time(Interval->QuadPart));
    return STATUS_SUCCESS;
}

NDKSIM_API VOID KeStallExecutionProcessor(ULONG MicroSeconds) {
    // A busy wait, as on Windows: the caller may be at any IRQL and must not be descheduled.
    const std::int64_t end = clock::interrupt_time() + static_cast<std::int64_t>(MicroSeconds) * 10;
    while (clock::interrupt_time() < end) {
    }
}

}  // extern "C"
