// SPDX-License-Identifier: MIT
#pragma once
// The NIC engine of one adapter: it owns the adapter's end of the link and its frame pool,
// receives every frame, and dispatches it to the stage that handles it:
//   connection-management datagrams -> connection_manager
//   requests (SEND, WRITE, READ request) -> responder
//   responses (ACK/NAK, READ responses) -> completer
// The requester turns posted work requests into frames. All stages run as tasks on the
// adapter's scheduler, one at a time, so per-QP pipeline state needs no lock.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/engine_hooks.hpp"
#include "core/object.hpp"
#include "nic/hw_model.hpp"
#include "nic/stats_registry.hpp"
#include "timing/cost_model.hpp"
#include "wire/codec.hpp"
#include "wire/frame.hpp"
#include "wire/transport.hpp"

namespace ndksim::core {
class device;
class qp;
}  // namespace ndksim::core

namespace ndksim::nic {

class connection_manager;

struct engine_config {
    timing::cost_model costs;
    /// RNR retries before a send fails with STATUS_IO_TIMEOUT; UINT32_MAX retries for ever.
    /// The default is finite, so a send that never finds a receive completes with an error
    /// (as ndmemorytest expects): 6, the largest finite value of IBA's 3-bit RNR Retry Count
    /// (7 there means "for ever").
    static constexpr std::uint32_t k_default_rnr_retry_limit = 6;
    std::uint32_t rnr_retry_limit = k_default_rnr_retry_limit;
    /// The RNR NAK timer code the responder sends (wire::rnr_timer_table; 1 = 10 us).
    std::uint8_t rnr_timer_code = 1;
    /// How long the connection manager waits for a reply or ready-to-use message [ps].
    timing::sim_time cm_response_timeout = timing::seconds(1);
    /// Transport timer (IB RC local ACK timeout): how long the oldest unacknowledged request
    /// may go without progress before it is sent again [ps]; 0 = no timer (never resent,
    /// never times out). Doubled per consecutive retry, at most k_ack_backoff_max_shift times.
    timing::sim_time ack_timeout = timing::microseconds(16000);
    /// Consecutive timer-driven retries without progress before the oldest request fails with
    /// STATUS_IO_TIMEOUT and the connection is torn down (IB retry_cnt).
    std::uint32_t retry_limit = 7;
    /// Host window (docs/engine.md, "Host window"): a QP keeps at most this many request
    /// packets sent and not yet acknowledged, and sends the rest as ACKs come; 0, no limit.
    /// Set outside deterministic and synchronized time only. UDP: a socket drops what a
    /// receiving process cannot take in time, where RoCE's fabric would pause the sender
    /// (PFC), and a dropped frame makes go-back-N resend everything behind it. TCP: frames
    /// wait in the connection's queue until the socket takes them, and a deep queue of large
    /// writes kept thousands of them, gone cold by then. In process, threaded: a receiving
    /// engine thread that falls behind keeps the frames in its inbox past the ACK timeout.
    /// The model's own figures (deterministic and synchronized time) never see it.
    std::uint32_t host_window_packets = 0;
    /// The hardware model takes no time (hw_model, "zero-cost"): for the stage unit tests.
    bool zero_cost_hardware = false;
};

/// The host window of the UDP wire [packets]: 2048 packets of 4 KiB are 8 MiB, half the
/// receive backlog a socket adapter holds (wire::k_rx_backlog_frames), so one QP's burst fits.
inline constexpr std::uint32_t k_udp_host_window_packets = 2048;

/// The host window of the TCP wire [packets]: 512 packets of 4 KiB are 2 MiB. A connection's
/// queue then holds a few hundred frames instead of every packet of the QP's outstanding
/// writes (docs/performance.md, "lent frames": 1.08x at 16 outstanding 1 MiB writes; 128
/// packets was slower than none, 1024 no better).
inline constexpr std::uint32_t k_tcp_host_window_packets = 512;

/// The host window of a threaded in-process pair [packets]: 2048 packets of 4 KiB are 8 MiB.
/// Each adapter's engine runs on its own thread, and a receiving engine slower than its sender
/// (the host, not the model) let a deep queue of large writes wait in its inbox longer than an
/// ACK timeout, which in threaded time lasts its wall duration: go-back-N then resent
/// everything behind, over and over (128 outstanding 1 MiB writes: 70 % of the packets sent
/// were resends; docs/engine.md, "Host window"). 4096 was no faster with one QP and slower
/// with four.
inline constexpr std::uint32_t k_inproc_host_window_packets = 2048;

/// The transport timer doubles per consecutive retry up to ack_timeout << this.
inline constexpr std::uint32_t k_ack_backoff_max_shift = 3;

/// The timer interval after `retries` consecutive retries without progress [ps].
constexpr timing::sim_time ack_timeout_after(timing::sim_time base,
                                             std::uint32_t retries) noexcept {
    return base << (retries < k_ack_backoff_max_shift ? retries : k_ack_backoff_max_shift);
}

/// The simulated time from the last progress until the oldest request fails when nothing
/// answers: every interval of the retries allowed, plus the last one [ps].
constexpr timing::sim_time retry_exhaustion_time(timing::sim_time base,
                                                 std::uint32_t retry_limit) noexcept {
    timing::sim_time total = 0;
    for (std::uint32_t i = 0; i <= retry_limit; ++i) {
        total += ack_timeout_after(base, i);
    }
    return total;
}

/// Counters of one engine (read by statistics and tests; relaxed atomics). Only the engine's tasks
/// write them, so the per-packet ones are added to with util::single_writer_add.
struct engine_counters {
    std::array<std::atomic<std::uint64_t>, wire::decode_error_count> bad_frames{};
    std::atomic<std::uint64_t> frames_for_unknown_qp{0};
    std::atomic<std::uint64_t> frames_for_unconnected_qp{0};
    std::atomic<std::uint64_t> packets_sent{0};
    std::atomic<std::uint64_t> packets_received{0};
    std::atomic<std::uint64_t> acks_sent{0};
    std::atomic<std::uint64_t> naks_sent{0};
    std::atomic<std::uint64_t> rnr_naks_sent{0};
    std::atomic<std::uint64_t> rnr_retries{0};
    std::atomic<std::uint64_t> retransmitted_packets{0};
    std::atomic<std::uint64_t> ack_timeouts{0};       ///< transport timer expiries that resent
    std::atomic<std::uint64_t> retries_exhausted{0};  ///< requests failed by the retry limit
    std::atomic<std::uint64_t> acks_coalesced{0};     ///< ACKs saved: covered by a later one
    std::atomic<std::uint64_t> window_waits{0};       ///< requester runs stopped by the host window
    std::atomic<std::uint64_t> stale_responses{0};    ///< ACKs/read responses for nothing
    std::atomic<std::uint64_t> connections_aborted{0};  ///< torn down by a fatal error
    std::atomic<std::uint64_t> duplicate_packets{0};
    std::atomic<std::uint64_t> out_of_sequence_packets{0};
    std::atomic<std::uint64_t> protocol_errors{0};
    std::atomic<std::uint64_t> pkey_violations{0};  ///< dropped: BTH P_Key not the QP's
    std::atomic<std::uint64_t> cm_messages_sent{0};
    std::atomic<std::uint64_t> cm_messages_received{0};
    std::atomic<std::uint64_t> cm_bad_messages{0};
    std::atomic<std::uint64_t> cm_messages_resent{0};  ///< sent again: the answer was late
};

class engine final : public core::engine_hooks {
  public:
    /// Builds the adapter's end of the link; it is handed the engine's frame entry point.
    using transport_factory =
        std::function<std::unique_ptr<wire::transport>(wire::transport::receive_fn)>;

