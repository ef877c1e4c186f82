// SPDX-License-Identifier: MIT
#include "core/endpoint_table.hpp"

namespace ndksim::core {

status endpoint_table::reserve(std::uint16_t& port) {
    std::lock_guard lock(mutex_);
    if (port != 0) {
        if (holders_.contains(port)) {
            return status::sharing_violation;
        }
        holders_[port] = 1;
        return status::success;
    }
    // Ephemeral ports are handed out round-robin from a cursor, so a run with the same calls
    // gets the same ports, and a just-released port is not reused at once.
    constexpr std::uint32_t range = k_ephemeral_last - k_ephemeral_first + 1;
    for (std::uint32_t tries = 0; tries < range; ++tries) {
        const std::uint16_t candidate = next_ephemeral_;
        next_ephemeral_ = candidate == k_ephemeral_last ? k_ephemeral_first
                                                        : static_cast<std::uint16_t>(candidate + 1);
        if (!holders_.contains(candidate)) {
            holders_[candidate] = 1;
            port = candidate;
            return status::success;
        }
    }
    return status::too_many_addresses;
}

void endpoint_table::acquire(std::uint16_t port) {
    std::lock_guard lock(mutex_);
    ++holders_[port];
}

void endpoint_table::release(std::uint16_t port) {
    std::lock_guard lock(mutex_);
    auto it = holders_.find(port);
    if (it != holders_.end() && --it->second == 0) {
        holders_.erase(it);
    }
}

bool endpoint_table::in_use(std::uint16_t port) const {
    std::lock_guard lock(mutex_);
    return holders_.contains(port);
}

}  // namespace ndksim::core
