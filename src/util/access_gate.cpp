// SPDX-License-Identifier: MIT
#include "util/access_gate.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace ndksim::util {

access_gate::entry access_gate::enter_read() noexcept {
    if (reader_.exchange(1, std::memory_order_seq_cst) == 0) {
        if (!closed_.load(std::memory_order_seq_cst)) {
            return entry::fast;
        }
        // A holder of the mutex is in or waits for this reader: let it go first.
        reader_.store(0, std::memory_order_release);
    }
    // The flag was another reader's, or a control operation is in: queue on the mutex.
    return enter_exclusive();
}

access_gate::entry access_gate::enter_exclusive() noexcept {
    exclusive_.lock();
    closed_.store(true, std::memory_order_seq_cst);
    wait_reader_out();
    return entry::exclusive;
}

void access_gate::leave(entry how) noexcept {
    if (how == entry::fast) {
        reader_.store(0, std::memory_order_release);
        return;
    }
    closed_.store(false, std::memory_order_release);
    exclusive_.unlock();
}

void access_gate::wait_reader_out() const noexcept {
    constexpr int k_spins = 64;
    constexpr int k_yields = 64;
    constexpr std::chrono::microseconds k_longest_nap{100};
    std::chrono::microseconds nap{1};
    for (int i = 0; reader_.load(std::memory_order_seq_cst) != 0; ++i) {
        if (i < k_spins) {
            continue;
        }
        if (i < k_spins + k_yields) {
            std::this_thread::yield();
            continue;
        }
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, k_longest_nap);
    }
}

}  // namespace ndksim::util
