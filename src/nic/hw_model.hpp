// SPDX-License-Identifier: MIT
#pragma once
// The NIC's hardware model: the one place that answers "when". The protocol stages (requester,
// responder, completer, retransmit, local operations) decide *what* happens and ask this model
// once per packet or per WQE when the hardware lets it happen; they never read the cost model
// or keep a hardware clock themselves. docs/timing.md derives every stage below, and the
// calibration (bench/calibration) measures what this model produces.
//
// Resources that queue, each busy until its free-at time (a stage that finds one busy waits):
//   the port               one frame at a time, for its serialization
//   the NIC pipeline       one packet per packet_interval()
//   PCIe host-to-NIC       read completions (WQE fetches, payload reads)
//   PCIe NIC-to-host       posted writes (placement, CQEs)
//   the receive side       frames are dispatched in arrival order
//   translation fetches    k_translation_fetches_in_flight MTT misses overlap
//   QP context fetches     k_context_fetches_in_flight QPC misses overlap
//   each QP's WQE engine   per WQE, per doorbell, per READ response (qp_state)
//
// Touched only from the adapter's engine tasks (one at a time), so it needs no lock; nothing
// here allocates after construction.
//
// A zero-cost model (engine_config::zero_cost_hardware) answers every question with "now": no
// stage takes time and no resource queues. The stage unit tests (tests/unit/nic) run on it, so
// that what they see is the protocol alone.

#include <array>
#include <cstdint>
#include <vector>

#include "nic/qp_context_cache.hpp"
#include "timing/cost_model.hpp"
#include "timing/sim_time.hpp"
#include "wire/frame.hpp"

namespace ndksim::nic {

class hw_model {
  public:
    /// The hardware state of one QP: its WQE engine, busy until `wqe_engine_free_at` [ps].
    struct qp_state {
        timing::sim_time wqe_engine_free_at = 0;
    };

    /// One requester run over the WQEs a doorbell (or a resumption) made available: the QP
    /// context is loaded before the first WQE the run issues, and the WQEs a doorbell announced
    /// are fetched by one DMA read with the first that is not inline, unless each came with a
    /// doorbell of its own that carried it (begin_wqe_run, issue_wqe, end_wqe_run).
    struct wqe_run {
        timing::sim_time now = 0;
        timing::sim_time fetched = 0;  ///< 0: not fetched yet
        timing::sim_time context_at = 0;
        bool context_loaded = false;
        bool pushed = false;          ///< the doorbells carried the WQEs: nothing to fetch
        std::uint32_t doorbells = 0;  ///< doorbells whose engine occupancy is not charged yet
    };

    /// A model of `costs` with a QP context cache of `qpc_entries` for QP numbers below
    /// `qp_numbers`; `zero_cost`: every stage takes no time (the costs are not read).
    hw_model(const timing::cost_model& costs, std::uint32_t qpc_entries, std::uint32_t qp_numbers,
             bool zero_cost = false);

    hw_model(const hw_model&) = delete;
    hw_model& operator=(const hw_model&) = delete;

    /// The path MTU [bytes of payload per packet].
    std::uint32_t mtu() const noexcept { return costs_.mtu; }

    /// The QP context cache (its hit and miss counters).
    const qp_context_cache& qp_contexts() const noexcept { return qpc_; }

    /// When the last bit of the last frame queued on the port leaves [ps].
    timing::sim_time port_free_at() const noexcept { return port_free_at_; }

    /// Bytes of a frame carrying `payload` bytes with `extra_headers` bytes of extension
    /// headers after the BTH: BTH + extension headers + payload + pad + ICRC [bytes].
    static std::uint64_t frame_length(std::uint64_t payload, std::uint64_t extra_headers) noexcept;

    // ---- doorbell and WQE engine (docs/timing.md steps 1-3) ---------------------------------

    /// How long the doorbell's MMIO write takes to reach the NIC [ps].
    timing::sim_time doorbell_latency() const noexcept { return zero_ ? 0 : costs_.doorbell; }

    /// Starts a requester run at `now`; `wqes_fetched` when it resumes WQEs a doorbell already
    /// fetched; `doorbells` rung since the last run for the `waiting` WQEs not issued yet. When
    /// every waiting WQE had its own doorbell, each doorbell carried its WQE
    /// (cost_model::wqe_pushed_with_doorbell) and the run fetches none.
    wqe_run begin_wqe_run(timing::sim_time now, bool wqes_fetched, std::uint32_t doorbells,
                          std::uint32_t waiting) const noexcept;

