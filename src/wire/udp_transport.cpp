#include "wire/udp_transport.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "util/log.hpp"
#include "wire/frame_queue.hpp"
#include "wire/socket_address.hpp"

namespace ndksim::wire {

using boost::asio::ip::udp;

namespace {

// Datagrams read per wake-up at most, so one busy socket does not hold the engine thread from
// its timers for a whole burst.
constexpr int k_receive_batch = 64;

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
    frame* tx_flight = nullptr;  ///< taken from the queue, waiting for the socket to take it
    // Receiving: the frame the next datagram is read into, and the socket's drop count as the
    // last SO_RXQ_OVFL reported it.
    frame* rx_frame = nullptr;
    std::uint32_t overruns_seen = 0;

    void enqueue(frame* f) {
        if (closed) {
            rx->socket.frames_dropped.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
            return;
        }
        tx_queue.push(f);
        if (tx_flight == nullptr) {
            send_now();
        }
    }

    // Hands queued datagrams to the kernel at once, without blocking, until the queue is empty
    // or the socket's send buffer is full; then waits until it is writable and goes on. One
    // asynchronous send per datagram would cost the engine thread a turn of its event loop per
    // datagram: a burst of responses built in one event would wait in this queue, behind the
    // host's speed rather than the modelled wire's, long enough for the peer's transport timer
    // to ask for it all again.
    void send_now() {
        while (!closed) {
            frame* f = tx_flight != nullptr ? tx_flight : tx_queue.pop();
            if (f == nullptr) {
                return;
            }
            tx_flight = nullptr;
            boost::system::error_code ec;
            socket.send_to(boost::asio::buffer(f->data, f->length),
                           udp::endpoint(to_asio(f->source), rx->port), 0, ec);
            if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) {
                tx_flight = f;
                socket.async_wait(udp::socket::wait_write,
                                  [self = shared_from_this()](const boost::system::error_code& e) {
                                      self->writable(e);
                                  });
                return;
            }
            if (ec) {
                // A datagram that cannot be sent is lost, as on a network; the RC layer's
                // retransmission recovers it.
                rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
                log_socket_error_once(rx->send_error_logged, rx->who, "sendto", ec);
            }
            frame_pool::release(f);
        }
    }

    void writable(const boost::system::error_code& ec) {
        if (ec == boost::asio::error::operation_aborted || closed) {
            return;
        }
        if (ec) {
            rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->send_error_logged, rx->who, "wait", ec);
        }
        send_now();
    }

    // Receiving waits for the socket to be readable and then reads with recvmsg, which Asio's
    // receive_from cannot: the SO_RXQ_OVFL control message (socket(7)) carries the count of
    // datagrams the kernel dropped on this socket for want of buffer space.
    void receive_next() {
        if (closed) {
            return;
        }
        socket.async_wait(udp::socket::wait_read,
                          [self = shared_from_this()](const boost::system::error_code& ec) {
                              self->readable(ec);
                          });
    }

    void readable(const boost::system::error_code& ec) {
        if (ec == boost::asio::error::operation_aborted || closed) {
            return;
        }
        if (ec) {
            rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->receive_error_logged, rx->who, "wait", ec);
        }
        int read = 0;
        while (read < k_receive_batch && !closed && read_one()) {
            ++read;
        }
        if (read == k_receive_batch && !closed) {
            // More may be queued. Asio's reactor watches the socket edge-triggered and does not
            // look before a wait, so waiting now could sleep on datagrams already here until the
            // next one arrives; read on after the handlers queued meanwhile have run instead.
            boost::asio::post(socket.get_executor(),
                              [self = shared_from_this()] { self->readable({}); });
            return;
        }
        receive_next();
    }

    // Reads one datagram, if one is waiting, and hands it on; false when there was none (or
    // the read failed, counted).
    bool read_one() {
        if (rx_frame == nullptr) {
            rx_frame = rx->rx_pool->take();
        }
        udp::endpoint from;
        iovec io{rx_frame->data, sizeof rx_frame->data};
        alignas(cmsghdr) std::byte control[CMSG_SPACE(sizeof(std::uint32_t))];
        msghdr msg{};
        msg.msg_name = from.data();
        msg.msg_namelen = static_cast<socklen_t>(from.capacity());
        msg.msg_iov = &io;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(socket.native_handle(), &msg, MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
                log_socket_error_once(rx->receive_error_logged, rx->who, "recvmsg",
                                      std::error_code(errno, std::generic_category()));
            }
            return false;
        }
        from.resize(msg.msg_namelen);
        note_overruns(msg);
        frame* f = rx_frame;
        rx_frame = nullptr;
        // A datagram cut to the buffer is refused as too long.
        const bool cut = (msg.msg_flags & MSG_TRUNC) != 0;
        deliver_from_socket(rx, f, cut ? max_socket_body + 1 : static_cast<std::size_t>(n),
                            from_asio(from.address()));
        return true;
    }

    // SO_RXQ_OVFL reports the socket's drop count since it was opened, as it stood when this
    // datagram was queued (32 bits, wrapping): the counter grows by the difference.
    void note_overruns(msghdr& msg) {
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
                c->cmsg_len >= CMSG_LEN(sizeof(std::uint32_t))) {
                std::uint32_t dropped = 0;
                std::memcpy(&dropped, CMSG_DATA(c), sizeof dropped);
                const std::uint32_t more = dropped - overruns_seen;
                if (more != 0 && more < (1U << 31)) {
                    overruns_seen = dropped;
                    rx->socket.receive_overruns.fetch_add(more, std::memory_order_relaxed);
                }
            }
        }
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

