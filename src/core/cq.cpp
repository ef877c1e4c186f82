// SPDX-License-Identifier: MIT
#include "core/cq.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "timing/sync_domain.hpp"
#include "util/log.hpp"

namespace ndksim::core {
namespace {

constexpr std::uint32_t k_maxulong = 0xFFFFFFFFu;

// The moderation window a satisfied arm opens
// (ddi/nc-ndkpi-ndk_fn_control_cq_interrupt_moderation.md).
struct moderation_window {
    bool active;
    std::uint32_t count;        // 0: no count bound
    timing::sim_time interval;  // [ps]; 0: no time bound
};

moderation_window resolve_moderation(std::uint32_t interval_us, std::uint32_t count,
                                     std::uint32_t depth) noexcept {
    // "If ModerationInterval is zero, the provider performs no interrupt moderation"; a count
    // of zero or one means the same.
    if (interval_us == 0 || count <= 1) {
        return {false, 0, 0};
    }
    // "If ModerationCount is MAXULONG or larger than the depth of the CQ, ModerationInterval
    // controls"; "If ModerationInterval is MAXULONG, the ModerationCount controls".
    const std::uint32_t count_bound = (count == k_maxulong || count > depth) ? 0 : count;
    const timing::sim_time interval_bound =
        interval_us == k_maxulong ? 0 : timing::microseconds(interval_us);
    if (count_bound == 0 && interval_bound == 0) {
        return {false, 0, 0};
    }
    return {true, count_bound, interval_bound};
}

}  // namespace

status cq::check_create(const adapter_limits& limits, std::uint32_t depth,
                        bool has_notification) noexcept {
    // The notification callback is a required parameter of NdkCreateCq.
    if (!has_notification || depth == 0 || depth > limits.max_cq_depth) {
        return status::invalid_parameter;
    }
    return status::success;
}

cq::cq(adapter& handle, std::uint32_t depth, notify_fn notify)
    : object(object_kind::cq, handle.dev(), &handle, &handle),
      notify_(std::move(notify)),
      verifier_(&handle.dev().verifier()),
      contexts_(&handle.dev().contexts()),
      synced_(handle.dev().sync() != nullptr),
      ring_(depth) {}

ref<cq> cq::create(adapter& handle, std::uint32_t depth, notify_fn notify) {
    return ref<cq>(new cq(handle, depth, std::move(notify)), false);
}

std::uint32_t cq::depth() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    return ring_.capacity();
}

std::uint32_t cq::queued() const noexcept {
    return queued_.load(std::memory_order_acquire);
}

bool cq::overrun() const noexcept {
    return dead_.load(std::memory_order_acquire);
}

std::uint32_t cq::moderation_interval_us() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    return moderation_interval_us_;
}

std::uint32_t cq::moderation_count() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    return moderation_count_;
}

status cq::post(const completion& c, bool overrun) {
    // The engine is the gate's reader: no lock unless a consumer call is inside.
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    if (dead_) {
        return status::buffer_overflow;
    }
    if (overrun || !ring_.push(c)) {
        // Rule 15: the CQ is dead from here on; one STATUS_BUFFER_OVERFLOW notification.
        dead_.store(true, std::memory_order_release);
        arm_ = k_unarmed;
        moderating_ = false;
        ++moderation_generation_;
        request_notification_locked(status::buffer_overflow);
        return status::buffer_overflow;
    }
    ++pushed_;
    queued_.store(ring_.size(), std::memory_order_release);
    // Synchronized time: a completion the consumer polls for is shown to it now, while one it
    // waits to be notified of (armed, or a notification on its way) is shown by the callback.
    if (timing::sync_domain* d = dev().sync();
        d != nullptr && arm_ == k_unarmed && !delivery_active_ && !moderating_ && is_open()) {
        ++counted_;
        d->completion_queued();
    }
    for (std::size_t t = 0; t < k_notify_type_count; ++t) {
        newer_[t] += satisfies(static_cast<notify_type>(t), c) ? 1 : 0;
    }
    if (arm_ != k_unarmed && satisfies(static_cast<notify_type>(arm_), c)) {
        arm_ = k_unarmed;
        if (!moderating_) {
            arm_satisfied_locked(1);
            return status::success;
        }
    }
    if (moderating_ && ++moderated_ >= moderation_count_bound_) {
        moderating_ = false;
        ++moderation_generation_;
        request_notification_locked(status::success);
    }
    return status::success;
}

