// SPDX-License-Identifier: MIT
#pragma once
// The discrete-event queue: events ordered by (time, sequence), so events due at the same
// simulated instant run in the order they were scheduled. That order is what makes a
// deterministic run repeat exactly. Not thread-safe; scheduler decides which thread owns it.
//
// The heap orders small keys (time, sequence, slot); each task is built in one slot of a slab
// when it is pushed, runs there and is destroyed there. A heap of whole tasks moved every
// 128-byte task through its type-erased move at each sift step, a dozen indirect calls per
// event, which was most of the queue's cost per packet in the profile. The slab grows in
// chunks that never move, so a task that pushes further events while it runs (every stage
// does) keeps its own storage. Slots are reused through a free list, so the steady state
// allocates nothing.
//
// Timers (push_timer) wait in a second heap. Every connected QP keeps one transport-timer check
// armed while it has requests out, due an ACK timeout ahead; with thousands of connections
// those checks made the one heap thousands deep, and each of the dozen per-packet events of a
// message sifted through all its levels. Both heaps share the sequence counter and a pop takes
// the earlier of the two tops by (time, sequence), so the order of events, and every trace, is
// the one a single heap gives.
//
// A timer can be cancelled (cancel_timer): the timer heap knows where each of its entries is,
// so the entry leaves at once and its slot is free again. The transport timer of a QP whose
// requests have all completed is cancelled while the QP's state is still in the cache, instead
// of running an ACK timeout later to find nothing waiting on a QP long gone cold.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "timing/sim_time.hpp"
#include "util/inplace_function.hpp"

namespace ndksim::timing {

/// Names a queued timer (event_queue::push_timer, scheduler::post_timer_after) for cancelling.
using timer_id = std::uint32_t;
/// A timer_id that names no timer.
inline constexpr timer_id k_no_timer = UINT32_MAX;

/// Work scheduled on the simulated clock. 96 bytes of captures is enough for an object
/// reference plus a few arguments; anything larger fails to compile.
using task = util::inplace_function<void(), 96>;

class event_queue {
  public:
    /// Reserves room for `capacity` events so steady-state scheduling does not allocate.
    explicit event_queue(std::size_t capacity = 1024);

    /// Adds an event at simulated time `when` [ps]; its task is built from `fn` in its slot.
    template <class F>
    void push(sim_time when, F&& fn);

    /// Takes the sequence number the next push would get, for an event pushed later at the
    /// place in the order it would have had if pushed now (push with `seq`).
    std::uint64_t reserve_seq() noexcept { return next_seq_++; }

    /// Adds an event at simulated time `when` [ps] with a sequence number from reserve_seq().
    template <class F>
    void push(sim_time when, std::uint64_t seq, F&& fn);

    /// Adds a timer at simulated time `when` [ps]: an event like push's, kept in the timer heap
    /// (see above); it runs at its place in the same (time, sequence) order. Returns the
    /// timer's slot, which names it to cancel_timer until it is popped.
    template <class F>
    timer_id push_timer(sim_time when, F&& fn);

    /// True when `slot` holds a timer still queued (pushed and neither popped nor cancelled).
    bool timer_queued(timer_id slot) const noexcept {
        return slot < timer_pos_.size() && timer_pos_[slot] != k_not_queued;
    }

    /// Removes the queued timer in `slot` (timer_queued) from the order and destroys its task
    /// without running it; the slot is free again. Returns false, changing nothing, when `slot`
    /// holds no queued timer.
    bool cancel_timer(timer_id slot) noexcept;

    /// True when no event is queued.
    bool empty() const noexcept { return heap_.empty() && timers_.empty(); }

    /// Number of queued events, timers included.
    std::size_t size() const noexcept { return heap_.size() + timers_.size(); }

    /// Time of the earliest event; precondition: !empty().
    sim_time next_time() const noexcept { return front_heap().front().when; }

    /// Removes the earliest event and returns its task; `when` receives its time.
    task pop(sim_time& when);

