#include "wire/socket_common.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <future>

#include "util/log.hpp"
#include "wire/opcode_table.hpp"

namespace ndksim::wire {

socket_receiver::socket_receiver(const ip_address& a, std::uint16_t p, timing::scheduler& s,
                                 transport::receive_fn r, timing::sim_time l)
    : address(a),
      port(p),
      sched(s),
      receive(std::move(r)),
      latency(l),
      rx_pool(frame_pool::create(64)) {}

bool append_departure(frame& f, timing::sim_time departure) noexcept {
    if (f.length > sizeof f.data - socket_trailer_size) {
        return false;
    }
    store_be<socket_trailer_size>(f.data + f.length, departure);
    return true;
}

bool strip_departure(frame& f, std::size_t length, timing::sim_time& departure) noexcept {
    if (length < min_socket_body || length > max_socket_body) {
        return false;
    }
    const std::size_t packet = length - socket_trailer_size;
    // The cheap part of the codec's checks 1-4 (docs/wire-format.md, "Decoding"): enough to
    // keep stray datagrams from moving the clock. The engine still decodes the whole frame and
    // checks its ICRC.
    const auto opcode = std::to_integer<std::uint8_t>(f.data[0]);
    const auto flags = std::to_integer<std::uint8_t>(f.data[1]);
    const opcode_info& info = opcode_lookup(opcode);
    if (packet % word_size != 0 || (flags & bth_tver_mask) != transport_version || !info.valid ||
        packet < info.header_size + icrc_size) {
        return false;
    }
    departure = load_be<socket_trailer_size>(f.data + packet);
    f.length = static_cast<std::uint32_t>(packet);
    return true;
}

void deliver_from_socket(const std::shared_ptr<socket_receiver>& rx, frame* f, std::size_t length,
                         const ip_address& source) {
    timing::sim_time departure = 0;
    if (!strip_departure(*f, length, departure)) {
        rx->socket.bad_frames.fetch_add(1, std::memory_order_relaxed);
        if (!rx->bad_frame_logged.exchange(true, std::memory_order_relaxed)) {
            NDKSIM_WARN(
                "{}: dropped a {}-byte record from {} that is no RoCEv2 packet with a "
                "departure trailer (further ones are only counted)",
                rx->who, length, to_string(source));
        }
        frame_pool::release(f);
        return;
    }
    f->source = source;
    // Causality across processes: the receiver's clock is pulled up to the sender's departure
    // before the arrival is computed, so a frame never lands in the receiver's past.
    rx->sched.advance_to(departure);
    f->arrival = std::max(arrival_after(departure, rx->latency), rx->sched.now());
    rx->sched.post_at(f->arrival, [rx, f] {
        if (rx->attached.load(std::memory_order_acquire)) {
            rx->counters.frames_received.fetch_add(1, std::memory_order_relaxed);
            rx->receive(f);
        } else {
            rx->counters.frames_unroutable.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
        }
    });
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
    done.get_future().wait();
}

void log_socket_error_once(std::atomic<bool>& flag, const std::string& who, const char* what,
                           const std::error_code& ec) {
    if (!flag.exchange(true, std::memory_order_relaxed)) {
        NDKSIM_WARN("{}: {} failed: {} (further errors of this kind are only counted)", who, what,
                    ec.message());
    }
}

}  // namespace ndksim::wire
