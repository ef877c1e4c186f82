// SPDX-License-Identifier: MIT
#include "wire/tcp_record_writer.hpp"

#include "wire/proto.hpp"

namespace ndksim::wire {

void tcp_record_writer::release_all() noexcept {
    for (std::size_t i = 0; i < frame_count_; ++i) {
        frame_pool::release(frames_[i]);
        frames_[i] = nullptr;
    }
    frame_count_ = 0;
    iov_count_ = 0;
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
        iov_[iov_count_++] = iovec{f->data, f->length};
        frames_[frame_count_++] = f;
    }
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
    // Iovec 2i + 1 is frame i's body: the frames from the one whose body is still pending on
    // did not reach the kernel whole.
    const std::size_t whole = next_ / 2;
    if (frame_count_ > whole) {
        lost.fetch_add(frame_count_ - whole, std::memory_order_relaxed);
    }
    release_all();
}

}  // namespace ndksim::wire
