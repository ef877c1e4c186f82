// SPDX-License-Identifier: MIT
#pragma once
// Shared helpers of the kernel runtime tests: log mode for violations (so a negative test can
// count the report instead of dying) and bounded waits that fail loudly instead of hanging.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "kernel/dispatcher.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {

inline constexpr std::chrono::seconds k_patience{20};

/// A relative kernel timeout of `ms` milliseconds (negative: relative, in 100 ns units).
inline LARGE_INTEGER relative_ms(LONGLONG ms) {
    LARGE_INTEGER t;
    t.QuadPart = -ms * 10'000;
    return t;
}

/// A relative kernel timeout of k_patience: a wait that should end at once, with room for a
/// loaded host.
inline LARGE_INTEGER patience() {
    return relative_ms(std::chrono::duration_cast<std::chrono::milliseconds>(k_patience).count());
}

/// Puts violations in log mode and returns the thread to PASSIVE_LEVEL afterwards.
class KernelTest : public ::testing::Test {
  protected:
    void SetUp() override { ::setenv("NDKSIM_IRQL_VIOLATIONS", "log", 1); }
    void TearDown() override {
        if (KeGetCurrentIrql() != PASSIVE_LEVEL) {
            KeLowerIrql(PASSIVE_LEVEL);
        }
    }

    /// Runs `call` and returns how many violations it reported.
    template <typename Call>
    static ULONG64 violations_of(Call&& call) {
        const ULONG64 before = ndksim_kernel_irql_violations();
        call();
        return ndksim_kernel_irql_violations() - before;
    }
};

/// Spins (yielding) until `done()` holds; false after k_patience.
template <typename Pred>
bool eventually(Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + k_patience;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

/// Counts threads that got past a wait; the main thread waits for a given count.
class Tally {
  public:
    /// Notifies while holding the lock, so a waiter that sees the new count (and may then
    /// destroy the Tally) cannot run before the bumping thread is done with it; the bumping
    /// thread may be a simulated DPC or worker thread that the test never joins.
    void bump() {
        const std::lock_guard lock(mutex_);
        ++count_;
        changed_.notify_all();
    }
    /// True once the count reaches n; false after k_patience.
    bool reaches(int n) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, k_patience, [&] { return count_ >= n; });
    }
    int count() {
        const std::lock_guard lock(mutex_);
        return count_;
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    int count_ = 0;
};

}  // namespace ndksim::kernel::test
