// SPDX-License-Identifier: MIT
#pragma once
// A fixed-capacity queue of posted receives, used by a QP's receive queue and by an SRQ.
//
// Each receive occupies a slot of max_sge SGEs from the moment it is posted until the engine
// releases it (its completion has been queued), as a receive WQE occupies the hardware queue
// until its CQE is written: a receive the engine has taken but not completed still counts
// against the depth. Slots are allocated when the queue is created (depth * max_sge SGEs) or
// grown by resize(), never by post or take (STYLE.md habit 7). Slot storage never moves once
// allocated, so the SGE span of a taken receive stays valid across a resize until release().
//
// Concurrency: an access gate (util/access_gate.hpp) guards every member. The engine takes,
// releases and drains from its tasks, once per received message: it enters as the gate's
// reader, with no lock unless a consumer call is inside. The consumer posts from one thread at
// a time per queue (REFERENCE.md rule 8) and resizes (NdkModifySrq) by the gate's mutex. The
// queries enter as readers from any thread (a second reader queues on the mutex). No other
// lock is taken inside the gate, and drain() calls its visitor outside it.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/work_request.hpp"
#include "util/access_gate.hpp"
#include "util/status.hpp"

namespace ndksim::core {

/// One posted receive as the engine sees it.
struct received {
    void* context;              ///< the RequestContext given at post time
    std::span<const sge> sges;  ///< its SGEs; valid until the slot is released
    std::uint32_t slot;         ///< identifies the receive for release()
};

class receive_queue {
  public:
    /// Allocates `depth` slots of `max_sge` SGEs. Throws std::bad_alloc.
    receive_queue(std::uint32_t depth, std::uint32_t max_sge);

    receive_queue(const receive_queue&) = delete;
    receive_queue& operator=(const receive_queue&) = delete;

    /// Posts a receive (NdkReceive / NdkSrqReceive; consumer thread). Copies `count` SGEs from
    /// `sges` bytewise, so `sges` may point at any layout-identical array (src/api passes
    /// NDK_SGE; it static_asserts the layout). Returns success; invalid_parameter when
    /// count > max_sge() or sges is null with count > 0 (rule 11); insufficient_resources when
    /// depth() receives are outstanding. A failed post changes nothing (rule 9: no completion).
    [[nodiscard]] status post(void* context, const sge* sges, std::uint32_t count) noexcept;

    /// Engine: the oldest queued receive, left in the queue. Returns false when none is queued.
    bool front(received& out) const noexcept;

    /// Engine: removes the oldest queued receive and frees its slot at once (for a receive
    /// whose completion has already been queued, or one read through front()). Precondition:
    /// size() > 0.
    void pop() noexcept;

    /// Engine: removes the oldest queued receive into `out`; its slot stays held (and its SGE
    /// span valid) until release(out.slot). Returns false when none is queued.
    bool take(received& out) noexcept;

    /// Engine: frees the slot of a receive obtained by take(), once its completion is queued.
    void release(std::uint32_t slot) noexcept;

    /// Engine (flush, rule 12): hands every queued receive, oldest first, to `visit(const
    /// received&)` and frees its slot after visit returns, leaving the queue empty. Taken but
    /// unreleased receives are the engine's and are not visited. visit runs outside the gate
    /// and may post completions. Returns the number visited.
    template <class Visit>
    std::uint32_t drain(Visit&& visit);

    /// Receives queued (posted and not taken).
    std::uint32_t size() const noexcept;

    /// Receives occupying a slot: queued plus taken and not yet released.
    std::uint32_t outstanding() const noexcept;

    /// Maximum number of outstanding receives.
    std::uint32_t depth() const noexcept;

    /// Maximum SGEs per receive.
    std::uint32_t max_sge() const noexcept { return max_sge_; }

    /// Changes the depth keeping every outstanding receive (NdkModifySrq). Returns success;
    /// invalid_parameter when `depth` is 0 or below outstanding(); insufficient_resources when
    /// growing beyond the slots allocated so far fails to allocate (nothing changes then).
    /// Shrinking keeps the slots allocated for a later growth.
    [[nodiscard]] status resize(std::uint32_t depth) noexcept;

  private:
    struct slot_entry {
        void* context;
        std::uint32_t count;
        sge* sges;  // max_sge_ SGEs inside one of chunks_
    };

    void fill(received& out, std::uint32_t slot) const noexcept;
    std::uint32_t pop_inside() noexcept;  // inside the gate

    mutable util::access_gate gate_;
    std::uint32_t max_sge_;
    std::uint32_t depth_;
    std::uint32_t capacity_;  // slots allocated (>= depth_)
    std::vector<std::unique_ptr<sge[]>> chunks_;
    std::vector<slot_entry> slots_;    // capacity_ entries
    std::vector<std::uint32_t> ring_;  // queued slot numbers, capacity_ entries
    std::vector<std::uint32_t> free_;  // free slot numbers (a stack)
    std::uint32_t head_ = 0;
    std::uint32_t size_ = 0;
    std::uint32_t held_ = 0;  // taken and not yet released
};

template <class Visit>
std::uint32_t receive_queue::drain(Visit&& visit) {
    std::uint32_t n = 0;
    for (;;) {
        received r{};
        if (!take(r)) {
            return n;
        }
        visit(static_cast<const received&>(r));
        release(r.slot);
        ++n;
    }
}

}  // namespace ndksim::core
