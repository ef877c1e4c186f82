// SPDX-License-Identifier: MIT
#pragma once
// Counters with one writer at a time and readers on any thread: the engine's packet counters
// (written by its tasks only), the statistics of a QP, the translation cache's tallies (written
// inside the memory unit's gate). The writer adds with a load and a store. A read-modify-write
// (fetch_add: a lock-prefixed instruction on x86) would also work, but it waits until every
// store before it has left the core's store buffer: after a packet's payload copy that is 64
// stores to lines not yet in the cache, a stall perf put on whichever locked instruction came
// first after the copy. Readers still see whole values, as both are atomic.

#include <atomic>
#include <type_traits>

namespace ndksim::util {

/// Adds `by` to `counter`. Only one thread may write `counter` at a time (the caller's rule,
/// with a happens-before between one writer and the next); any thread may read it.
template <class T>
inline void single_writer_add(std::atomic<T>& counter, std::type_identity_t<T> by = T{1}) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

/// Subtracts `by` from `counter`; the same rule as single_writer_add.
template <class T>
inline void single_writer_sub(std::atomic<T>& counter, std::type_identity_t<T> by = T{1}) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) - by, std::memory_order_relaxed);
}

}  // namespace ndksim::util
