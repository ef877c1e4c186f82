// SPDX-License-Identifier: MIT
#pragma once
// A scheduler task that runs under a busy_hold on an object, and post_held(), which takes the
// hold and posts the task: the shape of every engine task that calls the consumer back for an
// object or that the object's close must wait for (a CQ or SRQ notification, a pending
// request's completion, a QP's flush).
//
// The hold ends inside the task, right after `fn` returns, not when the task is destroyed: the
// scheduler destroys a task it has run with its queue mutex held, and ending the hold may post
// the close completion onto that scheduler.
//
// A task the scheduler drops without running it abandons its hold instead of ending it. That
// happens only when a scheduler is destroyed with events still queued (an adapter whose destroy
// gave up waiting for its engine after close_timeout). Ending the hold there would post a
// close completion onto the scheduler being destroyed and could destroy the object after the
// device it points to; abandoned, the object stays allocated and untouched, which is what the
// engine did before the hold existed.

#include <utility>

#include "core/busy_hold.hpp"
#include "core/device.hpp"
#include "timing/sim_time.hpp"

namespace ndksim::core {

template <class Fn>
class held_task {
  public:
    /// Takes the hold on `o` now, before the task is queued.
    held_task(object& o, Fn fn) : hold_(o), fn_(std::move(fn)) {}

    held_task(held_task&&) noexcept = default;
    held_task(const held_task&) = delete;
    held_task& operator=(const held_task&) = delete;
    held_task& operator=(held_task&&) = delete;

    /// Dropped unrun: the hold is abandoned (see above). After a run, or when moved from, the
    /// hold is already empty.
    ~held_task() { hold_.abandon(); }

    /// Runs `fn`, then ends the hold.
    void operator()() {
        const busy_hold running = std::move(hold_);
        fn_();
    }

  private:
    busy_hold hold_;
    Fn fn_;
};

/// Posts `fn` to run on `o`'s scheduler `delay` [ps] from now, holding `o` busy and referenced
/// until it has run.
template <class Fn>
void post_held(object& o, timing::sim_time delay, Fn fn) {
    o.dev().sched().post_after(delay, held_task<Fn>(o, std::move(fn)));
}

}  // namespace ndksim::core
