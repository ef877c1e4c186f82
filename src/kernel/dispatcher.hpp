#pragma once
// The dispatcher database: one process-wide mutex and condition variable guard every event's
// SignalState. Windows keeps a wait list in each object; the simulator keeps the consumer's
// KEVENT within its 0x18 Windows bytes, so waiters block on the shared condition variable and
// re-check their objects when any object is signaled. Signals are rare next to the data path,
// so the shared lock costs little, and it makes KeWaitForMultipleObjects' WaitAll atomic.

#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "wdm.h"

namespace ndksim::kernel {

struct dispatcher {
    std::mutex mutex;
    std::condition_variable signaled;
    std::size_t blocked = 0;  // threads inside a wait that found nothing signaled
};

/// The process's dispatcher state.
dispatcher& the_dispatcher() noexcept;

/// How many threads are blocked in KeWaitFor*Object(s) right now (tests wait for this to know
/// their waiters are parked before they signal).
std::size_t blocked_waiters();

/// Whether KeInitializeEvent formatted this header (its wait list head points at itself).
bool is_initialized(const DISPATCHER_HEADER& header) noexcept;

/// Formats the header as initialized with the given type and state.
void initialize_header(DISPATCHER_HEADER& header, UCHAR type, UCHAR size, LONG state) noexcept;

}  // namespace ndksim::kernel
