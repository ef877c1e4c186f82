#include "wire/udp_transport.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>

#include "util/log.hpp"
#include "wire/frame_queue.hpp"
#include "wire/socket_address.hpp"

namespace ndksim::wire {

using boost::asio::ip::udp;

namespace {

// Socket buffer sizes asked for [bytes]. A burst of a large transfer (a 1 MiB write is 256
// datagrams at once) overflows Linux's default 208 KiB receive buffer, and a datagram that
// does not fit is lost. The kernel caps the request at net.core.rmem_max / wmem_max.
constexpr int k_socket_buffer = 4 * 1024 * 1024;

}  // namespace

// One adapter's UDP socket.
//
// Ownership: the transport, every pending socket handler and every scheduled delivery hold the
// state through a shared_ptr, so a handler that completes after the transport is gone (it
// completes with operation_aborted) still finds it. Threads: everything below runs on the
// engine thread, the single thread that runs the scheduler's io_context; send() called from
// another thread moves there first. So the send queue needs no lock.
//
// Send queue: frames wait in an intrusive list through frame::next behind the one datagram in
// flight; while a frame is queued its `source` field holds the destination's address (every
// adapter uses the same port), so queueing never allocates.
struct udp_state : std::enable_shared_from_this<udp_state> {
    explicit udp_state(std::shared_ptr<socket_receiver> r)
        : rx(std::move(r)), socket(rx->sched.io()) {}

    std::shared_ptr<socket_receiver> rx;
    udp::socket socket;
    bool closed = false;
    // Sending.
    frame_queue tx_queue;
    frame* tx_flight = nullptr;
    udp::endpoint tx_to;
    // Receiving: the frame the pending receive writes into, and the sender's endpoint.
    frame* rx_frame = nullptr;
    udp::endpoint rx_from;

    void enqueue(frame* f) {
        if (closed) {
            rx->socket.frames_dropped.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
            return;
        }
        tx_queue.push(f);
        if (tx_flight == nullptr) {
            send_next();
        }
    }

    void send_next() {
        if (closed || tx_queue.empty()) {
            return;
        }
        frame* f = tx_queue.pop();
        tx_flight = f;
        tx_to = udp::endpoint(to_asio(f->source), rx->port);
        socket.async_send_to(boost::asio::buffer(f->data, f->length), tx_to,
                             [self = shared_from_this()](const boost::system::error_code& ec,
                                                         std::size_t) { self->sent(ec); });
    }

    void sent(const boost::system::error_code& ec) {
        frame_pool::release(tx_flight);
        tx_flight = nullptr;
        if (ec && ec != boost::asio::error::operation_aborted) {
            // A datagram that cannot be sent is lost, as on a network; the RC layer's
            // retransmission recovers it.
            rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->send_error_logged, rx->who, "sendto", ec);
        }
        send_next();
    }

    void receive_next() {
        if (closed) {
            return;
        }
        if (rx_frame == nullptr) {
            rx_frame = rx->rx_pool->take();
        }
        socket.async_receive_from(
            boost::asio::buffer(rx_frame->data, sizeof rx_frame->data), rx_from,
            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                self->received(ec, n);
            });
    }

    void received(const boost::system::error_code& ec, std::size_t n) {
        if (ec == boost::asio::error::operation_aborted || closed) {
            frame_pool::release(rx_frame);
            rx_frame = nullptr;
            return;
        }
        if (ec) {
            rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->receive_error_logged, rx->who, "recvfrom", ec);
        } else {
            frame* f = rx_frame;
            rx_frame = nullptr;
            // A datagram that filled the whole buffer may have been cut: refused as too long.
            deliver_from_socket(rx, f, n >= sizeof f->data ? max_socket_body + 1 : n,
                                from_asio(rx_from.address()));
        }
        receive_next();
    }

    void close() {
        closed = true;
        rx->attached.store(false, std::memory_order_release);
        boost::system::error_code ignored;
        socket.close(ignored);
        // Closing on this thread cancelled the pending receive and send before the reactor
        // could touch their buffers again, and their handlers may never run (the io_context
        // stops with the adapter), so their frames go back here.
        frame_pool::release(rx_frame);
        rx_frame = nullptr;
        frame_pool::release(tx_flight);
        tx_flight = nullptr;
        tx_queue.drop_all(rx->socket.frames_dropped);
    }
};

namespace {

class udp_peer final : public transport::peer {
  public:
    explicit udp_peer(const ip_address& a) : address(a) {}
    ip_address address;
};

}  // namespace

udp_transport::udp_transport(const ip_address& address, std::uint16_t port,
                             timing::scheduler& sched, receive_fn receive, timing::sim_time latency)
    : socket_transport("udp", address, port, sched, std::move(receive), latency),
      state_(std::make_shared<udp_state>(receiver())) {
    const udp::endpoint local(to_asio(address), port);
    boost::system::error_code ec;
    state_->socket.open(local.protocol(), ec);
    if (!ec) {
        boost::system::error_code ignored;
        state_->socket.set_option(udp::socket::receive_buffer_size(k_socket_buffer), ignored);
        state_->socket.set_option(udp::socket::send_buffer_size(k_socket_buffer), ignored);
        state_->socket.bind(local, ec);
    }
    if (ec) {
        throw socket_setup_error(ec.value(), "cannot bind UDP " + endpoint_text(address, port));
    }
    NDKSIM_DEBUG("{}: bound", state_->rx->who);
}

void udp_transport::start() {
    boost::asio::post(state_->rx->sched.io(), [s = state_] { s->receive_next(); });
}

udp_transport::~udp_transport() {
    run_on_engine_thread(state_->rx->sched, [s = state_] { s->close(); });
}

std::shared_ptr<transport::peer> udp_transport::resolve(const ip_address& destination) {
    if (destination.v6 != state_->rx->address.v6) {
        return nullptr;
    }
    return std::make_shared<udp_peer>(destination);
}

void udp_transport::enqueue(peer& to, frame* f) {
    f->source = static_cast<udp_peer&>(to).address;
    // Runs at once on the engine thread (the common case: the engine sends), else posts there.
    boost::asio::dispatch(state_->rx->sched.io(), [s = state_, f] { s->enqueue(f); });
}

}  // namespace ndksim::wire
