// SPDX-License-Identifier: MIT
#include "wire/socket_transport.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "util/single_writer.hpp"
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
                                   timing::sim_time latency, timing::sync_domain* domain)
    : rx_(std::make_shared<socket_receiver>(address, port, threaded(kind, sched),
                                            std::move(receive), latency)) {
    rx_->who = std::string(kind) + " " + endpoint_text(address, port);
    if (domain != nullptr) {
        sync_link::sender& out = *this;
        rx_->sync = std::make_shared<sync_link>(*domain, rx_->who, latency, out, rx_->socket);
    }
}

std::shared_ptr<transport::peer> socket_transport::route(const ip_address& address) {
    return resolve(address);
}

void socket_transport::send_record(transport::peer& to, frame* record) {
    enqueue(to, record);
}

void socket_transport::confirm_peer(const ip_address& source) {
    if (rx_->sync) {
        rx_->sync->confirm(source);
    }
}

bool socket_transport::is_sync_peer(const ip_address& source) const noexcept {
    return rx_->sync && rx_->sync->is_peer(source);
}

bool socket_transport::leave_sync() {
    if (!rx_->sync) {
        return false;
    }
    rx_->sync->leave();
    return true;
}

void socket_transport::send(peer& to, frame* f, timing::sim_time departure) {
    if (!append_departure(*f, departure)) {
        rx_->socket.bad_frames.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    f->length += static_cast<std::uint32_t>(socket_trailer_size);
    if (rx_->sync) {
        const ip_address& destination = peer_address(to);
        if (!rx_->sync->may_send(destination)) {
            frame_pool::release(f);
            return;
        }
        rx_->sync->frame_sent(destination, departure);
    }
    util::single_writer_add(rx_->counters.frames_sent);
    util::single_writer_add(rx_->counters.bytes_sent, f->length);
    enqueue(to, f);
}

}  // namespace ndksim::wire
