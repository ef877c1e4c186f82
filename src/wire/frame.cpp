// SPDX-License-Identifier: MIT
#include "wire/frame.hpp"

#include "timing/scheduler.hpp"
#include "util/single_writer.hpp"
#include "wire/lent_frames.hpp"

namespace ndksim::wire {

std::shared_ptr<frame_pool> frame_pool::create(std::size_t block, std::size_t steady,
                                               const timing::scheduler* owner) {
    return std::shared_ptr<frame_pool>(new frame_pool(block == 0 ? 1 : block, steady, owner),
                                       [](frame_pool* p) { p->retire(); });
}

// The owner's last reference goes after its last take, so the reserve is final here: it leaves
// the count with the retired mark, in one step. Nothing of the pool is touched after that step:
// from then on the thread releasing the last frame may free it.
void frame_pool::retire() noexcept {
    const std::uint64_t reserve = reserve_.load(std::memory_order_relaxed);
    reserve_.store(0, std::memory_order_relaxed);
    std::uint64_t out = out_.load(std::memory_order_relaxed);
    while (!out_.compare_exchange_weak(out, (out - reserve) | k_retired, std::memory_order_acq_rel,
                                       std::memory_order_relaxed)) {
    }
    if (out == reserve) {
        delete this;  // no frame out: nobody else can reach the pool any more
    }
}

bool frame_pool::taker_here() const noexcept {
    return owner_ != nullptr && owner_->owned_here();
}

namespace {

// Deletes the loose frames of the free list starting at `f`; returns the others, relinked.
frame* free_loose(frame* f, frame* keep, std::size_t& freed) noexcept {
    while (f != nullptr) {
        frame* next = f->next;
        if (f->loose) {
            delete f;
            ++freed;
        } else {
            f->next = keep;
            keep = f;
        }
        f = next;
    }
    return keep;
}

}  // namespace

// Every frame is back when the pool goes (retire), so every loose frame is on a free list.
frame_pool::~frame_pool() {
    std::size_t freed = 0;
    free_loose(returned_.exchange(nullptr, std::memory_order_acquire),
               free_loose(local_, nullptr, freed), freed);
}

std::size_t frame_pool::trim() noexcept {
    std::size_t freed = 0;
    frame* keep = free_loose(local_, nullptr, freed);
    local_ = free_loose(returned_.exchange(nullptr, std::memory_order_acquire), keep, freed);
    allocated_.fetch_sub(freed, std::memory_order_relaxed);
    return freed;
}

void frame_pool::grow() {
    if (allocated() + block_ > steady_) {
        // Beyond the steady size one frame at a time, so that trim() can free each alone.
        auto* f = new frame;
        f->pool = this;
        f->loose = true;
        f->next = local_;
        local_ = f;
        allocated_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    auto block = std::make_unique<frame[]>(block_);
    for (std::size_t i = 0; i < block_; ++i) {
        block[i].pool = this;
        block[i].next = local_;
        local_ = &block[i];
    }
    blocks_.push_back(std::move(block));
    allocated_.fetch_add(block_, std::memory_order_relaxed);
}

frame* frame_pool::take() {
    if (local_ == nullptr) {
        local_ = returned_.exchange(nullptr, std::memory_order_acquire);
        if (local_ == nullptr) {
            grow();
        }
    }
    frame* f = local_;
    local_ = f->next;
    f->next = nullptr;
    f->length = 0;
    f->icrc_checked = false;
    f->icrc_elided = false;
    f->stamped = false;
    f->borrowed = nullptr;
    if (const std::uint64_t reserve = reserve_.load(std::memory_order_relaxed); reserve > 0) {
        reserve_.store(reserve - 1, std::memory_order_relaxed);
    } else {
        out_.fetch_add(k_count_step, std::memory_order_acq_rel);
        reserve_.store(k_count_step - 1, std::memory_order_relaxed);
    }
    return f;
}

void frame_pool::push(frame* f) noexcept {
    frame* head = returned_.load(std::memory_order_relaxed);
    do {
        f->next = head;
    } while (!returned_.compare_exchange_weak(head, f, std::memory_order_release,
                                              std::memory_order_relaxed));
}

void frame_pool::release(frame* f) noexcept {
    if (f == nullptr) {
        return;
    }
    if (f->lender != nullptr) {
        // A lent frame that was consumed or dropped: its sender's memory is no longer read.
        f->lender->forget(*f);
    }
    frame_pool* p = f->pool;
    // On the taking thread, a pool still in use takes the frame back as its own; once retired,
    // the count decides who frees it.
    if ((p->out_.load(std::memory_order_relaxed) & k_retired) == 0 && p->taker_here()) {
        f->next = p->local_;
        p->local_ = f;
        util::single_writer_add(p->reserve_);
        return;
    }
    p->push(f);
    // After this decrement the pool may only be touched by whoever frees it.
    if (p->out_.fetch_sub(1, std::memory_order_acq_rel) == (k_retired | 1)) {
        delete p;  // the owner is gone and this was the last frame out
    }
}

}  // namespace ndksim::wire