namespace {
// The CQ whose notification callback this thread is running (verifier only).
thread_local const cq* t_notifying = nullptr;
}  // namespace

void cq::verify_arm() const {
    if (t_notifying == this && !polled_since_notification_.load(std::memory_order_relaxed)) {
        dev().verifier().raise(verifier::rule::rearm_before_drain, ident(), "NdkArmCq",
                               status::success,
                               "armed from inside its notification callback before any "
                               "NdkGetCqResults: completions queued before the notification "
                               "will not fire the new arm");
    }
}

void cq::arm(notify_type type) {
    const bool verify = dev().verifier().on();
    if (verify) [[unlikely]] {
        verify_arm();
    }
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    if (dead_ || !is_open()) {
        NDKSIM_DEBUG("{}: arm ignored ({})", ident(), dead_ ? "overrun" : "closing");
        return;
    }
    const notify_type merged =
        arm_ == k_unarmed ? type : merge_arm(static_cast<notify_type>(arm_), type);
    // Completions newer than the last notification already queued satisfy the arm at once
    // (completion-handling requirements page); the notification still comes from a task.
    const std::uint32_t newer = newer_[static_cast<std::size_t>(merged)];
    if (newer != 0) {
        arm_ = k_unarmed;
        arm_satisfied_locked(newer_[static_cast<std::size_t>(notify_type::any)]);
        return;
    }
    arm_ = static_cast<std::uint8_t>(merged);
    if (verify && mark_ > popped_) [[unlikely]] {
        stale_arm_entries_ = static_cast<std::uint32_t>(mark_ - popped_);
    }
}

void cq::on_removed_locked(const completion& c) noexcept {
    if (popped_ >= mark_) {
        for (std::size_t t = 0; t < k_notify_type_count; ++t) {
            newer_[t] -= satisfies(static_cast<notify_type>(t), c) ? 1 : 0;
        }
    }
    ++popped_;
}

void cq::arm_satisfied_locked(std::uint32_t already_queued) {
    if (moderating_) {
        return;  // the open window's notification answers this arm as well
    }
    // Rule 17: with moderation on, the notification waits for `count` completions since the
    // arm was satisfied (the satisfying ones included) or for the interval, whichever is first.
    const moderation_window w =
        resolve_moderation(moderation_interval_us_, moderation_count_, ring_.capacity());
    if (!w.active || (w.count != 0 && already_queued >= w.count)) {
        request_notification_locked(status::success);
        return;
    }
    moderating_ = true;
    moderated_ = already_queued;
    moderation_count_bound_ = w.count == 0 ? k_maxulong : w.count;
    const std::uint64_t generation = ++moderation_generation_;
    if (w.interval != 0) {
        add_ref();
        dev().sched().post_after(w.interval, [this, generation] {
            moderation_expired(generation);
            release();
        });
    }
}

void cq::moderation_expired(std::uint64_t generation) {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    if (!moderating_ || generation != moderation_generation_) {
        return;
    }
    moderating_ = false;
    request_notification_locked(status::success);
}

void cq::request_notification_locked(status s) {
    // An overrun supersedes a success notification not delivered yet: one callback reports both.
    if (!pending_ || s != status::success) {
        pending_status_ = s;
    }
    pending_ = true;
    if (!delivery_active_ && is_open()) {
        delivery_active_ = true;
        schedule_delivery_locked();
    }
}

void cq::schedule_delivery_locked() {
    // The consumer learns of the notification through an interrupt (MSI-X) that wakes it:
    // every callback is delivered host.interrupt_ns after it was requested (docs/timing.md,
    // "Interrupts"). Polling (NdkGetCqResults) pays nothing: the entry is in the ring already.
    post_held(*this, dev().config().notification_interrupt, [this] { deliver(); });
}

