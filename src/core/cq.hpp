// SPDX-License-Identifier: MIT
#pragma once
// A completion queue (NDK_CQ): its entries, its notification arm, its interrupt moderation and
// its overrun state.
//
// Concurrency (one block for the whole type; REFERENCE.md rule 13):
//  - An access gate (util/access_gate.hpp) guards the ring, the arm, the "newer than the last
//    notification" counters, the moderation window, the delivery flags and the dead flag. The
//    engine's post() enters it as the gate's reader, with no lock when no consumer call is
//    inside; every other member function that reads or writes that state enters it by the
//    gate's mutex. It admits one holder at a time, is never held while a consumer callback
//    runs, and no other object's lock is taken inside it (the scheduler's inbox mutex may be,
//    to post a task; the scheduler never calls back under it; with the verifier's rule 17 on,
//    a poll takes the device's outstanding_contexts mutex, which takes no other). One
//    exception: a poll that finds the ring empty by queued_ (an atomic copy of its size)
//    enters nothing when neither the verifier nor synchronized time is on, since such a poll
//    changes nothing; a spinning consumer then never closes the gate on the engine.
//  - Producer: the QP engine calls post() from tasks of dev().sched() only. Consumers: poll()
//    (NdkGetCqResults / NdkGetCqResultsEx) and arm() (NdkArmCq) from any consumer thread; the
//    consumer serializes those per CQ (rule 13), the gate makes them safe against the engine.
//  - Notifications are always delivered from a task of their own, never from inside post() or
//    arm() (so never from inside NdkArmCq), and at most one delivery task exists at a time
//    (delivery_active_): a notification requested while one is being delivered is recorded and
//    delivered by a new task after the running callback has returned, so the callback is never
//    concurrent with itself (completion-handling requirements page, rule 14). Each delivery
//    task holds a reference and a begin_busy() span on the CQ, so a close waits for it, and it
//    skips the call once a close has been requested, so nothing is called after the close
//    completion (ddi/nc-ndkpi-ndk_fn_arm_cq.md remarks). The delivery task runs
//    device_config::notification_interrupt (the profile's host.interrupt_ns) after the
//    notification was requested: the modelled interrupt that wakes the consumer.
//
// Overrun (rule 15, ddi/nc-ndkpi-ndk_fn_cq_notification_callback.md): a post that finds the
// ring full kills the CQ. The completion is dropped, post() returns status::buffer_overflow
// (and does so for every later post), overrun() becomes true, the arm is cleared and the
// notification callback is called once with STATUS_BUFFER_OVERFLOW whether the CQ was armed
// or not: the arm gates "completions are queued" notifications, while an overrun is a fatal
// CQ error the consumer must learn about even if it only polls. Entries queued before the
// overrun stay retrievable. The QP engine owns the consequence for its QPs: on a
// buffer_overflow from post(), or when it finds overrun() true, it moves every QP using the CQ
// to the error state (the QPs "are also unusable").

#include <array>
#include <atomic>
#include <cstdint>

#include "core/callbacks.hpp"
#include "core/completion_ring.hpp"
#include "core/object.hpp"
#include "core/outstanding_contexts.hpp"
#include "core/work_request.hpp"
#include "util/access_gate.hpp"
#include "util/verifier.hpp"

namespace ndksim::core {

struct adapter_limits;

/// The Type argument of NdkArmCq; the values are NDK_CQ_NOTIFY_* (REFERENCE.md 2.5).
enum class notify_type : std::uint8_t { errors = 0, any = 1, solicited = 2 };

/// Number of notify_type values; a Type at or above it is a consumer error.
inline constexpr std::uint32_t k_notify_type_count = 3;

/// The arm left after arming `second` while `first` is still armed (merge table of
/// concepts/ndkpi-completion-handling-requirements.md; rule 14): ANY wins over everything,
/// SOLICITED wins over ERRORS.
constexpr notify_type merge_arm(notify_type first, notify_type second) noexcept;

/// True when completion `c` satisfies an arm of type `t` (rule 14; ddi/nc-ndkpi-ndk_fn_arm_cq.md):
/// ANY by every completion, SOLICITED by a solicited or an error completion, ERRORS by an
/// error completion only.
constexpr bool satisfies(notify_type t, const completion& c) noexcept;

class cq final : public object {
  public:
    /// NdkCreateCq limits: 0 < depth <= MaxCqDepth, else invalid_parameter
    /// (ddi/nc-ndkpi-ndk_fn_create_cq.md).
    [[nodiscard]] static status check_create(const adapter_limits& limits, std::uint32_t depth,
                                             bool has_notification) noexcept;

    /// Creates a CQ with a ring of `depth` entries; call check_create first. Throws
    /// std::bad_alloc.
    static ref<cq> create(adapter& handle, std::uint32_t depth, notify_fn notify);

    // ---- engine side -----------------------------------------------------------------------

