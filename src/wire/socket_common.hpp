// SPDX-License-Identifier: MIT
#pragma once
// What the UDP and TCP transports share: the 8-byte trailer that carries a frame's simulated
// departure time across processes, the checks a body read from a socket passes before its
// trailer is trusted (the whole codec, ICRC included, then a bound on the departure time), the
// counters of a socket transport, the receiving half of one, and the exception a socket transport
// throws when it cannot bind its adapter's address (docs/wire-format.md, "On the socket" and
// "Hostile input").

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <system_error>

#include "timing/scheduler.hpp"
#include "timing/sim_time.hpp"
#include "wire/frame.hpp"
#include "wire/icrc.hpp"
#include "wire/proto.hpp"
#include "wire/transport.hpp"

namespace ndksim::wire {

/// Bytes after the RoCEv2 packet on the socket: the departure time [ps], big-endian.
inline constexpr std::size_t socket_trailer_size = 8;

/// Shortest record body a socket carries: a BTH, an ICRC and the trailer [bytes].
inline constexpr std::size_t min_socket_body = bth_size + icrc_size + socket_trailer_size;

/// Longest record body a socket carries: whatever fits a frame buffer [bytes]. It is above
/// frame_capacity(4096) + the trailer, the longest body a simulated adapter sends.
inline constexpr std::size_t max_socket_body = k_max_frame_bytes;

/// How far a frame's departure time may lie ahead of the receiver's clock [ps]: 2^60 ps, about
/// 13.3 days. A legitimate peer is ahead only by the difference between the two adapters' ages
/// on the simulated clock, before their first exchange pulls the later one up (afterwards they
/// stay within a millisecond, docs/engine.md); with a pace factor of 1 or more that takes days
/// of wall time in one process before the other starts. The clock spans 2^64 ps (about 213
/// days), so one refused jump would have taken a sixteenth of it, and a departure near the end
/// of the range would make every `now + timeout` wrap.
inline constexpr timing::sim_time max_departure_lead = timing::sim_time{1} << 60;

/// How many frames read from its socket an adapter may hold before its engine has processed
/// them (the receive backlog: deliveries scheduled, frames waiting in the engine's queue)
/// [frames]. 4096 frames are about 17 MiB; at the modelled 100 Gb/s they are about 1.3 ms of
/// line rate, more than the millisecond a threaded adapter's clock may run ahead of the wall
/// clock, so a peer that keeps to the modelled link never fills it. A frame read beyond it is
/// dropped unread and counted (socket_counters::backlog_dropped): RC resends it, as it does a
/// frame the kernel dropped for want of socket buffer.
inline constexpr std::size_t k_rx_backlog_frames = 4096;

/// The receive backlog for the frames of a peer in synchronized time [frames]: 65536 frames are
/// about 270 MiB. Such a peer hands its frames to the socket as its model builds them, each
/// with a departure that may lie far in the simulated future (16 writes of 1 MiB posted at once
/// are 4096 frames), and the engine holds them until the gate lets their arrival run; a frame
/// dropped here would change what the model does (a retransmission it would not have had), so
/// only a flood beyond this bound is dropped, and sockets.backlog_dropped says so.
inline constexpr std::size_t k_rx_sync_backlog_frames = 65536;

/// The receive pool's steady size [frames]: what it keeps once a backlog has drained. Frames
/// taken beyond it are given back by a trim check every k_rx_trim_interval while the pool is
/// above it, once the backlog is back within it.
inline constexpr std::size_t k_rx_steady_frames = 256;

/// Simulated time between the trim checks of a receive pool above its steady size [ps].
inline constexpr timing::sim_time k_rx_trim_interval = timing::milliseconds(1);

/// Consecutive trim checks that must find the backlog within the steady size before the pool
/// gives its growth back: a stream of large writes dips to an empty backlog between bursts,
/// and freeing the frames at each dip only to fault fresh pages in for the next burst cost
/// the receiving process 6 % of its time (page faults and page clearing, in perf record -g
/// of a 1 MiB write stream over UDP). 50 ms of quiet means the flood is over.
inline constexpr std::uint32_t k_rx_trim_quiet_checks = 50;

/// Counters a socket transport keeps besides link_counters (relaxed atomics: read by tests and
/// statistics on other threads).
struct socket_counters {
    std::atomic<std::uint64_t> bad_frames{0};            ///< too short or too long for a frame
    std::atomic<std::uint64_t> bad_records{0};           ///< TCP length prefix out of bounds
    std::atomic<std::uint64_t> frames_dropped{0};        ///< queued on a connection that broke
    std::atomic<std::uint64_t> send_errors{0};           ///< failed sends, connects and writes
    std::atomic<std::uint64_t> receive_errors{0};        ///< failed receives, accepts and reads
    std::atomic<std::uint64_t> connections_opened{0};    ///< TCP: outgoing connections made
    std::atomic<std::uint64_t> connections_accepted{0};  ///< TCP: incoming connections taken
    /// Valid frames whose departure lay more than max_departure_lead ahead (dropped; over TCP
    /// their connection is closed).
    std::atomic<std::uint64_t> departures_refused{0};
    /// UDP: datagrams the kernel dropped because the socket's receive buffer was full, as
    /// SO_RXQ_OVFL reports them (updated when the next datagram is read).
    std::atomic<std::uint64_t> receive_overruns{0};
    /// Frames dropped unread because the receive backlog held k_rx_backlog_frames already.
    std::atomic<std::uint64_t> backlog_dropped{0};
    /// System calls that handed frames to the kernel (sendmmsg, sendmsg) or took bytes from it
    /// (recvmmsg, recv): frames per call is what batching buys.
    std::atomic<std::uint64_t> send_calls{0};
    std::atomic<std::uint64_t> receive_calls{0};
    /// Synchronized time (wire/sync_link.hpp): sync records sent and applied.
    std::atomic<std::uint64_t> sync_records_sent{0};
    std::atomic<std::uint64_t> sync_records_received{0};
    /// Sync records dropped: malformed, from an address that is no peer, or claiming frames
    /// never sent to it.
    std::atomic<std::uint64_t> sync_records_refused{0};
    /// Frames not sent because their destination was declared lost or left.
    std::atomic<std::uint64_t> frames_to_lost_peers{0};
    /// TCP outside synchronized time: reads put off because the receive backlog was full
    /// (tcp_transport.cpp, "Lossless"; docs/wire-format.md, "Receiving").
    std::atomic<std::uint64_t> reads_paused{0};
};

class sync_link;

/// Thrown by a socket transport's constructor when its socket cannot be opened, bound or put to
/// listen. code() is the errno value (std::generic_category); what() names address:port, and
/// std::system_error appends the errno text.
class socket_setup_error : public std::system_error {
  public:
    socket_setup_error(int error, const std::string& what)
        : std::system_error(error, std::generic_category(), what) {}
};

/// Appends the trailer carrying `departure` [ps] to `f`. Returns false, leaving `f` unchanged,
/// when the frame leaves no room for it.
bool append_departure(frame& f, timing::sim_time departure) noexcept;

/// What a record body read from a socket turned out to be.
enum class socket_body : std::uint8_t {
    frame,          ///< a valid frame with a departure time the receiver accepts
    bad_size,       ///< shorter than min_socket_body or longer than max_socket_body
    bad_frame,      ///< failed the codec's checks (decode_frame, ICRC included)
    bad_departure,  ///< a valid frame whose departure is beyond max_departure_lead
    dropped,        ///< not looked at: the receive backlog was full (k_rx_backlog_frames)
    sync_record,    ///< a sync record (synchronized time), handed to the receiver's sync link
};

/// Checks a record body of `length` bytes read into `f` from the peer of `arrived_on` (the
/// flow as the sender saw it: source = the peer, destination = this adapter) when the
/// receiver's clock reads `now`, and splits it. Unless the result is bad_size, f.length becomes
/// the packet's length without the trailer. `departure` [ps] is read from the trailer only once
/// the packet passed every check of decode_frame, ICRC included, so a forged or damaged frame
/// never moves the clock; it is set for `frame` and `bad_departure` only. Allocates nothing and
/// logs nothing.
[[nodiscard]] socket_body split_socket_body(frame& f, std::size_t length, const flow& arrived_on,
                                            timing::sim_time now,
                                            timing::sim_time& departure) noexcept;

/// `departure` + `latency` without wrapping [ps].
constexpr timing::sim_time arrival_after(timing::sim_time departure,
                                         timing::sim_time latency) noexcept {
    return departure > UINT64_MAX - latency ? UINT64_MAX : departure + latency;
}

/// The receiving half both socket transports share: what a frame read from a socket needs to
/// reach the engine. Owned through a shared_ptr by the transport and by every pending socket
/// handler and scheduled delivery, so none of them outlives it; touched on the adapter's engine
/// thread only, except the atomics.
struct socket_receiver {
    socket_receiver(const ip_address& address, std::uint16_t port, timing::scheduler& sched,
                    transport::receive_fn receive, timing::sim_time latency);

