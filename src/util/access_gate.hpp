// SPDX-License-Identifier: MIT
#pragma once
// Mutual exclusion for state that one hot thread enters all the time and other threads rarely:
// an adapter's data path and the control operations on its memory unit (mem/translation_unit),
// an adapter's engine posting completions and the consumer calls on a CQ (core/cq).
//
// The hot side (the "reader", though it may change the state) is one thread at a time: the
// adapter's engine thread, or the thread driving its deterministic loop (timing/scheduler.hpp:
// tasks run one at a time on the queue's owner). Its way in takes no lock and no atomic
// read-modify-write other than one exchange: it raises its flag and looks whether another
// holder is in. Every other caller comes through a mutex, closes the gate and waits for the
// reader to leave. This is the asymmetric form of a lock: the cost sits with the rare side, as
// a NIC's firmware quiesces its data path before it changes a translation table.
//
// Ordering: the reader's exchange and load and the closer's store and load are sequentially
// consistent, so of a reader and a closer arriving together at least one sees the other
// (Dekker); a reader that sees the gate closed backs out and queues on the mutex. Every entry
// and exit pairs a release with an acquire, so whatever one holder changed is visible to the
// next, on any thread; ThreadSanitizer sees the same happens-before edges.
//
// A second reader arriving while the first is inside takes the mutex's way and waits its turn,
// so the gate admits one holder at a time, whoever they are: it protects state the reader
// writes, not only state it reads. So a thread inside two gates must not meet another thread
// entering the same two in the opposite order: each would wait for the other to leave.
//
// A reader may stay for a long while (the memory unit's data path holds the gate across the
// packets of a long message), so a closer waiting for it spins briefly, then yields, then
// sleeps in growing steps of at most 100 us instead of burning a core that the reader may need.

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ndksim::util {

class access_gate {
  public:
    /// How a holder came in; a holder leaves the way it came.
    enum class entry : std::uint8_t {
        fast,       ///< the reader's flag: no control operation was in
        exclusive,  ///< the mutex, with the gate closed and the reader out
    };

    /// Which way a hold comes in.
    enum class side : std::uint8_t {
        reader,  ///< enter_read: the hot thread
        other,   ///< enter_exclusive: everyone else
    };

    /// A stay in the gate for the lifetime of a scope.
    class hold {
      public:
        /// Enters `gate` by the way of `s` (waits until admitted).
        hold(access_gate& gate, side s) noexcept
            : gate_(gate), how_(s == side::reader ? gate.enter_read() : gate.enter_exclusive()) {}
        /// Leaves the way it came in.
        ~hold() { gate_.leave(how_); }
        hold(const hold&) = delete;
        hold& operator=(const hold&) = delete;

      private:
        access_gate& gate_;
        entry how_;
    };

    access_gate() = default;
    access_gate(const access_gate&) = delete;
    access_gate& operator=(const access_gate&) = delete;

    /// The hot side's way in. Returns entry::fast when it got in with its flag alone, or
    /// entry::exclusive when another holder was in (or another reader held the flag) and it
    /// queued behind them on the mutex. Waits, never fails. Pair with leave(the result).
    entry enter_read() noexcept;

    /// The rare side's way in: takes the mutex, closes the gate and waits until the reader
    /// inside, if any, has left. Returns entry::exclusive. Pair with leave.
    entry enter_exclusive() noexcept;

    /// Leaves the gate the way `how` came in.
    void leave(entry how) noexcept;

    /// True while a holder of the mutex (the rare side, or a second reader) is in or waits for
    /// the reader to leave (diagnostics and tests; a snapshot).
    bool closed() const noexcept { return closed_.load(std::memory_order_acquire); }

    /// True while a reader is inside by its flag (diagnostics and tests; a snapshot).
    bool reader_inside() const noexcept { return reader_.load(std::memory_order_acquire) != 0; }

  private:
    void wait_reader_out() const noexcept;

    // 1 while a reader is inside by the fast way. Every enter_read exchanges it; only the
    // reader that raised it lowers it; holders of the mutex wait for it to fall.
    std::atomic<std::uint32_t> reader_{0};
    // True from the moment a holder of the mutex starts waiting for the reader until it leaves.
    std::atomic<bool> closed_{false};
    std::mutex exclusive_;
};

}  // namespace ndksim::util
