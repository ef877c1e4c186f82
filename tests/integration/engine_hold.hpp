// SPDX-License-Identifier: MIT
#pragma once
// Holds a threaded scheduler's engine thread inside a task of its own until release() (or
// destruction): what reaches that engine meanwhile (an in-process frame, a datagram in its
// socket, a task) waits, as behind a busy engine on a loaded host. Bounded by board::k_timeout
// on both sides, so a test that forgets to release, or an engine that never runs, fails loudly
// instead of hanging.

#include <condition_variable>
#include <memory>
#include <mutex>

#include <gtest/gtest.h>

#include "threaded_pair/board.hpp"
#include "timing/scheduler.hpp"

namespace ndksim::integration {

class engine_hold {
  public:
    /// Posts the holding task to `s` and returns once its engine thread runs it.
    explicit engine_hold(timing::scheduler& s) : state_(std::make_shared<state>()) {
        s.post([st = state_] {
            std::unique_lock lock(st->m);
            st->holding = true;
            st->cv.notify_all();
            st->cv.wait_for(lock, threaded::board::k_timeout, [&] { return st->released; });
        });
        std::unique_lock lock(state_->m);
        if (!state_->cv.wait_for(lock, threaded::board::k_timeout,
                                 [&] { return state_->holding; })) {
            ADD_FAILURE() << "the engine thread never took the hold";
        }
    }
    engine_hold(const engine_hold&) = delete;
    engine_hold& operator=(const engine_hold&) = delete;
    ~engine_hold() { release(); }

    /// Lets the engine thread go on.
    void release() {
        const std::lock_guard lock(state_->m);
        state_->released = true;
        state_->cv.notify_all();
    }

  private:
    struct state {
        std::mutex m;
        std::condition_variable cv;
        bool holding = false;
        bool released = false;
    };
    std::shared_ptr<state> state_;
};

}  // namespace ndksim::integration
