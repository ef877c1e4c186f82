// SPDX-License-Identifier: MIT
#include "core/srq.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "core/pd.hpp"
#include "util/log.hpp"

namespace ndksim::core {

status srq::check_create(const adapter_limits& limits, std::uint32_t depth,
                         std::uint32_t max_sge) noexcept {
    if (depth == 0 || depth > limits.max_srq_depth || max_sge > limits.max_receive_request_sge) {
        return status::invalid_parameter;
    }
    return status::success;
}

srq::srq(pd& owner, std::uint32_t depth, std::uint32_t max_sge, std::uint32_t notify_threshold,
         notify_fn notify)
    : object(object_kind::srq, owner.dev(), &owner.handle(), &owner),
      rq_(depth, max_sge),
      queue_id_(owner.dev().contexts().new_queue()),
      notify_(std::move(notify)),
      notify_threshold_(notify_threshold),
      armed_(notify_threshold != 0) {}

srq::~srq() {
    dev().contexts().forget(queue_id_);
}

ref<srq> srq::create(pd& owner, std::uint32_t depth, std::uint32_t max_sge,
                     std::uint32_t notify_threshold, notify_fn notify) {
    return ref<srq>(new srq(owner, depth, max_sge, notify_threshold, std::move(notify)), false);
}

std::uint32_t srq::notify_threshold() const noexcept {
    std::lock_guard lock(notify_mutex_);
    return notify_threshold_;
}

bool srq::notify_armed() const noexcept {
    std::lock_guard lock(notify_mutex_);
    return armed_.load(std::memory_order_relaxed);
}

status srq::check_modify(std::uint32_t depth) const noexcept {
    if (depth > dev().limits().max_srq_depth) {
        return status::invalid_parameter;
    }
    // Posted receives are kept, so a new depth must hold every outstanding one.
    if (depth != 0 && depth < rq_.outstanding()) {
        return status::invalid_parameter;
    }
    return status::success;
}

status srq::apply_modify(std::uint32_t depth, std::uint32_t notify_threshold) {
    if (depth != 0) {
        const status s = rq_.resize(depth);
        if (s != status::success) {
            return s;
        }
    }
    // "If a threshold value of zero is specified, the provider must preserve the current SRQ
    // notification threshold and arming status" (ddi/nc-ndkpi-ndk_fn_modify_srq.md).
    if (notify_threshold == 0) {
        return status::success;
    }
    std::lock_guard lock(notify_mutex_);
    notify_threshold_ = notify_threshold;
    // Armed first, counted after (both sequentially consistent): an engine take that does not
    // see the arm (take) took its receive before this count, which then sees it.
    armed_.store(true, std::memory_order_seq_cst);
    // "If the number of queued receive requests is already below the threshold value at the
    // time of this function call, an SRQ notification must be generated."
    if (rq_.size() < notify_threshold_) {
        fire_locked();
    }
    return status::success;
}

bool srq::take(received& out) {
    if (!rq_.take(out)) {
        return false;
    }
    // An unarmed SRQ (the common case: a consumer arms it only to learn it runs low) costs the
    // engine no lock per receive. An arm this load misses is counted after this take
    // (apply_modify arms, then counts), so that count fires for it.
    if (!armed_.load(std::memory_order_seq_cst)) {
        return true;
    }
    std::lock_guard lock(notify_mutex_);
    if (armed_.load(std::memory_order_relaxed) && rq_.size() < notify_threshold_) {
        fire_locked();
    }
    return true;
}

void srq::fire_locked() {
    // One notification per arm: disarmed until NdkModifySrq re-arms.
    armed_.store(false, std::memory_order_relaxed);
    if (!notify_) {
        return;
    }
    pending_ = true;
    if (!delivery_active_ && is_open()) {
        delivery_active_ = true;
        schedule_delivery_locked();
    }
}

void srq::schedule_delivery_locked() {
    post_held(*this, 0, [this] { deliver(); });
}

void srq::deliver() {
    bool call = false;
    {
        std::lock_guard lock(notify_mutex_);
        call = pending_ && is_open();
        pending_ = false;
    }
    if (call) {
        NDKSIM_TRACE("{}: notification (threshold reached)", ident());
        notify_(static_cast<std::int32_t>(status::success));
    }
    std::lock_guard lock(notify_mutex_);
    // A re-arm from inside the callback that fires at once is delivered after it returned.
    if (pending_ && is_open()) {
        schedule_delivery_locked();
    } else {
        delivery_active_ = false;
    }
}

void srq::on_close_requested() {
    std::lock_guard lock(notify_mutex_);
    armed_.store(false, std::memory_order_relaxed);
}

}  // namespace ndksim::core
