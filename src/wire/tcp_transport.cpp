// SPDX-License-Identifier: MIT
#include "wire/tcp_transport.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "util/log.hpp"
#include "wire/frame_queue.hpp"
#include "wire/socket_address.hpp"
#include "wire/tcp_record_reader.hpp"
#include "wire/tcp_record_writer.hpp"

namespace ndksim::wire {

using boost::asio::ip::tcp;

// Ownership and threads, for every type below: the transport, each pending handler and each
// scheduled delivery hold their object through a shared_ptr, so a handler completing after the
// transport closed (with operation_aborted) still finds it. All handlers, and every touch of a
// socket or a send queue, run on the engine thread (the scheduler's io_context); only the
// destination map is reached from other threads (resolve), under its mutex.

// One outgoing connection, to one destination address. Frames queue in an intrusive list
// through frame::next. The first frame queued posts a flush, which runs once the scheduler's
// current run of events has ended, so every frame those events built (a message's packets)
// leaves in one gathered write (tcp_record_writer), written without blocking; a full send
// buffer waits for the socket to be writable. A connection that breaks drops what it holds
// and goes back to idle, and the next send opens it again. `generation` tells a handler of an
// earlier socket that its connection is gone.
struct tcp_out : std::enable_shared_from_this<tcp_out> {
    enum class state : std::uint8_t { idle, connecting, open };

    tcp_out(std::shared_ptr<socket_receiver> r, const ip_address& to)
        : rx(std::move(r)), destination(to), watch_byte{} {}

    std::shared_ptr<socket_receiver> rx;
    ip_address destination;
    std::optional<tcp::socket> socket;
    state st = state::idle;
    std::uint64_t generation = 0;
    bool closed = false;
    frame_queue queue;
    tcp_record_writer batch;
    bool flush_posted = false;  ///< a flush waits in the io_context
    bool waiting = false;       ///< the send buffer was full: a wait for writable is pending
    std::byte watch_byte;

    std::string who() const { return rx->who + " -> " + endpoint_text(destination, rx->port); }

    void enqueue(frame* f) {
        if (closed) {
            rx->socket.frames_dropped.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
            return;
        }
        queue.push(f);
        if (st == state::idle) {
            open();
        } else if (st == state::open && !flush_posted && !waiting) {
            flush_posted = true;
            const std::uint64_t gen = generation;
            boost::asio::post(rx->sched.io(), [self = shared_from_this(), gen] {
                self->flush_posted = false;
                if (gen == self->generation && !self->closed) {
                    self->flush();
                }
            });
        }
    }

    void open() {
        st = state::connecting;
        const std::uint64_t gen = ++generation;
        socket.emplace(rx->sched.io());
        const tcp::endpoint local(to_asio(rx->address), 0);
        boost::system::error_code ec;
        socket->open(local.protocol(), ec);
        if (!ec) {
            // From the adapter's own IP, so the receiver learns the sender from the connection.
            socket->bind(local, ec);
        }
        if (ec) {
            fail(ec, "bind");
            return;
        }
        socket->async_connect(tcp::endpoint(to_asio(destination), rx->port),
                              [self = shared_from_this(), gen](const boost::system::error_code& e) {
                                  self->connected(gen, e);
                              });
    }

    void connected(std::uint64_t gen, const boost::system::error_code& ec) {
        if (gen != generation || closed) {
            return;
        }
        if (ec) {
            fail(ec, "connect");
            return;
        }
        st = state::open;
        rx->socket.connections_opened.fetch_add(1, std::memory_order_relaxed);
        boost::system::error_code ignored;
        socket->set_option(tcp::no_delay(true), ignored);
        boost::system::error_code ec2;
        socket->non_blocking(true, ec2);  // flush() must never block the engine thread
        if (ec2) {
            fail(ec2, "non-blocking");
            return;
        }
        watch(gen);
        flush();
    }

    // The peer never writes on this connection: a read completes only when it closes or dies,
    // which breaks the connection now rather than at a later write.
    void watch(std::uint64_t gen) {
        socket->async_read_some(
            boost::asio::buffer(&watch_byte, 1),
            [self = shared_from_this(), gen](const boost::system::error_code& ec, std::size_t) {
                if (gen != self->generation || self->closed) {
                    return;
                }
                self->fail(ec ? ec
                              : boost::asio::error::make_error_code(
                                    boost::asio::error::connection_aborted),
                           "read (peer closed)");
            });
    }

