// SPDX-License-Identifier: MIT
#include "wire/tcp_record_writer.hpp"

#include "wire/frame_iovecs.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {

void tcp_record_writer::release_all() noexcept {
    for (std::size_t i = 0; i < frame_count_; ++i) {
        frame_pool::release(frames_[i]);
        frames_[i] = nullptr;
    }
    frame_count_ = 0;
    iov_count_ = 0;
    lent_count_ = 0;
    next_ = 0;
}

void tcp_record_writer::fill(frame_queue& queue) noexcept {
    while (frame_count_ < k_frames) {
        frame* f = queue.pop();
        if (f == nullptr) {
            break;
        }
        store_be<tcp_prefix_size>(prefixes_[frame_count_].data(), f->length);
        iov_[iov_count_++] = iovec{prefixes_[frame_count_].data(), tcp_prefix_size};
        const std::size_t n = frame_iovecs(*f, &iov_[iov_count_]);
        lent_iov_[frame_count_] = n > 1 ? iov_count_ + 1 : k_no_iov;
        lent_count_ += n > 1 ? 1 : 0;
        iov_count_ += n;
        end_iov_[frame_count_] = iov_count_;
        frames_[frame_count_++] = f;
    }
}

iovec* tcp_record_writer::pending() noexcept {
    if (lent_count_ > 0) {
        for (std::size_t i = 0; i < frame_count_; ++i) {
            const std::size_t k = lent_iov_[i];
            if (k == k_no_iov || frames_[i]->borrowed != nullptr) {
                continue;
            }
            // Materialized since the batch was filled: the memory may be the consumer's again,
            // so what is left of the payload comes from the frame's copy.
            lent_iov_[i] = k_no_iov;
            --lent_count_;
            if (k >= next_) {
                repoint_payload(*frames_[i], iov_[k]);
            }
        }
    }
    return iov_.data() + next_;
}

void tcp_record_writer::wrote(std::size_t bytes) noexcept {
    while (bytes > 0 && next_ < iov_count_) {
        iovec& v = iov_[next_];
        if (bytes < v.iov_len) {
            v.iov_base = static_cast<std::byte*>(v.iov_base) + bytes;
            v.iov_len -= bytes;
            return;
        }
        bytes -= v.iov_len;
        ++next_;
    }
    if (next_ == iov_count_) {
        // The kernel holds every byte: the frames go back to their pools now, not at the
        // next batch, so an idle connection keeps none.
        release_all();
    }
}

void tcp_record_writer::drop(std::atomic<std::uint64_t>& lost) noexcept {
    // The frames from the first with an iovec still pending on did not reach the kernel whole.
    std::size_t whole = 0;
    while (whole < frame_count_ && end_iov_[whole] <= next_) {
        ++whole;
    }
    if (frame_count_ > whole) {
        lost.fetch_add(frame_count_ - whole, std::memory_order_relaxed);
    }
    release_all();
}

}  // namespace ndksim::wire
