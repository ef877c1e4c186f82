// SPDX-License-Identifier: MIT
#include "wire/udp_transport.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>

#include <netinet/udp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "util/log.hpp"
#include "wire/frame_queue.hpp"
#include "wire/socket_address.hpp"
#include "wire/udp_receive_batch.hpp"
#include "wire/udp_send_batch.hpp"

namespace ndksim::wire {

using boost::asio::ip::udp;

// One adapter's UDP socket.
//
// Ownership: the transport, every pending socket handler and every scheduled delivery hold the
// state through a shared_ptr, so a handler that completes after the transport is gone (it
// completes with operation_aborted) still finds it. Threads: everything below runs on the
// engine thread, the single thread that runs the scheduler's io_context; send() called from
// another thread moves there first. So the send queue needs no lock.
//
// Send queue: frames wait in an intrusive list through frame::next; while a frame is queued its
// `source` field holds the destination's address (every adapter uses the same port), so
// queueing never allocates. The first frame queued posts a flush to the io_context, which runs
// once the scheduler's current run of events has ended: every frame those events built (a
// message's packets, a burst of responses) then leaves in one sendmmsg per batch
// (udp_send_batch), not one sendto each.
struct udp_state : std::enable_shared_from_this<udp_state> {
    udp_state(std::shared_ptr<socket_receiver> r, udp_options want)
        : rx(std::move(r)), socket(rx->sched.io()), wanted(want) {}

    std::shared_ptr<socket_receiver> rx;
    udp::socket socket;
    udp_options wanted;
    std::size_t receive_buffer = 0;  ///< granted by the kernel [bytes]
    bool closed = false;
    // Sending.
    std::atomic<bool> gso{false};  ///< UDP_SEGMENT in use (read by in_use() on any thread)
    frame_queue tx_queue;
    udp_send_batch tx;
    bool flush_posted = false;  ///< a flush waits in the io_context
    bool waiting = false;       ///< the send buffer was full: a wait for writable is pending
    // Receiving, and the socket's drop count as the last SO_RXQ_OVFL reported it.
    std::unique_ptr<udp_receive_batch> rx_batch;
    std::uint32_t overruns_seen = 0;

    void enqueue(frame* f) {
        if (closed) {
            rx->socket.frames_dropped.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
            return;
        }
        tx_queue.push(f);
        if (!flush_posted && !waiting) {
            flush_posted = true;
            boost::asio::post(socket.get_executor(), [self = shared_from_this()] {
                self->flush_posted = false;
                self->flush();
            });
        }
    }

    // Hands the queued datagrams to the kernel without blocking, a batch per sendmmsg, until
    // the queue is empty or the socket's send buffer is full; then waits until it is writable
    // and goes on. Waiting a turn of the event loop per datagram would hold a burst of
    // responses built in one event behind the host's speed rather than the modelled wire's,
    // long enough for the peer's transport timer to ask for it all again.
    void flush() {
        while (!closed) {
            if (tx.empty()) {
                if (tx_queue.empty()) {
                    return;
                }
                tx.fill(tx_queue, rx->port, gso.load(std::memory_order_relaxed));
            }
            const int n =
                ::sendmmsg(socket.native_handle(), tx.pending(), tx.pending_count(), MSG_DONTWAIT);
            if (n >= 0) {
                rx->socket.send_calls.fetch_add(1, std::memory_order_relaxed);
                tx.sent(static_cast<std::size_t>(n));
                continue;
            }
            const int error = errno;
            if (error == EINTR) {
                continue;
            }
            if (error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS) {
                wait_writable();
                return;
            }
            if (gso.load(std::memory_order_relaxed) &&
                (error == EIO || error == EINVAL || error == EMSGSIZE)) {
                // The kernel or the route refused segmentation (udp(7): EIO without checksum
                // offload, EINVAL for a segment above the path MTU): the batch goes again as
                // one datagram per frame, and so does every later one.
                gso.store(false, std::memory_order_relaxed);
                NDKSIM_INFO(
                    "{}: UDP segmentation offload refused ({}); sending one datagram "
                    "per message from now on",
                    rx->who, std::strerror(error));
                tx.give_back(tx_queue);
                continue;
            }
            // A datagram that cannot be sent is lost, as on a network; the RC layer's
            // retransmission recovers it.
            log_socket_error_once(rx->send_error_logged, rx->who, "sendmmsg",
                                  std::error_code(error, std::generic_category()));
            tx.drop_first(rx->socket.send_errors);
        }
    }

