// SPDX-License-Identifier: MIT
#pragma once
// The kernel runtime's one clock. Every timed routine (waits, timers, delays, the time queries)
// reads time here and sleeps through wait_until, so that a simulated time source can replace the
// host clock in one place. Times are in 100 ns units: "interrupt time" counts from the simulated
// boot (the clock's first use), "system time" from 1601-01-01 UTC, as on Windows.
//
// The source: the host's steady clock, or, while the process has a sync domain (synchronized
// time, docs/timing.md), the domain's simulated clock. A change of source never moves the
// interrupt time back: the new source continues from the last value read. A timed wait in
// synchronized time queues an event at its deadline, so that simulated time can reach it while
// every consumer thread waits, and looks again at the clock every k_sync_slice of wall time.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "wdm.h"

namespace ndksim::kernel::clock {

/// 100 ns units since the simulated boot; monotonic.
std::int64_t interrupt_time() noexcept;

/// 100 ns units since 1601-01-01 UTC, from the host's real-time clock.
std::int64_t system_time() noexcept;

/// The interrupt time at which a KeWaitFor*/KeDelayExecutionThread/KeSetTimer time value is
/// reached: negative is relative to now, positive an absolute system time (converted once, so a
/// later change of the system clock does not move it), zero is now.
std::int64_t due_time(std::int64_t windows_time) noexcept;

/// The deadline of a wait's Timeout argument: none for NULL, otherwise due_time(*timeout).
std::optional<std::int64_t> deadline_of(const LARGE_INTEGER* timeout) noexcept;

/// The host steady-clock point at which the interrupt time reaches `deadline`.
std::chrono::steady_clock::time_point host_point(std::int64_t deadline) noexcept;

/// Blocks on `cv` until notified (spuriously too) or the interrupt time reaches `deadline`. In
/// synchronized time it may also return before either (after k_sync_slice of wall time): the
/// caller looks at the clock again, as it does after a spurious wake-up.
void wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                std::int64_t deadline);

/// The host's steady clock in 100 ns units since the boot, whatever the source: for busy waits
/// of the CPU (KeStallExecutionProcessor), which take the host's time, not the model's.
std::int64_t host_interrupt_time() noexcept;

/// Sleeps the calling thread until the interrupt time reaches `deadline`.
void sleep_until(std::int64_t deadline);

}  // namespace ndksim::kernel::clock