    /// True when the QP's WQE engine is still busy at the run's time: the requester resumes at
    /// wqe_engine_free_at(), so that each WQE takes the shared resources in time order.
    bool wqe_engine_busy(const qp_state& qp, const wqe_run& run) const noexcept {
        return qp.wqe_engine_free_at > run.now;
    }
    timing::sim_time wqe_engine_free_at(const qp_state& qp) const noexcept {
        return qp.wqe_engine_free_at;
    }

    /// The run stops early: returns the doorbells it did not charge (the next run does).
    std::uint32_t take_uncharged_doorbells(wqe_run& run) const noexcept;

    /// Issues one WQE of QP `qpn` on its WQE engine: loads the QP context (first WQE of the
    /// run), fetches the WQEs (first WQE not inline, unless the doorbells carried them), then takes
    /// wqe_time() once the engine is free; one doorbell's occupancy follows. Returns when the WQE
    /// is issued [ps].
    timing::sim_time issue_wqe(wqe_run& run, qp_state& qp, std::uint32_t qpn, bool inline_wqe);

    /// Ends a run: the doorbells not yet charged keep the engine busy after it.
    void end_wqe_run(const wqe_run& run, qp_state& qp) const noexcept;

    /// A READ response passes the requester's WQE engine at `now` (read_response_cycles).
    void read_response_on_engine(qp_state& qp, timing::sim_time now) const noexcept;

    // ---- transmit (docs/timing.md steps 4-5, 10) ---------------------------------------------

    /// When a request packet carrying `payload` bytes from `offset` of a message of
    /// `message_bytes`, issued at `issued`, can enter the port: the message's payload is read
    /// from host memory (unless `payload_in_nic`: inline, or none) in store-and-forward units
    /// (cost_model nic.store_forward_bytes), and the packet passes the transmit pipeline once
    /// its unit is in the NIC [ps]. The packets of one message are asked for in order.
    timing::sim_time request_ready(timing::sim_time issued, std::uint64_t offset,
                                   std::uint64_t payload, std::uint64_t message_bytes,
                                   bool payload_in_nic);

    /// When a READ response carrying `payload` bytes from `offset` of a READ of
    /// `message_bytes`, served at `now`, can enter the port (as request_ready) [ps].
    timing::sim_time read_response_ready(timing::sim_time now, std::uint64_t offset,
                                         std::uint64_t payload, std::uint64_t message_bytes);

    /// When a packet without payload built at `at` leaves the transmit pipeline [ps].
    timing::sim_time control_ready(timing::sim_time at) const noexcept {
        return zero_ ? at : at + costs_.packet_pipeline;
    }

    /// How long a coalesced ACK waits for later packets to cover: a pipeline slot plus the
    /// profile's coalescing window [ps].
    timing::sim_time ack_coalesce_delay() const noexcept {
        return zero_ ? 0 : costs_.packet_pipeline + costs_.ack.coalesce_window;
    }

    /// When a coalesced ACK, whose wait already paid the pipeline slot, is built at `at` [ps].
    timing::sim_time ack_ready(timing::sim_time at) const noexcept {
        return zero_ ? at : at + costs_.ack.generation;
    }

    /// When an ACK or NAK sent at once from `at` is built and through the pipeline [ps].
    timing::sim_time immediate_ack_ready(timing::sim_time at) const noexcept {
        return zero_ ? at : at + costs_.ack.generation + costs_.packet_pipeline;
    }

    /// Puts a frame of `frame_len` bytes, ready at `ready`, on the port at `now`: it first
    /// waits for the translation entries of the misses since the last frame
    /// (`translation_misses` is the memory unit's running count), then for the pipeline and
    /// the port. Returns when its last bit leaves [ps].
    timing::sim_time tx_packet(std::uint64_t frame_len, timing::sim_time ready,
                               timing::sim_time now, std::uint64_t translation_misses);

    // ---- receive (docs/timing.md steps 7-9) ---------------------------------------------------

