// SPDX-License-Identifier: MIT
#pragma once
// Waiting for another thread in a unit test without sleeping: spin (yielding) until a condition
// holds, with a bound that makes a test fail loudly instead of hanging.

#include <chrono>
#include <thread>

namespace ndksim::test {

/// Spins, yielding, until `pred()` holds. Returns false after 10 s of wall time; the caller
/// fails the test, naming what never happened.
template <class Pred>
bool eventually(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

}  // namespace ndksim::test
