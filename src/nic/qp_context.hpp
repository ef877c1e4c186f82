// SPDX-License-Identifier: MIT
#pragma once
// The engine's per-QP state: what the requester, responder, completer and transport timer
// each remember between packets (one part per stage, as Linux rxe keeps req / resp / comp per
// QP), the connection they share, and the QP's hardware state, which only the hardware model
// reads. Lives in core::qp's engine-state slot; touched only from engine tasks, except the
// doorbell flag and count, which posting threads set.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/qp.hpp"
#include "core/receive_queue.hpp"
#include "mem/sge_cursor.hpp"
#include "nic/departure_queue.hpp"
#include "nic/hw_model.hpp"
#include "nic/psn_index.hpp"
#include "nic/read_slots.hpp"
#include "nic/stats_registry.hpp"
#include "wire/icrc.hpp"
#include "wire/lent_frames.hpp"
#include "wire/transport.hpp"

namespace ndksim::nic {

struct qp_context final : core::qp_engine_state {
    // Connection (set by the connection manager before the QP becomes connected).
    std::shared_ptr<wire::transport::peer> peer;
    wire::flow flow;  ///< addresses for the ICRC of frames this QP sends
    std::uint32_t peer_qpn = 0;
    std::uint32_t ird = 0;  ///< inbound RDMA reads accepted at once (effective)
    std::uint32_t ord = 0;  ///< outbound RDMA reads issued at once (effective)

    /// Requester (requester.cpp: initiator queue -> packets).
    struct requester_state {
        std::atomic<bool> doorbell_pending{false};  ///< a requester run is scheduled
        bool deferred = false;       ///< DEFER posts are waiting for a doorbell (rule 9)
        std::uint32_t next_psn = 0;  ///< PSN the next new request starts at
        std::uint32_t next_wqe = 0;  ///< index (from the queue's oldest) of the next to transmit
        std::uint32_t reads_outstanding = 0;
        std::uint32_t rnr_retries = 0;  ///< consecutive RNR NAKs for the current request
        bool retry_scheduled = false;   ///< an RNR back-off is running; NAK-driven rewinds wait
        std::atomic<std::uint32_t> doorbells{0};  ///< doorbells rung since the requester last ran
        bool wqes_fetched = false;    ///< the requester resumes WQEs a doorbell already fetched
        bool window_blocked = false;  ///< stopped by the host window; an ACK resumes it
        /// Packets whose frames are built as they depart (wire::transport::shares_timeline).
        departure_queue departures;
    };

    /// Transport timer (retransmit.cpp): lazy, at most one scheduled check per QP.
    struct timer_state {
        timing::sim_time progress_at = 0;  ///< last time the oldest unacknowledged request moved
        timing::sim_time check_due = 0;    ///< when the scheduled check was due to run
        /// When a check past the deadline first found the peer's engine had not run what it
        /// had due (transport::peer_behind); the check waits until it has run that much. 0
        /// while no such wait runs.
        timing::sim_time behind_since = 0;
        std::uint32_t retries = 0;  ///< consecutive timer retries without progress
        /// The scheduled check while armed (a timing::timer_id, for cancelling it), else none
        /// (timing::k_no_timer).
        std::uint32_t id = UINT32_MAX;
        /// Checks of the current deadline put off because the peer's frames waited unread in
        /// the sockets (retransmit.cpp): at most one interval's worth.
        std::uint32_t unread_checks = 0;
        bool armed = false;
    };

    /// Completer (completer.cpp: ACKs and read responses -> completions).
    struct completer_state {
        /// The request each PSN in flight belongs to; the requester records a request's range
        /// when it starts it.
        psn_index requests;
        const core::send_wqe* read_cursor_for = nullptr;  ///< the request read_cursor places into
        std::optional<mem::sge_cursor> read_cursor;  ///< placement of the oldest outstanding read
    };

    /// Responder (responder.cpp: requests -> placement, read responses, ACK/NAK).
    struct responder_state {
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
        /// limit (`ird`) counts, and duplicate READs being served again, bounded by it
        /// separately so that a replay never takes a new read's resource.
        read_slots reads;
        read_slots replayed_reads;
    };

    // What every packet reads is packed near the front (the connection above, the hardware
    // state, the statistics, the timer, the requester, the PSN index), and the responder's
    // scalars come before its cursors and read slots: with thousands of QPs a QP's context is
    // cold at each packet, and each line it spans is a miss.
    hw_model::qp_state hw;  ///< the QP's WQE engine: the hardware model's, not a stage's
    // Statistics (stats_registry.hpp): written by the completer, read from any thread.
    std::shared_ptr<qp_stats> stats;
    timer_state timer;
    requester_state req;
    completer_state comp;
    responder_state resp;
    /// Frames of this QP in flight that refer to the consumer's memory for their payload
    /// (wire::transport::lends_payload); each request's are materialized before it completes
    /// (completer.cpp). Last, away from what every packet reads: a request that lent nothing
    /// (send_wqe::lent) never looks at it.
    wire::lent_frames lent;
};

/// The engine state of `q` (attached when the QP is created).
inline qp_context& context_of(core::qp& q) noexcept {
    return static_cast<qp_context&>(*q.engine_state());
}

}  // namespace ndksim::nic