    /// Removes the earliest event from the order but leaves its task in its slot, where it may
    /// run (at()) while further events are pushed; `when` receives its time. The slot stays
    /// taken until release(). Precondition: !empty().
    std::uint32_t pop_slot(sim_time& when) noexcept;

    /// The task in `slot` (from pop_slot).
    task& at(std::uint32_t slot) noexcept { return chunks_[slot / k_chunk][slot % k_chunk]; }

    /// Destroys the task in `slot` and frees the slot for reuse.
    void release(std::uint32_t slot) noexcept;

  private:
    static constexpr std::uint32_t k_chunk = 256;  ///< tasks per slab chunk
    /// timer_pos_ of a slot that holds no queued timer.
    static constexpr std::uint32_t k_not_queued = k_no_timer;

    struct entry {
        sim_time when;
        std::uint64_t seq;
        /// Index of the task in the slab. A whole word, though slots fit 32 bits: insert() reads
        /// the entry its caller has just stored, and a 4-byte store under an 8-byte load (the
        /// field and its padding, copied as one) cannot be forwarded, a stall that perf put on
        /// most of insert()'s time.
        std::uint64_t slot;
    };
    /// True when the event (when, seq) runs after `b`.
    static bool later(sim_time when, std::uint64_t seq, const entry& b) noexcept {
        return when != b.when ? when > b.when : seq > b.seq;
    }
    static bool later(const entry& a, const entry& b) noexcept { return later(a.when, a.seq, b); }

    std::uint32_t take_slot();
    void add_chunk();
    template <class F>
    std::uint32_t build(F&& fn);
    /// Adds `e` to `heap`. With `Tracked` (the timer heap), `pos` is told the index of every
    /// entry placed (pos[slot] = index); the event heap tracks nothing, and pays nothing for it.
    template <bool Tracked>
    static void insert(std::vector<entry>& heap, const entry& e, std::uint32_t* pos);
    /// Removes the entry at `index` of `heap`; returns its slot, `when` receives its time.
    /// `Tracked` and `pos` as for insert; the removed slot's position becomes k_not_queued.
    template <bool Tracked>
    static std::uint32_t remove_at(std::vector<entry>& heap, std::size_t index, sim_time& when,
                                   std::uint32_t* pos) noexcept;
    /// Adds a timer's entry to timers_ (insert, tracked).
    void insert_timer(const entry& e);

    /// The heap whose top is the earliest event; precondition: !empty().
    const std::vector<entry>& front_heap() const noexcept {
        if (timers_.empty() || (!heap_.empty() && !later(heap_.front(), timers_.front()))) {
            return heap_;
        }
        return timers_;
    }
    std::vector<entry>& front_heap() noexcept {
        return const_cast<std::vector<entry>&>(std::as_const(*this).front_heap());
    }

    std::vector<entry> heap_;                      // events (the per-packet ones)
    std::vector<entry> timers_;                    // timers, in the same order
    std::vector<std::unique_ptr<task[]>> chunks_;  // slab: a queued event's task, by slot
    std::vector<std::uint32_t> free_;              // slots of the slab not in use
    std::vector<std::uint32_t> timer_pos_;         // by slot: its index in timers_, or none
    std::uint64_t next_seq_ = 0;
};

template <class F>
void event_queue::push(sim_time when, F&& fn) {
    push(when, next_seq_++, std::forward<F>(fn));
}

template <class F>
std::uint32_t event_queue::build(F&& fn) {
    const std::uint32_t slot = take_slot();
    try {
        at(slot).emplace(std::forward<F>(fn));
    } catch (...) {
        free_.push_back(slot);
        throw;
    }
    return slot;
}

template <class F>
void event_queue::push(sim_time when, std::uint64_t seq, F&& fn) {
    insert<false>(heap_, entry{when, seq, build(std::forward<F>(fn))}, nullptr);
}

template <class F>
timer_id event_queue::push_timer(sim_time when, F&& fn) {
    const std::uint64_t seq = next_seq_++;
    const std::uint32_t slot = build(std::forward<F>(fn));
    insert_timer(entry{when, seq, slot});
    return slot;
}

}  // namespace ndksim::timing
