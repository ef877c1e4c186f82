// SPDX-License-Identifier: MIT
#pragma once
// A shared receive queue (NDK_SRQ): its posted receives, its SGE limit and its notify
// threshold.
//
// Notify threshold (ddi/nc-ndkpi-ndk_fn_modify_srq.md, create_srq.md,
// srq_notification_callback.md): a non-zero threshold arms the notification; it fires once
// when the number of queued receives is below the threshold after the engine takes one, and
// the SRQ is then disarmed until NdkModifySrq arms it again with a non-zero threshold.
// NdkModifySrq also fires at once (from a task, never inline) when the queue is already below
// the new threshold; a threshold of 0 keeps the threshold and the arm state. NdkCreateSrq arms
// without that immediate check: a new SRQ is empty by construction, so the check would always
// fire, before the consumer could post its first receives. A NULL SrqNotification makes every
// firing a no-op (the arm is still consumed).
//
// Concurrency: the receive_queue has its own access gate (see receive_queue.hpp). notify_mutex_
// guards the threshold, the arm and the delivery flags; it is never held inside the queue's
// gate nor while the consumer's callback runs. The engine's take() looks at the arm (an
// atomic) first and takes the mutex only when the SRQ is armed. Deliveries are serialized as the
// CQ's are (core/cq.hpp): one delivery task at a time, holding a reference and a begin_busy() span
// so a close waits for it, skipping the call once a close has been requested.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "core/callbacks.hpp"
#include "core/object.hpp"
#include "core/receive_queue.hpp"
#include "util/verifier.hpp"

namespace ndksim::core {

struct adapter_limits;
class pd;

class srq final : public object {
  public:
    /// NdkCreateSrq limits (ddi/nc-ndkpi-ndk_fn_create_srq.md): 0 < depth <= MaxSrqDepth
    /// (an adapter with MaxSrqDepth 0 has no SRQs), max_sge <= MaxReceiveRequestSge; else
    /// invalid_parameter.
    [[nodiscard]] static status check_create(const adapter_limits& limits, std::uint32_t depth,
                                             std::uint32_t max_sge) noexcept;

    /// Creates the SRQ with depth * max_sge SGE slots; arms the notification when
    /// notify_threshold > 0. Call check_create first. Throws std::bad_alloc.
    static ref<srq> create(pd& owner, std::uint32_t depth, std::uint32_t max_sge,
                           std::uint32_t notify_threshold, notify_fn notify);

    // ---- consumer side ---------------------------------------------------------------------

    /// NdkSrqReceive: see receive_queue::post (invalid_parameter when count > max_sge(),
    /// insufficient_resources when depth() receives are outstanding).
    [[nodiscard]] status post(void* context, const sge* sges, std::uint32_t count) noexcept {
        return rq_.post(context, sges, count);
    }

    /// NdkModifySrq checks (ddi/nc-ndkpi-ndk_fn_modify_srq.md): depth 0 keeps the depth; a
    /// depth above MaxSrqDepth, or below the receives outstanding now (they are kept), is
    /// invalid_parameter. Pure.
    [[nodiscard]] status check_modify(std::uint32_t depth) const noexcept;

    /// Applies NdkModifySrq: resizes the queue when depth != 0 (see receive_queue::resize; it
    /// re-checks the outstanding count, so invalid_parameter or insufficient_resources may
    /// still come back, and then nothing changed), then, when notify_threshold != 0, sets the
    /// threshold, arms, and fires at once (from a task) if fewer receives than the threshold
    /// are queued. Returns success or the resize failure.
    [[nodiscard]] status apply_modify(std::uint32_t depth, std::uint32_t notify_threshold);

    // ---- engine side -----------------------------------------------------------------------

    /// Takes the oldest queued receive for an incoming message (see receive_queue::take); its
    /// slot stays held until release_receive(). Fires the notification when armed and the
    /// queue is now below the threshold. Returns false when no receive is queued.
    bool take(received& out);

    /// Frees the slot of a taken receive once its completion has been queued.
    void release_receive(std::uint32_t slot) noexcept { rq_.release(slot); }

    /// Flush support: see receive_queue::drain.
    template <class Visit>
    std::uint32_t drain(Visit&& visit) {
        return rq_.drain(static_cast<Visit&&>(visit));
    }

    /// Receives queued (posted and not taken).
    std::uint32_t queued() const noexcept { return rq_.size(); }

    /// The device's id of this queue, which completions of its receives carry
    /// (completion::queue).
    std::uint32_t queue_id() const noexcept { return queue_id_; }

    std::uint32_t depth() const noexcept { return rq_.depth(); }
    std::uint32_t max_sge() const noexcept { return rq_.max_sge(); }
    std::uint32_t notify_threshold() const noexcept;
    bool notify_armed() const noexcept;

    /// The consumer serializes NdkSrqReceive (rule 8); the verifier checks it.
    verifier::serial_section post_section;

  private:
    srq(pd& owner, std::uint32_t depth, std::uint32_t max_sge, std::uint32_t notify_threshold,
        notify_fn notify);
    ~srq() override;

    void on_close_requested() override;

    // *_locked members require notify_mutex_.
    void fire_locked();
    void schedule_delivery_locked();
    void deliver();

    receive_queue rq_;
    std::uint32_t queue_id_;
    notify_fn notify_;

    mutable std::mutex notify_mutex_;
    std::uint32_t notify_threshold_;
    // Written under notify_mutex_; take() reads it without the lock first.
    std::atomic<bool> armed_;
    bool pending_ = false;          // a notification is owed
    bool delivery_active_ = false;  // a delivery task is queued or running
};

}  // namespace ndksim::core