    void wait_writable() {
        waiting = true;
        socket.async_wait(
            udp::socket::wait_write,
            [self = shared_from_this()](const boost::system::error_code& e) { self->writable(e); });
    }

    void writable(const boost::system::error_code& ec) {
        waiting = false;
        if (ec == boost::asio::error::operation_aborted || closed) {
            return;
        }
        if (ec) {
            rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->send_error_logged, rx->who, "wait", ec);
        }
        flush();
    }

    // Receiving waits for the socket to be readable and then reads with recvmmsg, which Asio
    // cannot: it takes a batch of datagrams per call, and the control messages carry the GRO
    // segment size and the SO_RXQ_OVFL count of datagrams the kernel dropped on this socket
    // for want of buffer space (socket(7)).
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
        if (read_batch() && !closed) {
            // The batch was full, so more may be queued. Asio's reactor watches the socket
            // edge-triggered and does not look before a wait, so waiting now could sleep on
            // datagrams already here until the next one arrives; read on after the handlers
            // queued meanwhile (timers, the engine's events) have run instead.
            boost::asio::post(socket.get_executor(),
                              [self = shared_from_this()] { self->readable({}); });
            return;
        }
        receive_next();
    }

    // Reads one batch and hands every datagram on; true when the batch was full.
    bool read_batch() {
        const timing::scheduler::clock_hold hold(rx->sched);  // the batch is one instant
        const int n = rx_batch->receive(socket.native_handle(), *rx->rx_pool);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
                log_socket_error_once(rx->receive_error_logged, rx->who, "recvmmsg",
                                      std::error_code(errno, std::generic_category()));
            }
            return false;
        }
        rx->socket.receive_calls.fetch_add(1, std::memory_order_relaxed);
        for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
            note_overruns(i);
            const ip_address from = rx_batch->source(i);
            rx_batch->split(i, *rx->rx_pool, [&](frame* f, std::size_t length) {
                deliver_from_socket(rx, f, length, from);
            });
        }
        const auto slots =
            rx_batch->gro() ? udp_receive_batch::k_gro_slots : udp_receive_batch::k_frame_slots;
        return static_cast<std::size_t>(n) == slots;
    }

    // SO_RXQ_OVFL reports the socket's drop count since it was opened, as it stood when this
    // datagram was queued (32 bits, wrapping): the counter grows by the difference.
    void note_overruns(std::size_t i) {
        std::uint32_t dropped = 0;
        if (!rx_batch->overflow_count(i, dropped)) {
            return;
        }
        const std::uint32_t more = dropped - overruns_seen;
        if (more != 0 && more < (1U << 31)) {
            overruns_seen = dropped;
            rx->socket.receive_overruns.fetch_add(more, std::memory_order_relaxed);
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
        if (rx_batch) {
            rx_batch->release_frames();
        }
        tx.give_back(tx_queue);
        tx_queue.drop_all(rx->socket.frames_dropped);
    }
};

namespace {

class udp_peer final : public transport::peer {
  public:
    explicit udp_peer(const ip_address& a) : address(a) {}
    ip_address address;
};

// Sets the socket's buffer `option` (SO_RCVBUF, SO_SNDBUF) to `asked` bytes and returns what the
// kernel granted. The kernel caps the request at net.core.rmem_max / wmem_max; a process with
// CAP_NET_ADMIN may go past it with the FORCE variant (socket(7)), which is tried then.
std::size_t set_buffer(int fd, int option, int force_option, std::size_t asked) {
    const int value = static_cast<int>(asked);
    auto granted = [&] {
        int reported = 0;
        socklen_t length = sizeof reported;
        ::getsockopt(fd, SOL_SOCKET, option, &reported, &length);
        // Linux reports twice the size it granted (the rest is its bookkeeping).
        return static_cast<std::size_t>(reported) / 2;
    };
    ::setsockopt(fd, SOL_SOCKET, option, &value, sizeof value);
    if (granted() < asked) {
        ::setsockopt(fd, SOL_SOCKET, force_option, &value, sizeof value);
    }
    return granted();
}

// Asks for udp_socket_buffer_bytes each way, reports a cap, and turns on the drop count. None
// of it is needed to work, so a refusal is logged and the socket goes on with what it has.
void configure_buffers(udp_state& s) {
    const int fd = s.socket.native_handle();
    const std::size_t asked = s.wanted.buffer_bytes;
    const std::size_t receive = set_buffer(fd, SO_RCVBUF, SO_RCVBUFFORCE, asked);
    s.receive_buffer = receive;
    [[maybe_unused]] const std::size_t send = set_buffer(fd, SO_SNDBUF, SO_SNDBUFFORCE, asked);
    const int one = 1;
    [[maybe_unused]] const bool counted =
        ::setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one) == 0;
    if (receive < asked) {
        // A burst larger than the buffer loses datagrams, which the RC layer resends after its
        // timer: worth a line, since the fix is the host's setting.
        NDKSIM_INFO(
            "{}: the kernel capped the socket's receive buffer at {} bytes (asked {}): a burst "
            "above it (16 writes of 1 MiB outstanding need about {}) loses datagrams that are "
            "then sent again; raise net.core.rmem_max, or run with CAP_NET_ADMIN",
            s.rx->who, receive, asked, asked);
    }
    NDKSIM_DEBUG("{}: bound; socket buffers: receive {} bytes, send {} bytes; receive overruns {}",
                 s.rx->who, receive, send,
                 counted ? "counted (SO_RXQ_OVFL)" : "not counted: SO_RXQ_OVFL refused");
}

