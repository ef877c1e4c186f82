// SPDX-License-Identifier: MIT
#include "kernel/dispatcher.hpp"

namespace ndksim::kernel {

dispatcher& the_dispatcher() noexcept {
    // Never destroyed: the simulated DPC, timer, worker and system threads may signal objects
    // while the process exits.
    static dispatcher* const instance = new dispatcher;
    return *instance;
}

std::size_t blocked_waiters() {
    dispatcher& d = the_dispatcher();
    const std::lock_guard lock(d.mutex);
    return d.blocked;
}

bool is_initialized(const DISPATCHER_HEADER& header) noexcept {
    return header.WaitListHead.Flink == &header.WaitListHead &&
           header.WaitListHead.Blink == &header.WaitListHead;
}

void initialize_header(DISPATCHER_HEADER& header, UCHAR type, UCHAR size, LONG state) noexcept {
    header.Type = type;
    header.Signalling = 0;
    header.Size = size;
    header.Reserved1 = 0;
    header.SignalState = state;
    // An empty wait list, as Windows leaves it; the simulator also uses it as the mark that the
    // object was initialized.
    header.WaitListHead.Flink = &header.WaitListHead;
    header.WaitListHead.Blink = &header.WaitListHead;
}

void signal(DISPATCHER_HEADER& header) {
    dispatcher& d = the_dispatcher();
    {
        const std::lock_guard lock(d.mutex);
        header.SignalState = 1;
    }
    d.signaled.notify_all();
}

}  // namespace ndksim::kernel
