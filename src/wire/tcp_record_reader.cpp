// SPDX-License-Identifier: MIT
#include "wire/tcp_record_reader.hpp"

#include <cstring>

namespace ndksim::wire {

tcp_record_reader::tcp_record_reader() : buffer_(std::make_unique<std::byte[]>(k_capacity)) {}

void tcp_record_reader::keep_from(std::size_t at) noexcept {
    if (at == 0) {
        return;
    }
    // At most one partial record moves (a few KiB), once per read.
    held_ -= at;
    std::memmove(buffer_.get(), buffer_.get() + at, held_);
}

}  // namespace ndksim::wire
