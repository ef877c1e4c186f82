// SPDX-License-Identifier: MIT
#pragma once
// What the callbacks of a threaded adapter pair record, under one mutex, and the condition
// variable the test thread waits on. In threaded mode every callback comes from an adapter's
// engine thread, as from a real provider; the test never sleeps, it waits for a condition with
// a wall-clock timeout that fails loudly.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace ndksim::threaded {

struct board {
    /// Bound on every wait [wall clock]; generous for sanitizer builds.
    static constexpr std::chrono::seconds k_timeout{30};

    /// ndksim_adapter_config.cm_timeout_ms for threaded pairs: the test thread is the consumer
    /// that calls NdkAccept and NdkCompleteConnect, and on a loaded host it may not run for a
    /// second. Below k_timeout, so a handshake that really fails still reports its status.
    static constexpr unsigned long k_cm_timeout_ms = 20'000;

    /// ndksim_adapter_config.ack_timeout_us for threaded pairs whose tests are not about the
    /// transport timer: a starved peer engine (a loaded host, a sanitizer build) is then not
    /// taken for a silent one within a few milliseconds.
    static constexpr unsigned long k_patient_ack_timeout_us = 100'000;

    std::mutex m;
    std::condition_variable cv;
    /// The thread that made the board: the consumer's (the test's).
    std::thread::id test_thread = std::this_thread::get_id();
    /// Callbacks that ran on the consumer's thread (under `m`); a threaded provider makes none.
    int foreign_callbacks = 0;

    /// Called by every callback, under `m`: counts it when it runs on the consumer's thread.
    void touched() {
        if (std::this_thread::get_id() == test_thread) {
            ++foreign_callbacks;
        }
    }

    /// Waits until pred() (evaluated under `m`) holds; fails naming `what` on timeout.
    template <class Pred>
    bool wait(Pred pred, const char* what) {
        std::unique_lock lock(m);
        if (!cv.wait_for(lock, k_timeout, pred)) {
            ADD_FAILURE() << "timed out after " << k_timeout.count() << " s waiting for: " << what;
            return false;
        }
        return true;
    }
};

}  // namespace ndksim::threaded