    // Writes the queued records without blocking, a batch per sendmsg, until the queue is
    // empty or the send buffer is full; then waits until the socket is writable and goes on.
    void flush() {
        for (;;) {
            if (batch.empty()) {
                if (queue.empty()) {
                    return;
                }
                batch.fill(queue);
            }
            msghdr m{};
            m.msg_iov = batch.pending();
            m.msg_iovlen = batch.pending_count();
            // MSG_NOSIGNAL: a peer that went away is an EPIPE here, not a SIGPIPE.
            const ssize_t n = ::sendmsg(socket->native_handle(), &m, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n >= 0) {
                rx->socket.send_calls.fetch_add(1, std::memory_order_relaxed);
                batch.wrote(static_cast<std::size_t>(n));
                continue;
            }
            const int error = errno;
            if (error == EINTR) {
                continue;
            }
            if (error == EAGAIN || error == EWOULDBLOCK) {
                wait_writable();
                return;
            }
            fail(boost::system::error_code(error, boost::system::system_category()), "write");
            return;
        }
    }

    void wait_writable() {
        waiting = true;
        const std::uint64_t gen = generation;
        socket->async_wait(tcp::socket::wait_write,
                           [self = shared_from_this(), gen](const boost::system::error_code& ec) {
                               if (gen != self->generation || self->closed) {
                                   return;  // reset() cleared `waiting` for that socket
                               }
                               self->waiting = false;
                               if (ec) {
                                   self->fail(ec, "wait");
                                   return;
                               }
                               self->flush();
                           });
    }

    // The connection is broken (or never opened): drop what it holds, count it, and go back
    // to idle so the next send opens it again.
    void fail(const boost::system::error_code& ec, const char* what) {
        if (ec == boost::asio::error::eof) {
            // The peer closed its end (its adapter went away): counted like any broken
            // connection, but an orderly end is no cause for a warning.
            rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
            NDKSIM_DEBUG("{}: peer closed the connection", who());
        } else if (ec != boost::asio::error::operation_aborted) {
            rx->socket.send_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->send_error_logged, who(), what, ec);
        }
        reset();
    }

    void reset() {
        ++generation;
        st = state::idle;
        if (socket) {
            boost::system::error_code ignored;
            socket->close(ignored);
        }
        // Writes are synchronous, so no handler holds a frame: the batch's go back here.
        batch.drop(rx->socket.frames_dropped);
        queue.drop_all(rx->socket.frames_dropped);
        waiting = false;
    }

    void close() {
        closed = true;
        reset();
    }
};

// One incoming connection: reads the stream in chunks of up to 64 KiB (tcp_record_reader),
// copies each record's body into a receive frame and hands it to the engine. A length prefix
// out of bounds, or a frame whose departure is beyond max_departure_lead, kills this
// connection only (counted); a body that is no valid frame is counted and dropped, and the
// connection goes on.
//
// Lossless, as a RoCE fabric is (IEEE 802.1Qbb priority flow control pauses a sender instead
// of dropping): outside synchronized time, while the engine holds a full receive backlog the
// connection is not read, and TCP's window holds the sender back. Dropping there instead made
// the RC layer resend everything behind each lost frame (go-back-N), so a deep queue of large
// writes (128 outstanding 1 MiB writes) collapsed into retransmissions until its retries ran
// out. In synchronized time the stream also carries the peer's promises, which the engine
// needs to drain the backlog, so it is read on (the bound there is k_rx_sync_backlog_frames).
struct tcp_in : std::enable_shared_from_this<tcp_in> {
    tcp_in(std::shared_ptr<socket_receiver> r, tcp::socket s, const ip_address& from)
        : rx(std::move(r)), socket(std::move(s)), source(from), recheck(socket.get_executor()) {}

    /// How often a paused connection looks at the backlog again (wall time): 16 MiB of backlog
    /// take milliseconds to drain, so this delays the next read by a small fraction of that.
    static constexpr auto k_backlog_recheck = std::chrono::microseconds(50);

