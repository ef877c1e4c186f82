// SPDX-License-Identifier: MIT
#include "core/send_queue.hpp"

#include <array>

namespace ndksim::core {

op_type completion_type(wr_kind k) noexcept {
    static constexpr std::array<op_type, 8> k_types{
        op_type::send,           // send
        op_type::send,           // send_invalidate: the sender sees Send (REFERENCE.md 12 #8)
        op_type::write,          // write
        op_type::read,           // read
        op_type::bind,           // bind
        op_type::fast_register,  // fast_register
        op_type::invalidate,     // invalidate_region
        op_type::invalidate,     // invalidate_window
    };
    return k_types[static_cast<std::size_t>(k)];
}

send_queue::send_queue(std::uint32_t depth, std::uint32_t max_sge, std::uint32_t inline_size)
    : depth_(depth == 0 ? 1 : depth),
      max_sge_(max_sge),
      inline_size_(inline_size),
      slots_(depth_),
      sge_storage_(std::make_unique<sge[]>(static_cast<std::size_t>(depth_) * (max_sge_ + 1))),
      inline_storage_(
          std::make_unique<std::byte[]>(static_cast<std::size_t>(depth_) * (inline_size_ + 1))) {
    for (std::uint32_t i = 0; i < depth_; ++i) {
        slots_[i].sges = &sge_storage_[static_cast<std::size_t>(i) * (max_sge_ + 1)];
        slots_[i].inline_data = &inline_storage_[static_cast<std::size_t>(i) * (inline_size_ + 1)];
    }
}

send_wqe* send_queue::prepare() noexcept {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) >= depth_) {
        return nullptr;
    }
    send_wqe& w = slots_[tail % depth_];
    sge* sges = w.sges;
    std::byte* inline_data = w.inline_data;
    std::vector<std::uint64_t> pages = std::move(w.pages);
    w = send_wqe{};
    w.sges = sges;
    w.inline_data = inline_data;
    w.pages = std::move(pages);
    w.pages.clear();
    return &w;
}

}  // namespace ndksim::core
