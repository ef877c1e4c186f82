#pragma once
// The discrete-event queue: events ordered by (time, sequence), so events due at the same
// simulated instant run in the order they were scheduled. That order is what makes a
// deterministic run repeat exactly. Not thread-safe; scheduler adds the locking.
//
// The heap orders small keys (time, sequence, slot); each task stays in one slot of a slab
// from push to pop. A heap of whole tasks moved every 128-byte task through its type-erased
// move at each sift step, a dozen indirect calls per event, which was most of the queue's
// cost per packet in the profile. Slots are reused through a free list, so the steady state
// allocates nothing.

#include <cstdint>
#include <vector>

#include "timing/sim_time.hpp"
#include "util/inplace_function.hpp"

namespace ndksim::timing {

/// Work scheduled on the simulated clock. 96 bytes of captures is enough for an object
/// reference plus a few arguments; anything larger fails to compile.
using task = util::inplace_function<void(), 96>;

class event_queue {
  public:
    /// Reserves room for `capacity` events so steady-state scheduling does not allocate.
    explicit event_queue(std::size_t capacity = 1024);

    /// Adds an event at simulated time `when` [ps].
    void push(sim_time when, task fn);

    /// True when no event is queued.
    bool empty() const noexcept { return heap_.empty(); }

    /// Number of queued events.
    std::size_t size() const noexcept { return heap_.size(); }

    /// Time of the earliest event; precondition: !empty().
    sim_time next_time() const noexcept { return heap_.front().when; }

    /// Removes the earliest event and returns its task; `when` receives its time.
    task pop(sim_time& when);

  private:
    struct entry {
        sim_time when;
        std::uint64_t seq;
        std::uint32_t slot;  ///< index of the task in tasks_
    };
    static bool later(const entry& a, const entry& b) noexcept {
        return a.when != b.when ? a.when > b.when : a.seq > b.seq;
    }

    std::vector<entry> heap_;
    std::vector<task> tasks_;          // slab: a queued event's task, by slot
    std::vector<std::uint32_t> free_;  // slots of tasks_ not in use
    std::uint64_t next_seq_ = 0;
};

}  // namespace ndksim::timing