    std::shared_ptr<socket_receiver> rx;
    tcp::socket socket;
    ip_address source;
    tcp_record_reader reader;
    boost::asio::steady_timer recheck;
    bool done = false;

    bool backlog_full() const noexcept {
        return rx->lossless && rx->rx_pool->outstanding() >= k_rx_backlog_frames;
    }

    void read_when_drained() {
        recheck.expires_after(k_backlog_recheck);
        recheck.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (ec || self->done) {
                return;
            }
            if (self->backlog_full()) {
                self->read_when_drained();
                return;
            }
            self->read_next();
        });
    }

    void read_next() {
        const std::span<std::byte> space = reader.space();
        socket.async_read_some(
            boost::asio::buffer(space.data(), space.size()),
            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                self->got_bytes(ec, n);
            });
    }

    void got_bytes(const boost::system::error_code& ec, std::size_t n) {
        if (done) {
            return;  // closed meanwhile
        }
        if (ec) {
            end(ec);
            return;
        }
        rx->socket.receive_calls.fetch_add(1, std::memory_order_relaxed);
        const timing::scheduler::clock_hold hold(rx->sched);  // the read is one instant
        reader.filled(n);
        std::size_t length = 0;
        const auto found = reader.split(
            [this](const std::byte* body, std::size_t size) {
                frame* f = rx->rx_pool->take();
                std::memcpy(f->data, body, size);
                // A valid frame from a clock no peer of this simulation has: the connection
                // that carried it is hostile or broken, so it ends here, like one whose length
                // prefix is out of bounds; the sender's next frame opens a new one.
                return deliver_from_socket(rx, f, size, source) != socket_body::bad_departure;
            },
            length);
        if (found == tcp_record_reader::outcome::bad_length) {
            rx->socket.bad_records.fetch_add(1, std::memory_order_relaxed);
            // One line for the first (docs/wire-format.md, "Receiving"): a peer that opens
            // connection after connection to send junk must not flood the log.
            if (!rx->bad_record_logged.exchange(true, std::memory_order_relaxed)) {
                NDKSIM_WARN(
                    "{}: record of {} bytes from {} is out of bounds [{}, {}]; closing that "
                    "connection (further ones are only counted)",
                    rx->who, length, to_string(source), min_socket_body, max_socket_body);
            }
        }
        if (found != tcp_record_reader::outcome::more) {
            close();
            return;
        }
        if (backlog_full()) {
            rx->socket.reads_paused.fetch_add(1, std::memory_order_relaxed);
            read_when_drained();
            return;
        }
        read_next();
    }

    void end(const boost::system::error_code& ec) {
        if (ec != boost::asio::error::operation_aborted && ec != boost::asio::error::eof && !done) {
            rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->receive_error_logged, rx->who, "read", ec);
        }
        close();
    }

    void close() {
        done = true;
        recheck.cancel();
        boost::system::error_code ignored;
        socket.close(ignored);
    }
};

struct tcp_state : std::enable_shared_from_this<tcp_state> {
    explicit tcp_state(std::shared_ptr<socket_receiver> r)
        : rx(std::move(r)), acceptor(rx->sched.io()) {}

    std::shared_ptr<socket_receiver> rx;
    tcp::acceptor acceptor;
    bool closed = false;                           // written under out_mutex on the engine thread
    std::vector<std::shared_ptr<tcp_in>> inbound;  // engine thread only
    std::mutex out_mutex;
    std::map<std::array<std::uint8_t, 16>, std::shared_ptr<tcp_out>> outbound;

    void accept_next() {
        if (closed) {
            return;
        }
        acceptor.async_accept(
            [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket s) {
                self->accepted(ec, std::move(s));
            });
    }

    void accepted(const boost::system::error_code& ec, tcp::socket s) {
        if (closed || ec == boost::asio::error::operation_aborted) {
            return;
        }
        if (ec) {
            rx->socket.receive_errors.fetch_add(1, std::memory_order_relaxed);
            log_socket_error_once(rx->receive_error_logged, rx->who, "accept", ec);
        } else {
            boost::system::error_code peer_ec;
            const tcp::endpoint from = s.remote_endpoint(peer_ec);
            if (!peer_ec) {
                rx->socket.connections_accepted.fetch_add(1, std::memory_order_relaxed);
                std::erase_if(inbound, [](const std::shared_ptr<tcp_in>& c) { return c->done; });
                auto in = std::make_shared<tcp_in>(rx, std::move(s), from_asio(from.address()));
                inbound.push_back(in);
                in->read_next();
            }
        }
        accept_next();
    }