    /// Attaches an engine to `dev`: registers its hooks and creates its end of the link with
    /// `make_link` (which may throw, e.g. when the address is already taken).
    engine(core::device& dev, engine_config cfg, const transport_factory& make_link);

    /// Detaches from the link and the device.
    ~engine() override;

    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    core::device& dev() noexcept { return dev_; }
    const engine_config& config() const noexcept { return cfg_; }
    wire::transport& link() noexcept { return *link_; }
    wire::frame_pool& frames() noexcept { return *frames_; }
    connection_manager& cm() noexcept { return *cm_; }
    engine_counters& counters() noexcept { return counters_; }
    /// The adapter's statistics: operation statistics of the adapter and of each QP, and every
    /// named counter (the engine's own, and those the link's builder registers).
    stats_registry& stats() noexcept { return stats_; }
    /// The hardware model: when each stage may happen (port, pipeline, PCIe, caches, WQE
    /// engines).
    hw_model& hw() noexcept { return hw_; }
    /// The QP context cache model (its hit and miss counters).
    const qp_context_cache& qp_contexts() const noexcept { return hw_.qp_contexts(); }

    /// Gives a new QP its engine state. Called once, right after the QP is created.
    void attach_qp(core::qp& q);

    /// An incoming write's last byte was placed in the consumer's memory: in synchronized time
    /// a consumer thread may be watching that memory, so the sync domain may stop there for it
    /// (timing::sync_domain::data_placed). Engine thread.
    void note_data_placed() noexcept;

