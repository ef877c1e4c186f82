#include "wire/tcp_transport.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "util/log.hpp"
#include "wire/frame_queue.hpp"
#include "wire/socket_address.hpp"

namespace ndksim::wire {

using boost::asio::ip::tcp;

// Ownership and threads, for every type below: the transport, each pending handler and each
// scheduled delivery hold their object through a shared_ptr, so a handler completing after the
// transport closed (with operation_aborted) still finds it. All handlers, and every touch of a
// socket or a send queue, run on the engine thread (the scheduler's io_context); only the
// destination map is reached from other threads (resolve), under its mutex.

namespace {

constexpr std::size_t k_prefix_size = 4;  // record length prefix, big-endian [bytes]
constexpr std::size_t k_gather = 16;      // frames gathered into one write at most

}  // namespace

// One outgoing connection, to one destination address. Frames queue in an intrusive list
// through frame::next; a write carries up to k_gather of them. A connection that breaks drops
// what it holds and goes back to idle, and the next send opens it again. `generation` tells a
// handler of an earlier socket that its connection is gone.
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
    std::array<frame*, k_gather> flight{};
    std::size_t flight_count = 0;
    std::array<std::array<std::byte, k_prefix_size>, k_gather> prefixes{};
    std::array<boost::asio::const_buffer, 2 * k_gather> buffers{};
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
        } else if (st == state::open && flight_count == 0) {
            write_next();
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
        watch(gen);
        write_next();
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

    void write_next() {
        if (flight_count != 0 || queue.empty()) {
            return;
        }
        std::size_t n = 0;
        while (n < k_gather && !queue.empty()) {
            frame* f = queue.pop();
            store_be<k_prefix_size>(prefixes[n].data(), f->length);
            buffers[2 * n] = boost::asio::buffer(prefixes[n]);
            buffers[2 * n + 1] = boost::asio::buffer(f->data, f->length);
            flight[n++] = f;
        }
        flight_count = n;
        const std::uint64_t gen = generation;
        boost::asio::async_write(
            *socket, std::span<const boost::asio::const_buffer>(buffers.data(), 2 * n),
            [self = shared_from_this(), gen](const boost::system::error_code& ec, std::size_t) {
                self->written(gen, ec);
            });
    }

    void written(std::uint64_t gen, const boost::system::error_code& ec) {
        const std::size_t n = flight_count;
        flight_count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            frame_pool::release(flight[i]);
        }
        if (gen != generation || closed) {
            return;
        }
        if (ec) {
            rx->socket.frames_dropped.fetch_add(n, std::memory_order_relaxed);
            fail(ec, "write");
            return;
        }
        write_next();
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
        queue.drop_all(rx->socket.frames_dropped);
        // Frames of a write in flight come back when its handler runs (operation_aborted).
    }

    void close() {
        closed = true;
        reset();
        // The socket was closed on this thread, so the write in flight no longer touches its
        // frames, and its handler may never run (the io_context stops with the adapter).
        for (std::size_t i = 0; i < flight_count; ++i) {
            frame_pool::release(flight[i]);
        }
        flight_count = 0;
    }
};

// One incoming connection: reads records and hands their bodies to the engine. A length
// prefix out of bounds, or a frame whose departure is beyond max_departure_lead, kills this
// connection only (counted); a body that is no valid frame is counted and dropped, and the
// connection goes on.
struct tcp_in : std::enable_shared_from_this<tcp_in> {
    tcp_in(std::shared_ptr<socket_receiver> r, tcp::socket s, const ip_address& from)
        : rx(std::move(r)), socket(std::move(s)), source(from) {}

    std::shared_ptr<socket_receiver> rx;
    tcp::socket socket;
    ip_address source;
    std::array<std::byte, k_prefix_size> prefix{};
    frame* body = nullptr;
    bool done = false;

    void read_prefix() {
        boost::asio::async_read(socket, boost::asio::buffer(prefix),
                                [self = shared_from_this()](const boost::system::error_code& ec,
                                                            std::size_t) { self->got_prefix(ec); });
    }

    void got_prefix(const boost::system::error_code& ec) {
        if (ec) {
            end(ec);
            return;
        }
        const auto length = static_cast<std::size_t>(load_be<k_prefix_size>(prefix.data()));
        if (length < min_socket_body || length > max_socket_body) {
            rx->socket.bad_records.fetch_add(1, std::memory_order_relaxed);
            // One line for the first (docs/wire-format.md, "Receiving"): a peer that opens
            // connection after connection to send junk must not flood the log.
            if (!rx->bad_record_logged.exchange(true, std::memory_order_relaxed)) {
                NDKSIM_WARN(
                    "{}: record of {} bytes from {} is out of bounds [{}, {}]; closing that "
                    "connection (further ones are only counted)",
                    rx->who, length, to_string(source), min_socket_body, max_socket_body);
            }
            close();
            return;
        }
        body = rx->rx_pool->take();
        boost::asio::async_read(
            socket, boost::asio::buffer(body->data, length),
            [self = shared_from_this()](const boost::system::error_code& e, std::size_t n) {
                self->got_body(e, n);
            });
    }

    void got_body(const boost::system::error_code& ec, std::size_t n) {
        frame* f = body;
        body = nullptr;
        if (f == nullptr) {
            return;  // closed meanwhile: close() took the frame back
        }
        if (ec) {
            frame_pool::release(f);
            end(ec);
            return;
        }
        if (deliver_from_socket(rx, f, n, source) == socket_body::bad_departure) {
            // A valid frame from a clock no peer of this simulation has: the connection that
            // carried it is hostile or broken, so it ends here, like one whose length prefix
            // is out of bounds; the sender's next frame opens a new one.
            close();
            return;
        }
        read_prefix();
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
        boost::system::error_code ignored;
        socket.close(ignored);
        // As for an outgoing connection: the read's handler may never run.
        frame_pool::release(body);
        body = nullptr;
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
                in->read_prefix();
            }
        }
        accept_next();
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
                             timing::scheduler& sched, receive_fn receive, timing::sim_time latency)
    : socket_transport("tcp", address, port, sched, std::move(receive), latency),
      state_(std::make_shared<tcp_state>(receiver())) {
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

void tcp_transport::start() {
    boost::asio::post(state_->rx->sched.io(), [s = state_] { s->accept_next(); });
}

tcp_transport::~tcp_transport() {
    run_on_engine_thread(state_->rx->sched, [s = state_] { s->close(); });
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

void tcp_transport::enqueue(peer& to, frame* f) {
    // Runs at once on the engine thread (the common case: the engine sends), else posts there.
    boost::asio::dispatch(state_->rx->sched.io(),
                          [out = static_cast<tcp_peer&>(to).out, f] { out->enqueue(f); });
}

}  // namespace ndksim::wire