    // Writes what the open connections hold now, without waiting for a full send buffer.
    void flush_open() {
        std::lock_guard lock(out_mutex);
        for (auto& [key, out] : outbound) {
            if (out->st == tcp_out::state::open && !out->waiting) {
                out->flush();
            }
        }
    }

    void close() {
        // Under the map's mutex, so resolve() on another thread sees `closed`.
        std::lock_guard lock(out_mutex);
        closed = true;
        rx->attached.store(false, std::memory_order_release);
        boost::system::error_code ignored;
        acceptor.close(ignored);
        for (const auto& in : inbound) {
            in->close();
        }
        inbound.clear();
        for (auto& [key, out] : outbound) {
            out->close();
        }
        outbound.clear();
    }
};

namespace {

class tcp_peer final : public transport::peer {
  public:
    explicit tcp_peer(std::shared_ptr<tcp_out> c) : out(std::move(c)) {}
    std::shared_ptr<tcp_out> out;
};

}  // namespace

tcp_transport::tcp_transport(const ip_address& address, std::uint16_t port,
                             timing::scheduler& sched, receive_fn receive, timing::sim_time latency,
                             timing::sync_domain* domain)
    : socket_transport("tcp", address, port, sched, std::move(receive), latency, domain),
      state_(std::make_shared<tcp_state>(receiver())) {
    // Outside synchronized time a full backlog pauses reading (tcp_in), so nothing is dropped.
    state_->rx->lossless = domain == nullptr;
    const tcp::endpoint local(to_asio(address), port);
    boost::system::error_code ec;
    state_->acceptor.open(local.protocol(), ec);
    if (!ec) {
        // Lets an adapter bind its port again while connections of an earlier run linger in
        // TIME_WAIT; a port another socket listens on still gives EADDRINUSE.
        state_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    }
    if (!ec) {
        state_->acceptor.bind(local, ec);
    }
    if (!ec) {
        state_->acceptor.listen(tcp::socket::max_listen_connections, ec);
    }
    if (ec) {
        throw socket_setup_error(ec.value(),
                                 "cannot listen on TCP " + endpoint_text(address, port));
    }
    NDKSIM_DEBUG("{}: listening", state_->rx->who);
}

bool tcp_transport::input_pending() const noexcept {
    for (const auto& in : state_->inbound) {
        int bytes = 0;
        if (!in->done && ::ioctl(in->socket.native_handle(), FIONREAD, &bytes) == 0 && bytes > 0) {
            return true;
        }
    }
    return false;
}

void tcp_transport::start() {
    boost::asio::post(state_->rx->sched.io(), [s = state_] { s->accept_next(); });
}

tcp_transport::~tcp_transport() {
    run_on_engine_thread(state_->rx->sched, [this, s = state_] {
        if (leave_sync()) {
            s->flush_open();  // the leaving records, best effort
        }
        s->close();
    });
}

const ip_address& tcp_transport::peer_address(const peer& to) const noexcept {
    return static_cast<const tcp_peer&>(to).out->destination;
}

std::shared_ptr<transport::peer> tcp_transport::resolve(const ip_address& destination) {
    if (destination.v6 != state_->rx->address.v6) {
        return nullptr;
    }
    std::lock_guard lock(state_->out_mutex);
    if (state_->closed) {
        return nullptr;
    }
    auto& slot = state_->outbound[destination.bytes];
    if (!slot) {
        slot = std::make_shared<tcp_out>(state_->rx, destination);
    }
    return std::make_shared<tcp_peer>(slot);
}

bool tcp_transport::lends_payload(const peer& to) const noexcept {
    (void)to;
    return !state_->rx->sync;
}

void tcp_transport::enqueue(peer& to, frame* f) {
    // Runs at once on the engine thread (the common case: the engine sends), else posts there.
    boost::asio::dispatch(state_->rx->sched.io(),
                          [out = static_cast<tcp_peer&>(to).out, f] { out->enqueue(f); });
}

}  // namespace ndksim::wire
