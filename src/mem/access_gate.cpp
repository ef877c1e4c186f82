// SPDX-License-Identifier: MIT
#include "mem/access_gate.hpp"

#include <thread>

namespace ndksim::mem {

access_gate::entry access_gate::enter_read() noexcept {
    if (reader_.exchange(1, std::memory_order_seq_cst) == 0) {
        if (!closed_.load(std::memory_order_seq_cst)) {
            return entry::fast;
        }
        // A control operation holds the gate or waits for it: let it go first.
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
    // The reader's stay is one work request or one packet (microseconds): spin a little, then
    // give the core away, since on a loaded host the reader may be waiting for one.
    constexpr int k_spins = 64;
    for (int i = 0; reader_.load(std::memory_order_seq_cst) != 0; ++i) {
        if (i >= k_spins) {
            std::this_thread::yield();
        }
    }
}

}  // namespace ndksim::mem
