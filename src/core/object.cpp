#include "core/object.hpp"

#include <cstdio>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "util/log.hpp"

namespace ndksim::core {

std::string_view kind_name(object_kind kind) noexcept {
    static constexpr std::array<std::string_view, 11> k_names{
        "undefined", "adapter", "qp",       "cq",        "mr",  "mw",
        "pd",        "sep",     "connector", "listener", "srq"};
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
        depend_on(*parent);
        std::lock_guard lock(parent->mutex_);
        parent->children_.push_back(*this);
    }
    dev.object_created();
}

void object::set_handle_ident(std::uint32_t number) {
    std::snprintf(ident_.data(), ident_.size(), "%s/h%u", dev_->name().c_str(), number);
}

object::~object() { NDKSIM_TRACE("{}: destroyed", ident()); }

void object::release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete this;
    }
}

void object::depend_on(object& antecedent) {
    antecedent.add_successor();
    antecedent.add_ref();
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
    NDKSIM_DEBUG("{}: close requested ({} successors open, {} busy)", ident(),
                 successors_.load(), busy_.load());
    on_close_requested();
    const bool pend = dev_->policy().should_pend();
    {
        std::lock_guard lock(mutex_);
        if (pend || successors_.load(std::memory_order_acquire) != 0 ||
            busy_.load(std::memory_order_acquire) != 0) {
            close_pending_ = true;
        }
    }
    if (!close_pending_) {
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
        if (done) {
            done();
        }
        finish_close();
        release();
    });
}

void object::finish_close() {
    state_.store(state::closed, std::memory_order_release);
    on_closed();
    if (parent_ != nullptr) {
        std::lock_guard lock(parent_->mutex_);
        parent_->children_.erase(parent_->children_.iterator_to(*this));
    }
    // Successor-closed notifications go out only after this object's own close completion has
    // returned (rule 6: an antecedent completes "not before any successor's close-completion
    // callback has returned").
    for (std::size_t i = 0; i < antecedent_count_; ++i) {
        object* a = antecedents_[i];
        a->successor_closed();
        a->release();
    }
    antecedent_count_ = 0;
    dev_->object_closed();
    release();  // the consumer's reference
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
    begin_busy();
    add_ref();
    dev_->sched().post_after(latency, [this, result, fn = std::move(done)]() mutable {
        fn(result);
        end_busy();
        release();
    });
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