    /// Queues one completion (from a task of dev().sched() only; flush uses it for its
    /// STATUS_CANCELLED completions too). Returns status::success when queued, or
    /// status::buffer_overflow when the CQ is dead: this post overran it (the entry is dropped
    /// and the overrun notification is scheduled) or an earlier one did. On buffer_overflow the
    /// engine moves the posting QP, and every other QP using this CQ, to error. May schedule a
    /// notification task; never calls the consumer. No allocation beyond the scheduler's.
    /// `overrun`: a fault script overruns the CQ with this completion, as if the ring were full.
    [[nodiscard]] status post(const completion& c, bool overrun = false);

    /// True once a post has overrun the CQ (rule 15): it accepts no more completions and the
    /// QPs using it are unusable.
    bool overrun() const noexcept;

    // ---- consumer side ---------------------------------------------------------------------

    /// NdkArmCq (rule 14): merges `type` into the current arm (merge_arm). If completions
    /// newer than the last notification that satisfy the merged arm are already queued, the
    /// arm is satisfied at once and the notification is delivered by a task, never from this
    /// call. Ignored on a dead CQ and once a close has been requested.
    void arm(notify_type type);

    /// NdkGetCqResults / NdkGetCqResultsEx: removes up to `max` entries, oldest first, calling
    /// `fill(index, entry)` for each with index 0, 1, ... while the CQ is locked (fill must not
    /// call into the CQ). Returns the number removed (0 when empty).
    /// With the verifier on, each entry removed is a completion the consumer retrieved, and
    /// its request stops being outstanding (rule 17, core/context_ledger.hpp).
    template <class Fill>
    std::uint32_t poll(std::uint32_t max, Fill&& fill);

    /// Number of completions queued.
    std::uint32_t queued() const noexcept;

    /// NdkResizeCq checks (ddi/nc-ndkpi-ndk_fn_resize_cq.md): invalid_parameter when depth is 0
    /// or above MaxCqDepth, or below the number of completions queued now (they must be kept);
    /// invalid_device_state on a dead CQ (rule 15: the CQ is unusable). Pure.
    [[nodiscard]] status check_resize(std::uint32_t depth) const noexcept;

    /// Resizes the ring to `depth` entries keeping the queued entries in order. Allocates
    /// before entering the gate; re-checks inside it because the engine may have queued more since
    /// check_resize. Returns success, invalid_parameter (more queued than `depth` by now),
    /// invalid_device_state (overrun meanwhile) or insufficient_resources (allocation failed).
    [[nodiscard]] status apply_resize(std::uint32_t depth) noexcept;

    /// NdkControlCqInterruptModeration (ddi/nc-ndkpi-ndk_fn_control_cq_interrupt_moderation.md):
    /// not_supported without the adapter flag; invalid_parameter_mix for Interval = MAXULONG
    /// with Count = MAXULONG or Count > depth; never pends.
    [[nodiscard]] status check_moderation(std::uint32_t interval_us,
                                          std::uint32_t count) const noexcept;

    /// Stores the moderation setting (rule 17); it applies from the next satisfied arm.
    /// Moderation is on when interval_us > 0 and count > 1 (the ddi page: interval 0, or count
    /// 0 or 1, means none). Then a satisfied arm's notification waits until `count` completions
    /// have been queued since the arm was satisfied, or `interval_us` [microseconds] of
    /// simulated time have passed since then, whichever comes first; interval_us = MAXULONG
    /// drops the time bound, count = MAXULONG or count > depth drops the count bound.
    void apply_moderation(std::uint32_t interval_us, std::uint32_t count) noexcept;

    std::uint32_t depth() const noexcept;
    std::uint32_t moderation_interval_us() const noexcept;
    std::uint32_t moderation_count() const noexcept;

    /// The consumer serializes NdkGetCqResults(Ex) and NdkArmCq per CQ (rule 13); the
    /// verifier checks it.
    verifier::serial_section poll_section;

  private:
    cq(adapter& handle, std::uint32_t depth, notify_fn notify);

    void on_close_requested() override;

    // All *_locked members run inside the gate.
    void on_removed_locked(const completion& c) noexcept;
    // Synchronized time: tells the sync domain what a poll handed the consumer.
    void polled_locked(std::uint32_t returned) noexcept;
    void arm_satisfied_locked(std::uint32_t already_queued);
    void request_notification_locked(status s);
    void schedule_delivery_locked();
    void deliver();
    void moderation_expired(std::uint64_t generation);
    void verify_arm() const;

    static constexpr std::uint8_t k_unarmed = 0xFF;

    notify_fn notify_;
    const verifier::checker* verifier_;  // the device's, read by the inline poll()
    outstanding_contexts* contexts_;     // the device's, likewise
    const bool synced_;                  // the device runs in synchronized time

