// SPDX-License-Identifier: MIT
#pragma once
// What an engine task scheduled for an object holds on it (docs/engine.md, "Concurrency and
// lifetimes"): a counted reference, so the object outlives the task, and a busy mark, so the
// object's close waits until the task has run (REFERENCE.md rule 4: a close completes only once
// no request or event callback on the object is pending or running, and it is the last
// callback). Taken before the task is posted; ended when the task has run (see held_task.hpp
// for what happens to a task that never runs).

#include <utility>

#include "core/object.hpp"

namespace ndksim::core {

class busy_hold {
  public:
    /// Marks `o` busy and takes a reference on it.
    explicit busy_hold(object& o) noexcept : o_(&o) {
        o.begin_busy();
        o.add_ref();
    }

    /// Moves the hold; `other` holds nothing afterwards.
    busy_hold(busy_hold&& other) noexcept : o_(std::exchange(other.o_, nullptr)) {}

    busy_hold(const busy_hold&) = delete;
    busy_hold& operator=(const busy_hold&) = delete;
    busy_hold& operator=(busy_hold&&) = delete;

    /// Ends the hold: the busy mark first, which may let a waiting close complete (it posts
    /// the close completion), then the reference, which may be the last one.
    ~busy_hold() {
        if (o_ != nullptr) {
            o_->end_busy();
            o_->release();
        }
    }

    /// Gives the hold up without ending it: the object keeps the busy mark and the reference
    /// for good. Only for a task dropped unrun by a scheduler being destroyed (held_task.hpp).
    void abandon() noexcept { o_ = nullptr; }

    /// True while this hold still holds an object.
    bool holds() const noexcept { return o_ != nullptr; }

  private:
    object* o_;
};

}  // namespace ndksim::core
