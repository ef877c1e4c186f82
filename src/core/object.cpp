// SPDX-License-Identifier: MIT
#include "core/object.hpp"

#include <cstdio>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "util/log.hpp"

namespace ndksim::core {

std::string_view kind_name(object_kind kind) noexcept {
    static constexpr std::array<std::string_view, 11> k_names{"undefined", "adapter",  "qp", "cq",
                                                              "mr",        "mw",       "pd", "sep",
                                                              "connector", "listener", "srq"};
    const auto i = static_cast<std::size_t>(kind);
    return i < k_names.size() ? k_names[i] : "unknown";
}

object::object(object_kind kind, device& dev, adapter* handle, object* parent)
    : kind_(kind), dev_(&dev), handle_(handle), parent_(parent) {
    abi_.owner = this;
    abi_.magic = abi_slot::k_magic;
    if (kind != object_kind::adapter) {
        const std::string_view k = kind_name(kind);
        std::snprintf(ident_.data(), ident_.size(), "%s/h%u/%.*s#%u", dev.name().c_str(),
                      handle->number(), static_cast<int>(k.size()), k.data(),
                      dev.next_object_number());
    }
    if (parent != nullptr) {
        add_antecedent(*parent);
        std::lock_guard lock(parent->mutex_);
        parent->children_.push_back(*this);
    }
    dev.object_created();
}

void object::set_handle_ident(std::uint32_t number) {
    std::snprintf(ident_.data(), ident_.size(), "%s/h%u", dev_->name().c_str(), number);
}

object::~object() {
    NDKSIM_TRACE("{}: destroyed", ident());
}

void object::release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete this;
    }
}

void object::add_antecedent(object& antecedent) {
    antecedent.add_successor();
    antecedent.add_ref();
    std::lock_guard lock(mutex_);
    if (antecedent_count_ == antecedents_.size()) {
        // Every kind has at most four antecedents (a QP: PD, two CQs, SRQ; a connector:
        // handle, QP, listener or shared endpoint); reaching this is a bug, not consumer input.
        NDKSIM_ERROR("{}: more than {} antecedents", ident(), antecedents_.size());
        antecedent.successor_closed();
        antecedent.release();
        return;
    }
    antecedents_[antecedent_count_++] = &antecedent;
}

status object::close(close_fn done) {
    {
        std::lock_guard lock(mutex_);
        if (state_.load(std::memory_order_relaxed) != state::open) {
            NDKSIM_ERROR("{}: closed twice; the second close is ignored", ident());
            return status::success;
        }
        state_.store(state::closing, std::memory_order_release);
        close_done_ = std::move(done);
    }
    // Held until this call returns: once the close is pending, an engine thread may complete
    // it and drop the consumer's reference at any moment, and this call still reads the object.
    const ref<object> self(this);
    NDKSIM_DEBUG("{}: close requested ({} successors open, {} busy)", ident(), successors_.load(),
                 busy_.load());
    on_close_requested();
    const bool pend = dev_->policy().should_pend();
    bool pending = false;
    {
        std::lock_guard lock(mutex_);
        pending = pend || successors_.load(std::memory_order_acquire) != 0 ||
                  busy_.load(std::memory_order_acquire) != 0;
        close_pending_ = pending;
    }
    if (!pending) {
        close_done_.reset();
        finish_close();
        return status::success;
    }
    maybe_complete_close();
    return status::pending;
}

void object::force_close() {
    {
        std::lock_guard lock(mutex_);
        if (state_.load(std::memory_order_relaxed) == state::closed) {
            return;
        }
        state_.store(state::closing, std::memory_order_release);
    }
    on_close_requested();
    finish_close();
}

void object::maybe_complete_close() {
    {
        std::lock_guard lock(mutex_);
        if (state_.load(std::memory_order_relaxed) != state::closing || !close_pending_ ||
            close_scheduled_ || successors_.load(std::memory_order_acquire) != 0 ||
            busy_.load(std::memory_order_acquire) != 0) {
            return;
        }
        close_scheduled_ = true;
    }
    add_ref();
    dev_->sched().post_after(dev_->limits().control_latency_ps, [this] {
        close_fn done;
        {
            std::lock_guard lock(mutex_);
            done = std::move(close_done_);
        }
        NDKSIM_DEBUG("{}: close completes", ident());
        // The object counts as closed, and kind-specific resources (a listener's port) are
        // released, before the consumer hears the close completed: from its close completion
        // on, it may reuse them (rule 25) and the counters agree with it.
        release_resources();
        if (done) {
            done();
        }
        finish_close(/*resources_released=*/true);
        release();
    });
}

void object::finish_close(bool resources_released) {
    state_.store(state::closed, std::memory_order_release);
    // Counted closed before any antecedent is told, so a waiter released by the last
    // successor_closed() (CLOSE_NDK_ADAPTER_HANDLER) sees this object gone.
    if (!resources_released) {
        release_resources();
    }
    if (parent_ != nullptr) {
        std::lock_guard lock(parent_->mutex_);
        parent_->children_.erase(parent_->children_.iterator_to(*this));
    }
    // Successor-closed notifications go out only after this object's own close completion has
    // returned (rule 6: an antecedent completes "not before any successor's close-completion
    // callback has returned").
    std::array<object*, 4> antecedents{};
    std::size_t count = 0;
    {
        std::lock_guard lock(mutex_);
        antecedents = antecedents_;
        count = antecedent_count_;
        antecedent_count_ = 0;
    }
    for (std::size_t i = 0; i < count; ++i) {
        antecedents[i]->successor_closed();
        antecedents[i]->release();
    }
    release();  // the consumer's reference
}

void object::release_resources() {
    on_closed();
    dev_->object_closed();
}

void object::successor_closed() {
    successors_.fetch_sub(1, std::memory_order_acq_rel);
    maybe_complete_close();
}

void object::end_busy() {
    busy_.fetch_sub(1, std::memory_order_acq_rel);
    maybe_complete_close();
}

status object::finish_request(status result, request_fn done, timing::sim_time latency,
                              bool must_pend) {
    if (!must_pend && !dev_->policy().should_pend()) {
        return result;
    }
    post_held(*this, latency + completion_policy::take_delay(),
              [result, fn = std::move(done)]() mutable { fn(result); });
    return status::pending;
}

void object::collect_open_descendants(std::vector<const object*>& out) const {
    // Locks parent before child, never the reverse, so this cannot deadlock with a close.
    std::lock_guard lock(mutex_);
    for (const object& child : children_) {
        out.push_back(&child);
        child.collect_open_descendants(out);
    }
}

}  // namespace ndksim::core
