// SPDX-License-Identifier: MIT
#include "wire/socket_common.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <span>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "util/log.hpp"
#include "util/single_writer.hpp"
#include "wire/codec.hpp"
#include "wire/sync_link.hpp"
#include "wire/sync_record.hpp"

namespace ndksim::wire {

socket_receiver::socket_receiver(const ip_address& a, std::uint16_t p, timing::scheduler& s,
                                 transport::receive_fn r, timing::sim_time l)
    : address(a),
      port(p),
      sched(s),
      receive(std::move(r)),
      latency(l),
      rx_pool(frame_pool::create(64, k_rx_steady_frames, &s)) {}

bool append_departure(frame& f, timing::sim_time departure) noexcept {
    if (f.length > sizeof f.data - socket_trailer_size) {
        return false;
    }
    store_be<socket_trailer_size>(f.data + f.length, departure);
    return true;
}

socket_body split_socket_body(frame& f, std::size_t length, const flow& arrived_on,
                              timing::sim_time now, timing::sim_time& departure) noexcept {
    if (length < min_socket_body || length > max_socket_body) {
        return socket_body::bad_size;
    }
    f.length = static_cast<std::uint32_t>(length - socket_trailer_size);
    // The whole codec, ICRC included (docs/wire-format.md, "Decoding"), before a byte of the
    // trailer is read: RoCE has no authentication, and the ICRC over the peer's flow is what
    // ties the departure time to a frame that peer built. The engine decodes the frame again
    // when it arrives, as it does on every link, but skips the ICRC this check computed over
    // the same flow; a frame that failed goes on unmarked and is counted there by cause.
    if (!decode_frame(std::span<const std::byte>(f.data, f.length), arrived_on).ok()) {
        return socket_body::bad_frame;
    }
    f.icrc_checked = true;
    departure = load_be<socket_trailer_size>(f.data + f.length);
    if (departure > now && departure - now > max_departure_lead) {
        return socket_body::bad_departure;
    }
    return socket_body::frame;
}

namespace {

// Hands `f` to the engine now, or drops it when the transport has gone.
void schedule_delivery(const std::shared_ptr<socket_receiver>& rx, frame* f) {
    rx->sched.post([rx, f] {
        if (rx->attached.load(std::memory_order_acquire)) {
            util::single_writer_add(rx->counters.frames_received);
            rx->receive(f);
        } else {
            rx->counters.frames_unroutable.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
        }
    });
}

// A flood grows the receive pool up to the backlog bound; once the engine has caught up and
// the backlog stayed small for k_rx_trim_quiet_checks checks, the frames beyond the steady
// size go back to the system instead of staying with the adapter for good. The check runs on
// the engine thread (the pool's owner) and only while the pool is above its steady size, so
// steady traffic pays nothing for it.
void arm_trim(const std::shared_ptr<socket_receiver>& rx) {
    if (rx->trim_armed || !rx->rx_pool->above_steady()) {
        return;
    }
    rx->trim_armed = true;
    rx->sched.post_after(k_rx_trim_interval, [rx] {
        rx->trim_armed = false;
        const bool quiet = rx->rx_pool->outstanding() <= k_rx_steady_frames;
        rx->trim_quiet = quiet ? rx->trim_quiet + 1 : 0;
        if (rx->trim_quiet >= k_rx_trim_quiet_checks) {
            rx->trim_quiet = 0;
            if (rx->rx_pool->trim() > 0) {
#if defined(__GLIBC__)
                // glibc keeps what a thread frees in that thread's arena for its next
                // allocation: without this the frames go back to the allocator, not to the
                // system, and the process stays at its peak (measured: 24 MB after a flood,
                // 8 MB with it).
                malloc_trim(0);
#endif
            }
            // Done, whether or not frames beyond the steady size are still out (the socket's
            // own receive buffers are): the next frame delivered arms a new check. A check
            // that re-armed itself here would keep the scheduler busy for good, and an
            // adapter's close waits for its scheduler to go idle.
            return;
        }
        // A transport that is gone reads no more: its leftover frames go with the pool.
        if (rx->attached.load(std::memory_order_acquire)) {
            arm_trim(rx);
        }
    });
}

}  // namespace

socket_body deliver_from_socket(const std::shared_ptr<socket_receiver>& rx, frame* f,
                                std::size_t length, const ip_address& source) {
    if (rx->sync) {
        // A record is told from a frame by its first byte, an opcode no frame carries.
        sync_record r;
        const sync_body verdict = decode_sync_record(
            std::span<const std::byte>(f->data, std::min(length, sizeof f->data)), r);
        if (verdict != sync_body::not_a_record) {
            rx->sync->record_read(source, verdict, r);
            frame_pool::release(f);
            return socket_body::sync_record;
        }
    }
    // The bound comes before the codec: under a flood the engine thread spends nothing on a
    // frame it cannot keep. `f` itself is out of the pool, hence the strict comparison.
    if (const std::size_t held = rx->rx_pool->outstanding();
        !rx->lossless && held > k_rx_backlog_frames &&
        (held > k_rx_sync_backlog_frames || !rx->sync || !rx->sync->is_peer(source))) {
        rx->socket.backlog_dropped.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return socket_body::dropped;
    }
    arm_trim(rx);
    // The flow as the sender computed the ICRC over it: from the peer to this adapter, on the
    // RoCEv2 port whatever port the sockets use (docs/wire-format.md, "ICRC").
    const flow arrived_on{source, rx->address, roce_udp_port, roce_udp_port, 0};
    timing::sim_time departure = 0;
    const socket_body verdict =
        split_socket_body(*f, length, arrived_on, rx->sched.now(), departure);
    switch (verdict) {
        case socket_body::frame:
            // Causality across processes: the receiver's clock is pulled up to the sender's
            // departure, so a frame never lands in the receiver's past. But a stranger's
            // frame must not move it (nothing from the wire changes state before it matched
            // what it claims): the engine does it once it matched the frame, so the frame
            // goes to it now, carrying its departure and arrival.
            f->source = source;
            f->stamped = true;
            f->departure = departure;
            f->arrival = arrival_after(departure, rx->latency);
            if (rx->sync) {
                rx->sync->frame_read(source, f->arrival);
            }
            schedule_delivery(rx, f);
            break;
        case socket_body::bad_frame:
            // Its trailer is not trusted, so it arrives now; the engine counts it by cause.
            f->source = source;
            f->arrival = rx->sched.now();
            schedule_delivery(rx, f);
            break;
        case socket_body::bad_size:
            rx->socket.bad_frames.fetch_add(1, std::memory_order_relaxed);
            if (!rx->bad_frame_logged.exchange(true, std::memory_order_relaxed)) {
                NDKSIM_WARN(
                    "{}: dropped a {}-byte record from {}, outside [{}, {}] bytes: no RoCEv2 "
                    "packet with a departure trailer (further ones are only counted)",
                    rx->who, length, to_string(source), min_socket_body, max_socket_body);
            }
            frame_pool::release(f);
            break;
        case socket_body::bad_departure:
            rx->socket.departures_refused.fetch_add(1, std::memory_order_relaxed);
            if (!rx->bad_departure_logged.exchange(true, std::memory_order_relaxed)) {
                NDKSIM_WARN(
                    "{}: dropped a frame from {} that departed at {} ps, more than {} ps ahead "
                    "of this adapter's clock ({} ps); its sender is not a peer of this "
                    "simulation (further ones are only counted)",
                    rx->who, to_string(source), departure, max_departure_lead, rx->sched.now());
            }
            frame_pool::release(f);
            break;
        case socket_body::dropped:
        case socket_body::sync_record:
            break;  // split_socket_body never returns them
    }
    return verdict;
}

void run_on_engine_thread(timing::scheduler& sched, const std::function<void()>& fn) {
    if (sched.io().get_executor().running_in_this_thread()) {
        fn();
        return;
    }
    std::promise<void> done;
    boost::asio::post(sched.io(), [&] {
        fn();
        done.set_value();
    });
    std::future<void> ran = done.get_future();
    if (sched.consumer_driven()) {
        // The engine thread keeps out while a consumer runs the engine (poll_policy::consumer),
        // and this thread has just been one: it runs the engine until fn has run.
        while (ran.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            if (sched.progress() == 0) {
                std::this_thread::yield();
            }
        }
        return;
    }
    ran.wait();
}

void log_socket_error_once(std::atomic<bool>& flag, const std::string& who, const char* what,
                           const std::error_code& ec) {
    if (!flag.exchange(true, std::memory_order_relaxed)) {
        NDKSIM_WARN("{}: {} failed: {} (further errors of this kind are only counted)", who, what,
                    ec.message());
    }
}

}  // namespace ndksim::wire
