// SPDX-License-Identifier: MIT
// The clock behind every timed kernel routine (clock.hpp), and the time queries of wdm.h. The
// host's steady clock, or a sync domain's simulated clock, drives the interrupt time; the
// real-time clock gives the system time (in synchronized time: as it stood when the domain was
// first seen, plus the interrupt time since).

#include "kernel/clock.hpp"

#include <algorithm>
#include <thread>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "timing/sync_domain.hpp"

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

// Picoseconds of simulated time per 100 ns unit.
constexpr std::int64_t k_ps_per_tick = 100'000;

// How often a timed wait in synchronized time looks at the clock again [wall time].
constexpr auto k_sync_slice = std::chrono::microseconds(200);

std::int64_t host_rtc() noexcept {
    const auto since_unix =
        std::chrono::duration_cast<ticks>(std::chrono::system_clock::now().time_since_epoch());
    return since_unix.count() + k_unix_epoch_in_windows_ticks;
}

// The interrupt time's source now, and what it adds to that source's reading so that the
// interrupt time continues from the last value read. Not on any per-packet path: a mutex.
struct source_state {
    std::mutex mutex;
    const timing::sync_domain* domain = nullptr;  // nullptr: the host's steady clock
    std::int64_t offset = 0;
    std::int64_t rtc_at_switch = 0;    // synchronized: the real-time clock when it began
    std::int64_t ticks_at_switch = 0;  // and the interrupt time then
    std::int64_t last = 0;
};

source_state& source() noexcept {
    static source_state instance;
    return instance;
}

std::int64_t steady_ticks() noexcept {
    return std::chrono::duration_cast<ticks>(steady::now() - boot()).count();
}

// One reading of the current source (under the source's mutex); follows a change of source.
struct reading {
    timing::sync_domain* domain = nullptr;
    std::int64_t offset = 0;  // interrupt time = source's reading + offset
    std::int64_t value = 0;
};

reading read_source() noexcept {
    timing::sync_domain* d = timing::sync_domain::active();
    source_state& s = source();
    std::lock_guard lock(s.mutex);
    const std::int64_t raw =
        d != nullptr ? static_cast<std::int64_t>(d->sched().now() / k_ps_per_tick) : steady_ticks();
    if (d != s.domain) {
        s.domain = d;
        s.offset = std::max<std::int64_t>(s.last - raw, 0);
        s.rtc_at_switch = host_rtc();
        s.ticks_at_switch = raw + s.offset;
    }
    const std::int64_t value = std::max(raw + s.offset, s.last);
    s.last = value;
    return reading{d, s.offset, value};
}

// Synchronized time: queues an event at the deadline's simulated instant, once per deadline and
// thread, so that the domain's clock can reach it while every consumer thread waits; the
// caller then says it waits (its post counted it as acting).
void announce(timing::sync_domain& d, std::int64_t offset, std::int64_t deadline) {
    thread_local const timing::sync_domain* t_domain = nullptr;
    thread_local std::int64_t t_deadline = -1;
    if (t_domain != &d || t_deadline != deadline) {
        t_domain = &d;
        t_deadline = deadline;
        const std::int64_t at = std::max<std::int64_t>(deadline - offset, 0);
        d.sched().post_at(static_cast<timing::sim_time>(at) * k_ps_per_tick, [] {});
    }
    timing::note_consumer_blocks();
}

}  // namespace

std::int64_t interrupt_time() noexcept {
    return read_source().value;
}

std::int64_t host_interrupt_time() noexcept {
    return steady_ticks();
}

std::int64_t system_time() noexcept {
    const reading r = read_source();
    if (r.domain == nullptr) {
        return host_rtc();
    }
    source_state& s = source();
    std::lock_guard lock(s.mutex);
    return s.rtc_at_switch + (r.value - s.ticks_at_switch);
}

void wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                std::int64_t deadline) {
    const reading r = read_source();
    if (r.domain != nullptr) {
        if (r.value < deadline) {
            announce(*r.domain, r.offset, deadline);
            cv.wait_for(lock, k_sync_slice);
        }
        return;
    }
    cv.wait_until(lock, host_point(deadline));
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
    source_state& s = source();
    std::int64_t offset = 0;
    {
        std::lock_guard lock(s.mutex);
        offset = s.domain == nullptr ? s.offset : 0;
    }
    return boot() + ticks(deadline - offset);
}

void sleep_until(std::int64_t deadline) {
    for (;;) {
        const reading r = read_source();
        if (r.value >= deadline) {
            return;
        }
        if (r.domain == nullptr) {
            std::this_thread::sleep_until(host_point(deadline));
            return;
        }
        announce(*r.domain, r.offset, deadline);
        std::this_thread::sleep_for(k_sync_slice);
    }
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
    // It spends the host's time (the model does not charge a consumer's own CPU work), so it
    // reads the host's clock in synchronized time too, where the simulated clock would not move
    // while its consumer acts.
    const std::int64_t end =
        clock::host_interrupt_time() + static_cast<std::int64_t>(MicroSeconds) * 10;
    while (clock::host_interrupt_time() < end) {
    }
}

}  // extern "C"
