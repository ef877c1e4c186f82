// SPDX-License-Identifier: MIT
#pragma once
// The responder's RDMA READ resources (IBA vol. 1 9.7.5.1 and 9.7.5.2), part of its per-QP
// state.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "nic/hw_model.hpp"

namespace ndksim::nic {

/// The responder's RDMA READ resources of one kind (responder.cpp): when each read that holds
/// one finishes, i.e. its last response leaves the port [ps], oldest first (the port is FIFO,
/// so the times never decrease). A fixed ring, so that the per-packet path never allocates.
struct read_slots {
    static constexpr std::size_t k_capacity = 64;

    /// Frees the slots of the reads finished by `now`; true when fewer than `limit` (at most
    /// k_capacity) are still held.
    bool available(timing::sim_time now, std::uint32_t limit) noexcept {
        while (held > 0 && done_at[first] <= now) {
            first = (first + 1) % k_capacity;
            --held;
        }
        return held < std::min<std::size_t>(limit, k_capacity);
    }

    /// Holds a slot for a read that finishes at `done` [ps]; available() said there was one.
    void hold(timing::sim_time done) noexcept {
        done_at[(first + held) % k_capacity] = done;
        ++held;
    }

    std::array<timing::sim_time, k_capacity> done_at{};
    std::uint32_t first = 0;  ///< index of the oldest entry of done_at
    std::uint32_t held = 0;
};

}  // namespace ndksim::nic