// Turns on the offloads asked for that the kernel has: a kernel without UDP_SEGMENT or UDP_GRO
// (before 4.18 and 5.0) refuses the option with ENOPROTOOPT, and the socket then sends and
// receives one datagram per message.
void configure_offloads(udp_state& s) {
    const int fd = s.socket.native_handle();
    // Setting a segment size of 0 changes nothing (each send's control message gives the size)
    // but tells whether the kernel knows the option.
    const int zero = 0;
    s.gso.store(
        s.wanted.segmentation && ::setsockopt(fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof zero) == 0,
        std::memory_order_relaxed);
    const int one = 1;
    const bool gro =
        s.wanted.receive_offload && ::setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0;
    s.rx_batch = std::make_unique<udp_receive_batch>(gro);
    NDKSIM_DEBUG("{}: segmentation offload {}, receive offload {}", s.rx->who,
                 s.gso.load(std::memory_order_relaxed) ? "on" : "off", gro ? "on" : "off");
}

}  // namespace

udp_transport::udp_transport(const ip_address& address, std::uint16_t port,
                             timing::scheduler& sched, receive_fn receive, timing::sim_time latency,
                             udp_options options, timing::sync_domain* domain)
    : socket_transport("udp", address, port, sched, std::move(receive), latency, domain),
      state_(std::make_shared<udp_state>(receiver(), options)) {
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
    configure_offloads(*state_);
    // flush() must never block the engine thread.
    state_->socket.non_blocking(true, ec);
    if (ec) {
        std::string what = "cannot make UDP ";
        what += endpoint_text(address, port);
        what += " non-blocking";
        throw socket_setup_error(ec.value(), what);
    }
}

udp_options udp_transport::in_use() const noexcept {
    return udp_options{state_->gso.load(std::memory_order_relaxed), state_->rx_batch->gro(),
                       state_->receive_buffer};
}

bool udp_transport::input_pending() const noexcept {
    if (state_->closed) {
        return false;
    }
    int bytes = 0;
    return ::ioctl(state_->socket.native_handle(), FIONREAD, &bytes) == 0 && bytes > 0;
}

void udp_transport::start() {
    boost::asio::post(state_->rx->sched.io(), [s = state_] { s->receive_next(); });
}

udp_transport::~udp_transport() {
    run_on_engine_thread(state_->rx->sched, [this, s = state_] {
        if (leave_sync()) {
            s->flush();  // the leaving records, best effort: a lost one costs the peer a silence
        }
        s->close();
    });
}

std::shared_ptr<transport::peer> udp_transport::resolve(const ip_address& destination) {
    if (destination.v6 != state_->rx->address.v6) {
        return nullptr;
    }
    return std::make_shared<udp_peer>(destination);
}

const ip_address& udp_transport::peer_address(const peer& to) const noexcept {
    return static_cast<const udp_peer&>(to).address;
}

void udp_transport::enqueue(peer& to, frame* f) {
    f->source = static_cast<udp_peer&>(to).address;
    // Runs at once on the engine thread (the common case: the engine sends), else posts there.
    boost::asio::dispatch(state_->rx->sched.io(), [s = state_, f] { s->enqueue(f); });
}

}  // namespace ndksim::wire
