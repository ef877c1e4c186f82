// SPDX-License-Identifier: MIT
#pragma once
// The exclusion between a translation unit's data path and its control operations.
//
// One adapter has one data-path thread at a time: its engine thread, or the thread driving its
// deterministic loop (timing/scheduler.hpp: tasks run one at a time on the queue's owner).
// That thread enters the gate once per work request or packet, so its way in takes no lock and
// no atomic read-modify-write other than one exchange: it raises its flag and looks whether a
// control operation holds the gate. A control operation (register, deregister, bind, a query
// from a consumer thread) comes through a mutex, closes the gate and waits for the reader to
// leave. This is the asymmetric form of a reader-writer lock: the cost sits with the rare
// writer, as a NIC's firmware quiesces its data path before it changes a translation table.
//
// Ordering: the reader's exchange and load and the writer's store and load are sequentially
// consistent, so of a reader and a writer arriving together at least one sees the other
// (Dekker); a reader that sees the gate closed backs out and queues on the mutex. Every entry
// and exit pairs a release with an acquire, so whatever one holder changed (tables, the
// translation cache model) is visible to the next, on any thread; ThreadSanitizer sees the
// same happens-before edges.
//
// A second reader arriving while the first is inside (two threads reading one unit: allowed,
// never on one adapter's data path) takes the writer's way and waits its turn, so the gate
// admits one holder at a time. That is what lets the translation cache model, which every
// lookup changes, go without a lock of its own.

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ndksim::mem {

class access_gate {
  public:
    /// How a holder came in; a holder leaves the way it came.
    enum class entry : std::uint8_t {
        fast,       ///< the reader's flag: no control operation was in
        exclusive,  ///< the mutex, with the gate closed and the reader out
    };

    access_gate() = default;
    access_gate(const access_gate&) = delete;
    access_gate& operator=(const access_gate&) = delete;

    /// The data path's way in. Returns entry::fast when it got in with its flag alone, or
    /// entry::exclusive when a control operation or another reader was in, and it queued behind
    /// them on the mutex. Waits, never fails. Pair with leave(the result).
    entry enter_read() noexcept;

    /// A control operation's way in: takes the mutex, closes the gate and waits until the
    /// reader inside, if any, has left. Returns entry::exclusive. Pair with leave.
    entry enter_exclusive() noexcept;

    /// Leaves the gate the way `how` came in.
    void leave(entry how) noexcept;

    /// True while a control operation holds the gate or waits for the reader to leave it
    /// (diagnostics and tests; a snapshot).
    bool closed() const noexcept { return closed_.load(std::memory_order_acquire); }

    /// True while a reader is inside by its flag (diagnostics and tests; a snapshot).
    bool reader_inside() const noexcept { return reader_.load(std::memory_order_acquire) != 0; }

  private:
    void wait_reader_out() const noexcept;

    // 1 while the reader is inside by the fast way. Written by the reader only (exchange to 1,
    // store of 0); read by the holders of the mutex.
    std::atomic<std::uint32_t> reader_{0};
    // True from the moment a holder of the mutex starts waiting for the reader until it leaves.
    std::atomic<bool> closed_{false};
    std::mutex exclusive_;
};

}  // namespace ndksim::mem