    ip_address address;
    std::uint16_t port;
    std::string who;  ///< "udp 127.0.0.1:4791", for log lines
    timing::scheduler& sched;
    transport::receive_fn receive;
    timing::sim_time latency;
    /// Synchronized time: the link to the sync domain's peers, else nullptr. Set once by the
    /// transport's constructor, used on the engine thread only.
    std::shared_ptr<sync_link> sync;
    /// The transport holds its sender back itself while the receive backlog is full (TCP
    /// outside synchronized time: it stops reading, and TCP's window does the rest), so a
    /// frame it read is never dropped for the backlog bound. Set once by the transport.
    bool lossless = false;
    // Receive buffers. Frames are taken on the engine thread only (frame_pool's rule) and go
    // back to this pool when the engine releases them, on that same thread, so with no atomic
    // read-modify-write (the pool names the scheduler); the pool outlives the transport while
    // frames are out.
    std::shared_ptr<frame_pool> rx_pool;
    bool trim_armed = false;       ///< a trim check of rx_pool is scheduled (engine thread only)
    std::uint32_t trim_quiet = 0;  ///< consecutive checks that found the backlog small
    std::atomic<bool> attached{true};
    link_counters counters;
    socket_counters socket;
    std::atomic<bool> send_error_logged{false};
    std::atomic<bool> receive_error_logged{false};
    std::atomic<bool> bad_frame_logged{false};
    std::atomic<bool> bad_departure_logged{false};
    std::atomic<bool> bad_record_logged{false};  ///< TCP: a length prefix out of bounds
};

/// Hands a record body of `length` bytes read into `f` from `source` to the engine
/// (split_socket_body decides; engine thread only). With a sync link, a body marked as a sync
/// record goes to the link instead (sync_record; wire/sync_record.hpp), and every valid frame
/// is reported to it as read.
/// - frame: hands it to the engine now, marked `stamped` with the sender's departure and its
///   arrival (departure + latency); the engine moves the clock to the departure
///   (scheduler::advance_to) and holds the frame until its arrival only once the frame
///   matched a live connection or listener;
/// - bad_frame: hands the packet to the engine now, without reading its trailer, so the engine
///   drops and counts it by cause as it does any bad frame (engine_counters::bad_frames);
/// - bad_size: counts it in socket_counters::bad_frames and releases it;
/// - bad_departure: counts it in socket_counters::departures_refused and releases it;
/// - dropped: checked first, before the codec: the receive backlog already holds
///   k_rx_backlog_frames frames and the transport is not lossless, so this one is counted in
///   socket_counters::backlog_dropped and released, and its buffer serves the next read.
/// While the receive pool is above its steady size, a trim check is scheduled that gives the
/// frames beyond it back once the backlog has drained to that size.
/// The first refusal of each kind is logged; later ones are only counted. Returns the verdict,
/// so the TCP transport can close the connection that carried a bad departure.
socket_body deliver_from_socket(const std::shared_ptr<socket_receiver>& rx, frame* f,
                                std::size_t length, const ip_address& source);

/// Runs `fn` on `sched`'s engine thread and returns once it has run (at once when called on
/// that thread), so a transport's sockets are closed where their handlers run. Under
/// poll_policy::consumer the calling thread runs the engine meanwhile, and `fn` with it.
void run_on_engine_thread(timing::scheduler& sched, const std::function<void()>& fn);

/// Logs a socket transport's error the first time `flag` sees it (later ones are only
/// counted), so a peer that vanished does not flood the log.
void log_socket_error_once(std::atomic<bool>& flag, const std::string& who, const char* what,
                           const std::error_code& ec);

}  // namespace ndksim::wire