    /// A frame whose last bit arrives at `now`: an RC frame loads its QP's context, then the
    /// frame passes the receive pipeline and its payload (and the CQE it may complete) is
    /// written to host memory. Returns when it may be dispatched [ps]; never earlier than a
    /// frame received before it. `from_peer`: the frame comes from the peer of the live
    /// connection its destination QP belongs to; only such a frame loads that QP's context or
    /// joins (or completes) its store-and-forward unit, so that a forged frame cannot move a
    /// connection's times (it is placed on its own, and dropped at dispatch).
    timing::sim_time rx_packet(const wire::frame& f, timing::sim_time now, bool from_peer = true);

    /// Records an access at `at` to QP `qpn`'s context and returns when the context is in the
    /// NIC [ps]: `at` on a hit; on a miss it is read over PCIe, qpc_miss_ns after its fetch
    /// could start (k_context_fetches_in_flight fetches overlap).
    timing::sim_time load_qp_context(std::uint32_t qpn, timing::sim_time at) noexcept;

  private:
    /// A DMA read of `bytes` from host memory issued at `issued`: its completions queue on the
    /// host-to-NIC link after the read round trip. Returns when the last byte is in the NIC
    /// [ps].
    timing::sim_time dma_read(timing::sim_time issued, std::uint64_t bytes);

    /// When a packet whose payload is all in the NIC at `read` can enter the port: after the
    /// transmit pipeline [ps].
    timing::sim_time packet_ready(timing::sim_time read) const noexcept;

    /// When the store-and-forward unit holding `payload` bytes at `offset` of a message of
    /// `message_bytes` issued at `issued` is in the NIC: the first packet of a unit reads the
    /// whole unit [ps].
    timing::sim_time staged(timing::sim_time issued, std::uint64_t offset, std::uint64_t payload,
                            std::uint64_t message_bytes);

    /// costs_.pcie_stream_time(bytes, direction), remembering the last size above the cost
    /// model's table per direction: a long message moves one unit size (the store-and-forward
    /// unit out, the MTU in) packet after packet, and computing it took a floating-point
    /// division each time (perf: 4-5 % of a 1 MiB write's host time).
    timing::sim_time stream_time(std::uint64_t bytes, timing::dma_direction direction) noexcept;

    /// Bytes of a payload packet received for QP `qpn` to place now: 0 while its
    /// store-and-forward unit is incomplete (held), else the unit's bytes held so far.
    std::uint64_t bytes_to_place(std::uint32_t qpn, std::uint64_t payload, bool ends_message);

    /// Translation entries fetched over PCIe at once.
    static constexpr std::uint64_t k_translation_fetches_in_flight = 4;
    /// QP contexts fetched over PCIe at once.
    static constexpr std::uint64_t k_context_fetches_in_flight = 4;

    const timing::cost_model& costs_;
    bool zero_;
    qp_context_cache qpc_;
    timing::sim_time port_free_at_ = 0;
    timing::sim_time pipeline_free_at_ = 0;   ///< the NIC pipeline admits a packet per interval
    timing::sim_time pcie_in_free_at_ = 0;    ///< host-to-NIC: read completions
    timing::sim_time pcie_out_free_at_ = 0;   ///< NIC-to-host: posted writes
    timing::sim_time rx_handled_at_ = 0;      ///< frames are dispatched in arrival order
    std::uint64_t translation_misses_ = 0;    ///< misses already charged
    timing::sim_time mtt_free_at_ = 0;        ///< the translation fetch engine is busy until
    timing::sim_time miss_window_start_ = 0;  ///< misses seen later happened after this time
    timing::sim_time qpc_fetch_free_at_ = 0;  ///< the context fetch engine takes a new fetch
    // The store-and-forward unit being sent: the message it belongs to (by issue time), the
    // offset its next packet must have, where it ends, and when it is in the NIC.
    timing::sim_time unit_issued_ = 0;
    std::uint64_t unit_next_ = 0;
    std::uint64_t unit_end_ = 0;
    timing::sim_time unit_ready_ = 0;
    struct stream_memo {
        std::uint64_t bytes = UINT64_MAX;  ///< none yet
        timing::sim_time time = 0;
    };
    std::array<stream_memo, 2> stream_memo_{};  ///< by timing::dma_direction
    std::vector<std::uint32_t> held_bytes_;     ///< per QP number: received, not placed yet
};

}  // namespace ndksim::nic
