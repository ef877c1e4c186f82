// SPDX-License-Identifier: MIT
#include "wire/socket_transport.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "wire/socket_address.hpp"

namespace ndksim::wire {

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

// Checked before the receiver exists, so a refused scheduler leaves nothing behind.
timing::scheduler& threaded(std::string_view kind, timing::scheduler& sched) {
    if (sched.mode() != timing::run_mode::threaded) {
        throw std::invalid_argument("the " + upper(kind) +
                                    " wire needs a threaded adapter (no loop)");
    }
    return sched;
}

}  // namespace

socket_transport::socket_transport(std::string_view kind, const ip_address& address,
                                   std::uint16_t port, timing::scheduler& sched, receive_fn receive,
                                   timing::sim_time latency)
    : rx_(std::make_shared<socket_receiver>(address, port, threaded(kind, sched),
                                            std::move(receive), latency)) {
    rx_->who = std::string(kind) + " " + endpoint_text(address, port);
}

void socket_transport::send(peer& to, frame* f, timing::sim_time departure) {
    if (!append_departure(*f, departure)) {
        rx_->socket.bad_frames.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    f->length += static_cast<std::uint32_t>(socket_trailer_size);
    rx_->counters.frames_sent.fetch_add(1, std::memory_order_relaxed);
    rx_->counters.bytes_sent.fetch_add(f->length, std::memory_order_relaxed);
    enqueue(to, f);
}

}  // namespace ndksim::wire
