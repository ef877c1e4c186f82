#pragma once
// The engine's per-QP state: what the requester, responder and completer remember between
// packets. Lives in core::qp's engine-state slot; touched only from engine tasks, except the
// doorbell flag, which posting threads set.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/qp.hpp"
#include "core/receive_queue.hpp"
#include "mem/sge_cursor.hpp"
#include "nic/hw_model.hpp"
#include "nic/stats_registry.hpp"
#include "wire/icrc.hpp"
#include "wire/transport.hpp"

namespace ndksim::nic {

/// The responder's RDMA READ resources of one kind (responder.cpp): when each read that holds
/// one finishes, i.e. its last response leaves the port [ps], oldest first (the port is FIFO,
/// so the times never decrease). A fixed ring, so that the per-packet path never allocates.
struct read_slots {
    static constexpr std::size_t k_capacity = 64;

    /// Frees the slots of the reads finished by `now`; true when fewer than `limit` (at most
    /// k_capacity) are still held.
    bool available(timing::sim_time now, std::uint32_t limit) noexcept {
        while (held > 0 && done_at[first] <= now) {
            first = (first + 1) % k_capacity;
            --held;
        }
        return held < std::min<std::size_t>(limit, k_capacity);
    }

    /// Holds a slot for a read that finishes at `done` [ps]; available() said there was one.
    void hold(timing::sim_time done) noexcept {
        done_at[(first + held) % k_capacity] = done;
        ++held;
    }

    std::array<timing::sim_time, k_capacity> done_at{};
    std::uint32_t first = 0;  ///< index of the oldest entry of done_at
    std::uint32_t held = 0;
};

struct qp_context final : core::qp_engine_state {
    // Connection (set by the connection manager before the QP becomes connected).
    std::shared_ptr<wire::transport::peer> peer;
    wire::flow flow;  ///< addresses for the ICRC of frames this QP sends
    std::uint32_t peer_qpn = 0;
    std::uint32_t ird = 0;  ///< inbound RDMA reads accepted at once (effective)
    std::uint32_t ord = 0;  ///< outbound RDMA reads issued at once (effective)

    // Requester (initiator queue -> packets).
    std::atomic<bool> doorbell_pending{false};  ///< a requester run is scheduled
    bool deferred = false;                      ///< DEFER posts are waiting for a doorbell (rule 9)
    std::uint32_t next_psn = 0;                 ///< PSN the next new request starts at
    std::uint32_t next_wqe = 0;  ///< index (from the queue's oldest) of the next to transmit
    std::uint32_t reads_outstanding = 0;
    std::uint32_t rnr_retries = 0;  ///< consecutive RNR NAKs for the current request
    bool retry_scheduled = false;   ///< an RNR back-off is running; NAK-driven rewinds wait
    std::atomic<std::uint32_t> doorbells{0};  ///< doorbells rung since the requester last ran
    hw_model::qp_state hw;                    ///< the QP's WQE engine (the hardware model's)
    bool wqes_fetched = false;  ///< the requester resumes WQEs a doorbell already fetched

    // Transport timer (retransmit.cpp): lazy, at most one scheduled check per QP.
    bool ack_timer_armed = false;
    timing::sim_time progress_at = 0;     ///< last time the oldest unacknowledged request moved
    std::uint32_t transport_retries = 0;  ///< consecutive timer retries without progress

    // Completer (ACKs and read responses -> completions).
    std::optional<mem::sge_cursor> read_cursor;       ///< placement of the oldest outstanding read
    const core::send_wqe* read_cursor_for = nullptr;  ///< the request read_cursor places into

    // Responder (requests -> placement, read responses, ACK/NAK).
    std::uint32_t expected_psn = 0;
    std::uint32_t msn = 0;         ///< messages completed (AETH MSN)
    bool nak_outstanding = false;  ///< a NAK was sent; out-of-order packets are dropped quietly
    bool ack_pending = false;      ///< a coalesced ACK is scheduled; ack_psn is its PSN
    std::uint32_t ack_psn = 0;
    bool in_send = false;      ///< a multi-packet send is being placed
    bool in_write = false;     ///< a multi-packet write is being placed
    core::received receive{};  ///< the receive the current send lands in
    bool receive_from_srq = false;
    std::optional<mem::sge_cursor> recv_cursor;
    mem::sge write_target{};
    std::optional<mem::sge_cursor> write_cursor;
    bool receive_failed = false;  ///< the current send overran or faulted its receive
    /// RDMA READs accepted and not yet answered, the responder resources the inbound read
    /// limit (`ird`) counts, and duplicate READs being served again, bounded by it separately
    /// so that a replay never takes a new read's resource.
    read_slots reads;
    read_slots replayed_reads;

    // Statistics (stats_registry.hpp): written by the completer, read from any thread.
    std::shared_ptr<qp_stats> stats;
};

/// The engine state of `q` (attached when the QP is created).
inline qp_context& context_of(core::qp& q) noexcept {
    return static_cast<qp_context&>(*q.engine_state());
}

}  // namespace ndksim::nic