// Asks for udp_socket_buffer_bytes each way, logs what the kernel granted, and turns on the
// drop count. None of it is needed to work, so a refusal is logged and the socket goes on
// with what it has.
void configure_buffers(udp_state& s) {
    const int fd = s.socket.native_handle();
    const int asked = static_cast<int>(udp_socket_buffer_bytes);
    boost::system::error_code ec;
    s.socket.set_option(udp::socket::receive_buffer_size(asked), ec);
    s.socket.set_option(udp::socket::send_buffer_size(asked), ec);
    const int one = 1;
    [[maybe_unused]] const bool counted =
        ::setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one) == 0;
    udp::socket::receive_buffer_size rcv;
    udp::socket::send_buffer_size snd;
    s.socket.get_option(rcv, ec);
    s.socket.get_option(snd, ec);
    // Linux reports twice the size it granted (the rest is its bookkeeping), after capping
    // the request at net.core.rmem_max / wmem_max.
    NDKSIM_DEBUG(
        "{}: bound; socket buffers: receive {} bytes, send {} bytes as the kernel reports them "
        "(asked {} each; raise net.core.rmem_max / wmem_max for more); receive overruns {}",
        s.rx->who, rcv.value(), snd.value(), asked,
        counted ? "counted (SO_RXQ_OVFL)" : "not counted: SO_RXQ_OVFL refused");
}

}  // namespace

udp_transport::udp_transport(const ip_address& address, std::uint16_t port,
                             timing::scheduler& sched, receive_fn receive, timing::sim_time latency)
    : socket_transport("udp", address, port, sched, std::move(receive), latency),
      state_(std::make_shared<udp_state>(receiver())) {
    const udp::endpoint local(to_asio(address), port);
    boost::system::error_code ec;
    state_->socket.open(local.protocol(), ec);
    if (!ec) {
        state_->socket.bind(local, ec);
    }
    if (ec) {
        throw socket_setup_error(ec.value(), "cannot bind UDP " + endpoint_text(address, port));
    }
    configure_buffers(*state_);
    // send_now() must never block the engine thread.
    state_->socket.non_blocking(true, ec);
    if (ec) {
        std::string what = "cannot make UDP ";
        what += endpoint_text(address, port);
        what += " non-blocking";
        throw socket_setup_error(ec.value(), what);
    }
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