    /// Puts a finished frame on the link to `to` when the hardware model lets it leave (after
    /// the frames already queued on this adapter's port). `ready` is the earliest simulated
    /// time the frame can leave [ps].
    void transmit(wire::transport::peer& to, wire::frame* f, timing::sim_time ready);

    /// The first half of transmit, for a frame built later: the port takes a frame of
    /// `frame_length` bytes ready at `ready` [ps] in its turn, and the time its last bit leaves
    /// is returned [ps]. The frame must be handed over (hand_over) with that time.
    timing::sim_time reserve_departure(std::size_t frame_length, timing::sim_time ready);

    /// The second half of transmit: puts `f` on the link to `to`, its last bit leaving at
    /// `last_bit` (from reserve_departure).
    void hand_over(wire::transport::peer& to, wire::frame* f, timing::sim_time last_bit);

    /// The link's receive entry, at the frame's last bit: the frame passes the receive
    /// pipeline and its payload (and the CQE it may complete) is written to host memory over
    /// PCIe; it is dispatched when that is done (docs/timing.md, steps 7-9).
    void on_frame(wire::frame* f);

    // core::engine_hooks
    void qp_closing(core::qp& q) override;
    void connector_closing(core::connector& c) override;
    void listener_closing(core::listener& l) override;

  private:
    core::device& dev_;
    engine_config cfg_;
    std::shared_ptr<wire::frame_pool> frames_;
    std::unique_ptr<wire::transport> link_;
    wire::ip_address local_address_;     ///< the link's, kept for frames queued at teardown
    std::atomic<bool> detached_{false};  ///< the engine is going: arriving frames are dropped
    std::unique_ptr<connection_manager> cm_;
    engine_counters counters_;
    stats_registry stats_;
    hw_model hw_;

    /// Registers the engine's counters, the QP context cache's and the memory unit's
    /// translation cache's in stats_ (once, from the constructor).
    void register_counters();

    /// Queues `f` for dispatch after the receive pipeline (hw_model::rx_packet); `q`, when set, is
    /// the QP matches_live found for it.
    void receive(wire::frame* f, core::ref<core::qp> q);
    /// Hands `f` to the stage that takes it; `found`, when set, is its destination QP already
    /// looked up (else dispatch looks it up).
    void dispatch(wire::frame* f, const core::ref<core::qp>& found);

    /// How a data frame from `source` relates to the QP it names (nullptr: no such QP).
    enum class qp_match : std::uint8_t {
        unknown,       ///< no such QP
        unconnected,   ///< the QP has no connection
        stranger,      ///< connected, but to another address
        peer,          ///< connected to `source`
        awaiting_rtu,  ///< accepted from `source`, its ready-to-use message not yet here
    };
    /// Receive side: hints the memory unit at the target of a request frame from a connected
    /// peer that carries a RETH (mem::translation_unit::prefetch).
    void prefetch_target(const wire::frame& f) const noexcept;
    qp_match match_qp(core::qp* q, const wire::ip_address& source) const;
    /// True when `p`, for a QP awaiting its ready-to-use message, stands for that message:
    /// an RC request at the PSN the peer announced.
    bool establishes(core::qp& q, const wire::decoded_packet& p) const;
    /// True when `f` belongs to a live connection or is a request for a live listener: a data
    /// frame from a connected QP's peer, or a CM message connection_manager::matches_live
    /// takes. Changes nothing; `q` receives a data frame's destination QP.
    bool matches_live(const wire::frame& f, core::ref<core::qp>& q);
};

}  // namespace ndksim::nic