void cq::deliver() {
    status s = status::success;
    bool call = false;
    {
        const util::access_gate::hold in(gate_, util::access_gate::side::other);
        if (pending_) {
            pending_ = false;
            s = pending_status_;
            // Every entry queued now is no longer newer than the last notification.
            mark_ = pushed_;
            newer_.fill(0);
            call = is_open();
            if (timing::sync_domain* d = dev().sync(); d != nullptr && call) {
                d->completions_announced(ring_.size() - counted_);
                counted_ = ring_.size();
            }
        }
    }
    if (call) {
        NDKSIM_TRACE("{}: notification {}", ident(), s);
        const bool verify = dev().verifier().on();
        const cq* outer = t_notifying;
        if (verify) [[unlikely]] {
            polled_since_notification_.store(false, std::memory_order_relaxed);
            t_notifying = this;
        }
        notify_(static_cast<std::int32_t>(s));
        if (verify) [[unlikely]] {
            t_notifying = outer;
        }
    }
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    // A notification requested while the callback ran (a re-arm from inside it, or the
    // engine) is delivered by a new task, after this callback has returned (rule 14).
    if (pending_ && is_open()) {
        schedule_delivery_locked();
    } else {
        delivery_active_ = false;
    }
}

void cq::polled_locked(std::uint32_t returned) noexcept {
    timing::sync_domain* d = dev().sync();
    if (d == nullptr) {
        return;
    }
    const std::uint32_t left = std::min(counted_, ring_.size());
    d->completions_polled(counted_ - left, returned);
    counted_ = left;
}

void cq::on_close_requested() {
    std::uint32_t stale = 0;
    {
        const util::access_gate::hold in(gate_, util::access_gate::side::other);
        if (timing::sync_domain* d = dev().sync()) {
            // Nobody polls a closed CQ: its entries no longer hold simulated time.
            d->completions_dropped(counted_);
            counted_ = 0;
        }
        if (arm_ != k_unarmed) {
            stale = stale_arm_entries_;
        }
        arm_ = k_unarmed;
        moderating_ = false;
        ++moderation_generation_;
    }
    if (stale != 0 && dev().verifier().on()) [[unlikely]] {
        dev().verifier().raise(
            verifier::rule::armed_with_stale_completions, ident(), "NdkCloseCq", status::success,
            fmt::format("the CQ was armed with {} completions queued from before its last "
                        "notification and closed still armed, none retrieved: a consumer "
                        "waiting for that arm waited for ever",
                        stale));
    }
}

status cq::check_resize(std::uint32_t depth) const noexcept {
    if (depth == 0 || depth > dev().limits().max_cq_depth) {
        return status::invalid_parameter;
    }
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    if (dead_) {
        return status::invalid_device_state;
    }
    // The queued entries are kept, so the new depth must hold them.
    if (depth < ring_.size()) {
        return status::invalid_parameter;
    }
    return status::success;
}

status cq::apply_resize(std::uint32_t depth) noexcept {
    try {
        completion_ring fresh(depth);
        {
            const util::access_gate::hold in(gate_, util::access_gate::side::other);
            if (dead_) {
                return status::invalid_device_state;
            }
            if (depth < ring_.size()) {
                return status::invalid_parameter;
            }
            fresh.take_all(ring_);
            std::swap(fresh, ring_);
        }
        NDKSIM_DEBUG("{}: resized to {}", ident(), depth);
        return status::success;
    } catch (const std::bad_alloc&) {
        NDKSIM_ERROR("{}: resize to {} entries: out of memory", ident(), depth);
        return status::insufficient_resources;
    }
}

status cq::check_moderation(std::uint32_t interval_us, std::uint32_t count) const noexcept {
    if ((dev().limits().adapter_flags & adapter_flag::cq_interrupt_moderation) == 0) {
        return status::not_supported;
    }
    if (interval_us == k_maxulong && (count == k_maxulong || count > depth())) {
        return status::invalid_parameter_mix;
    }
    return status::success;
}

void cq::apply_moderation(std::uint32_t interval_us, std::uint32_t count) noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    moderation_interval_us_ = interval_us;
    moderation_count_ = count;
}

}  // namespace ndksim::core
