// SPDX-License-Identifier: MIT
#include "wire/lent_frames.hpp"

#include <cstring>

#include "wire/proto.hpp"

namespace ndksim::wire {

lent_frames::~lent_frames() {
    (void)materialize_all();
}

void lent_frames::lend(frame& f, const std::byte* bytes, std::uint32_t offset, std::uint32_t size,
                       std::uint32_t psn) noexcept {
    f.borrowed = bytes;
    f.borrowed_offset = offset;
    f.borrowed_size = size;
    f.lent_psn = psn;
    f.lender = this;
    f.lent_next = nullptr;
    f.lent_prev = tail_;
    if (tail_ == nullptr) {
        head_ = &f;
        ordered_ = true;
    } else {
        tail_->lent_next = &f;
        ordered_ = ordered_ && psn_diff(psn, tail_->lent_psn) > 0;
    }
    tail_ = &f;
    ++count_;
}

void lent_frames::forget(frame& f) noexcept {
    if (f.lent_prev == nullptr) {
        head_ = f.lent_next;
    } else {
        f.lent_prev->lent_next = f.lent_next;
    }
    if (f.lent_next == nullptr) {
        tail_ = f.lent_prev;
    } else {
        f.lent_next->lent_prev = f.lent_prev;
    }
    f.lent_prev = nullptr;
    f.lent_next = nullptr;
    f.lender = nullptr;
    f.borrowed = nullptr;
    --count_;
}

void lent_frames::materialize(frame& f) noexcept {
    if (f.borrowed != nullptr) {
        std::memcpy(f.data + f.borrowed_offset, f.borrowed, f.borrowed_size);
    }
    if (f.lender != nullptr) {
        f.lender->forget(f);
    }
}

std::size_t lent_frames::materialize(std::uint32_t first, std::uint32_t last) noexcept {
    std::size_t n = 0;
    if (ordered_) {
        // In PSN order: the request's frames, and none of a request completed before, lead
        // the list. A deep queue of small requests then pays for its own frames only.
        while (head_ != nullptr && psn_diff(head_->lent_psn, last) <= 0) {
            materialize(*head_);
            ++n;
        }
        return n;
    }
    // A retransmission can leave a request's frames behind a later request's, so every frame
    // is looked at.
    for (frame* f = head_; f != nullptr;) {
        frame* next = f->lent_next;
        if (psn_diff(f->lent_psn, first) >= 0 && psn_diff(f->lent_psn, last) <= 0) {
            materialize(*f);
            ++n;
        }
        f = next;
    }
    return n;
}

std::size_t lent_frames::materialize_all() noexcept {
    std::size_t n = 0;
    while (head_ != nullptr) {
        materialize(*head_);
        ++n;
    }
    return n;
}

}  // namespace ndksim::wire
