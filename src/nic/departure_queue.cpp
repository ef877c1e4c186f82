// SPDX-License-Identifier: MIT
#include "nic/departure_queue.hpp"

#include <utility>

namespace ndksim::nic {

void departure_queue::add(core::send_wqe& w, const std::shared_ptr<wire::transport::peer>& peer,
                          std::uint32_t packet, timing::sim_time last_bit, const std::byte* payload,
                          std::uint64_t generation) {
    if (open_ && size_ != 0) {
        departure_run& back = runs_[(head_ + size_ - 1) % runs_.size()];
        if (back.wqe == &w && back.first_packet + back.count == packet &&
            back.count < departure_run::k_max_packets && back.peer == peer &&
            back.generation == generation) {
            back.payload[back.count] = payload;
            back.last_bit[back.count++] = last_bit;
            return;
        }
    }
    if (size_ == runs_.size()) {
        grow();
    }
    departure_run& run = runs_[(head_ + size_) % runs_.size()];
    ++size_;
    ++started_;
    run.wqe = &w;
    run.peer = peer;
    run.first_packet = packet;
    run.count = 1;
    run.last_bit[0] = last_bit;
    run.payload[0] = payload;
    run.generation = generation;
    open_ = true;
}

void departure_queue::pop_front() noexcept {
    runs_[head_].peer.reset();
    head_ = (head_ + 1) % runs_.size();
    --size_;
    ++left_;
}

std::uint64_t departure_queue::clear() noexcept {
    std::uint64_t packets = 0;
    while (!empty()) {
        packets += front().count;
        pop_front();
    }
    open_ = false;
    return packets;
}

void departure_queue::grow() {
    std::vector<departure_run> bigger(runs_.empty() ? 8 : runs_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) {
        bigger[i] = std::move(runs_[(head_ + i) % runs_.size()]);
    }
    runs_ = std::move(bigger);
    head_ = 0;
}

}  // namespace ndksim::nic