    mutable util::access_gate gate_;
    completion_ring ring_;
    // ring_.size(), stored inside the gate after every change; read outside it by poll() and
    // queued().
    std::atomic<std::uint32_t> queued_{0};
    // Sequence numbers of entries ever pushed and popped: the head entry's number is popped_,
    // and an entry is newer than the last notification when its number is >= mark_.
    std::uint64_t pushed_ = 0;
    std::uint64_t popped_ = 0;
    std::uint64_t mark_ = 0;
    // Per notify_type: queued entries newer than the last notification that satisfy it.
    std::array<std::uint32_t, k_notify_type_count> newer_{};
    std::uint8_t arm_ = k_unarmed;  // a notify_type value, or k_unarmed
    // Written inside the gate; overrun() reads it outside, once per completion the
    // engine writes.
    std::atomic<bool> dead_{false};
    // Delivery: a notification is owed (pending_) with pending_status_; a delivery task is
    // queued or running (delivery_active_).
    bool pending_ = false;
    status pending_status_ = status::success;
    bool delivery_active_ = false;
    // Moderation setting (rule 17; default off) and the current window.
    std::uint32_t moderation_interval_us_ = 0;
    std::uint32_t moderation_count_ = 0;
    bool moderating_ = false;
    std::uint32_t moderated_ = 0;               // completions counted in the current window
    std::uint32_t moderation_count_bound_ = 0;  // the window closes at this count
    std::uint64_t moderation_generation_ = 0;   // invalidates stale window timers
    // Synchronized time: entries of the ring the sync domain counts as shown and not yet
    // polled (the oldest ones are always counted first).
    std::uint32_t counted_ = 0;
    // Verifier only (rule 14): whether the consumer retrieved completions since the running
    // notification started, and whether the current arm was made over completions older than
    // the last notification (stale_arm_entries_ of them) with no poll since.
    std::atomic<bool> polled_since_notification_{false};
    std::uint32_t stale_arm_entries_ = 0;
};

// ---- inline definitions ----------------------------------------------------------------------

namespace cq_tables {

// k_merge[first][second], indexed by notify_type (errors, any, solicited).
inline constexpr std::array<std::array<notify_type, k_notify_type_count>, k_notify_type_count>
    k_merge{{
        // second:  errors               any               solicited
        {{notify_type::errors, notify_type::any, notify_type::solicited}},     // first errors
        {{notify_type::any, notify_type::any, notify_type::any}},              // first any
        {{notify_type::solicited, notify_type::any, notify_type::solicited}},  // first solicited
    }};

// Completion categories for k_satisfies.
inline constexpr std::size_t k_plain = 0;
inline constexpr std::size_t k_solicited = 1;
inline constexpr std::size_t k_error = 2;

// k_satisfies[arm][category].
inline constexpr std::array<std::array<bool, 3>, k_notify_type_count> k_satisfies{{
    // category:  plain  solicited  error
    {{false, false, true}},  // errors
    {{true, true, true}},    // any
    {{false, true, true}},   // solicited
}};

constexpr std::size_t category(const completion& c) noexcept {
    return is_error(c) ? k_error : (c.solicited ? k_solicited : k_plain);
}

static_assert(k_merge[1][0] == notify_type::any && k_merge[0][2] == notify_type::solicited &&
                  k_merge[2][0] == notify_type::solicited,
              "ANY wins over everything, SOLICITED wins over ERRORS");

}  // namespace cq_tables

constexpr notify_type merge_arm(notify_type first, notify_type second) noexcept {
    return cq_tables::k_merge[static_cast<std::size_t>(first)][static_cast<std::size_t>(second)];
}

constexpr bool satisfies(notify_type t, const completion& c) noexcept {
    return cq_tables::k_satisfies[static_cast<std::size_t>(t)][cq_tables::category(c)];
}

template <class Fill>
std::uint32_t cq::poll(std::uint32_t max, Fill&& fill) {
    // A consumer that spins on an empty CQ takes no lock: with no verifier and no synchronized
    // time, a poll that finds nothing changes nothing, and seeing the count before a concurrent
    // post puts this poll before that post.
    if (!synced_ && queued_.load(std::memory_order_acquire) == 0 && !verifier_->on()) {
        return 0;
    }
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    bool retrieving = false;
    if (verifier_->on()) [[unlikely]] {
        polled_since_notification_.store(true, std::memory_order_relaxed);
        stale_arm_entries_ = 0;
        retrieving = contexts_->tracking();
    }
    std::uint32_t n = 0;
    while (n < max && !ring_.empty()) {
        const completion& c = ring_.front();
        fill(n, c);
        if (retrieving && c.request_context != nullptr) [[unlikely]] {
            contexts_->retrieved(c.queue, c.request_context);
        }
        on_removed_locked(c);
        ring_.pop();
        ++n;
    }
    queued_.store(ring_.size(), std::memory_order_release);
    polled_locked(n);
    return n;
}

}  // namespace ndksim::core
