// SPDX-License-Identifier: MIT
#pragma once
// Index of the engine's stages (one file each) and what they export to one another.
//
//   requester.cpp  initiator queue -> request packets: segmentation by MTU, PSNs, read fence,
//                  outbound read limit, doorbell and DEFER, go-back-N rewind, RNR back-off,
//                  frames built as they depart on a shared timeline
//   responder.cpp  request packets -> PSN and opcode-sequence checks, placement through the
//                  memory unit, receive completions, read responses, ACK/NAK
//   completer.cpp  ACK/NAK and read responses -> request completions in queue order, NAK
//                  handling, read placement; QP error and flush
//   retransmit.cpp the transport timer: resend after ack_timeout without progress (back-off),
//                  fail and tear the connection down after retry_limit
//   local_ops.cpp  bind, fast-register and invalidate, executed in queue order
//   packets.cpp    building and sending one packet (headers, payload, ICRC)
//
// Every function runs on the adapter's engine (a scheduler task) unless it says otherwise.

#include <cstdint>
#include <span>

#include "core/qp.hpp"
#include "util/status.hpp"
#include "wire/codec.hpp"

namespace ndksim::nic {

class engine;

// ---- requester ----------------------------------------------------------------------------

/// Any thread: schedules a requester run for `q` after the doorbell cost, unless one is
/// already scheduled (posting threads call this for every non-deferred post).
void ring_doorbell(engine& e, core::qp& q);

/// Transmits every request that may start now, in queue order.
void run_requester(engine& e, core::qp& q);

/// Go-back-N: the next requester run resends from `psn` (a NAK or RNR NAK named it).
void rewind_requester(engine& e, core::qp& q, std::uint32_t psn);

/// Builds and hands over now every frame of `q` still waiting for its departure (the QP is
/// failing, or a local operation is about to change what memory grants): what the port had
/// scheduled leaves as it would have. False when a message's memory was revoked since it was
/// issued: that message finishes with the fault (done, result set) unless it had finished,
/// and nothing more of it or of later messages is built; the caller fails the QP.
bool depart_all(engine& e, core::qp& q);

/// depart_all for the runs up to the last one of `w`, before `w` completes and its slot and
/// memory go back to the consumer: a retransmission queued behind an ACK that finished `w`
/// leaves as it would have. False as for depart_all.
bool depart_through(engine& e, core::qp& q, const core::send_wqe& w);

// ---- transport timer ----------------------------------------------------------------------

/// True when `q` has a request on the wire that waits for its ACK or read response.
bool awaiting_peer(core::qp& q);

/// After the requester transmitted: restarts the timer's interval when nothing was waiting
/// for the peer before (`was_idle`), and schedules the QP's one timer check unless it is
/// already scheduled (or the timer is off).
void arm_ack_timer(engine& e, core::qp& q, bool was_idle);

/// Nothing of `q` waits for the peer any more (its initiator queue is empty): the scheduled
/// check, which would find nothing, is cancelled now, while the QP's state is in the cache.
/// The next transmission arms the timer again (arm_ack_timer).
void stop_ack_timer(engine& e, core::qp& q);

/// The oldest request waiting for the peer moved (an ACK or read response finished or placed
/// something, or the peer answered receiver-not-ready): the interval restarts and the
/// consecutive retry count clears.
void note_progress(engine& e, core::qp& q);

// ---- responder ----------------------------------------------------------------------------

/// Handles one request packet (SEND, WRITE, READ request) addressed to `q`.
void on_request(engine& e, core::qp& q, const wire::decoded_packet& p);

// ---- completer ----------------------------------------------------------------------------

/// Handles one response packet (ACK/NAK, READ response) addressed to `q`.
void on_response(engine& e, core::qp& q, const wire::decoded_packet& p);

/// Queues the completions of finished requests at the head of the initiator queue, in order.
void complete_in_order(engine& e, core::qp& q);

/// Moves `q` to error: the first failed request keeps its status `cause`-independent result,
/// every other outstanding request and receive completes with STATUS_CANCELLED (flush).
void fail_qp(engine& e, core::qp& q);

/// Queues one receive completion on `q`'s receive CQ (moves `q` to error on CQ overrun).
void complete_receive(engine& e, core::qp& q, void* request_context, status result,
                      std::uint32_t bytes, core::op_type type, std::uintptr_t token,
                      bool solicited);

// ---- local operations -----------------------------------------------------------------------

/// Executes a bind, fast-register or invalidate request in queue order; returns its final
/// status (the memory unit's execute half).
status execute_local(engine& e, core::qp& q, core::send_wqe& w);

// ---- packets --------------------------------------------------------------------------------

/// Sends the coalesced ACK `q` has waiting, if any, now: called before a disconnect request
/// leaves, so the peer sees every message it delivered acknowledged before the disconnect
/// (the link keeps order; the coalescing delay would otherwise let the disconnect overtake it).
void send_pending_ack(engine& e, core::qp& q);

/// Sends an ACK (or, with a NAK/RNR syndrome, a NAK) for `psn` on `q`'s connection.
void send_ack(engine& e, core::qp& q, std::uint32_t psn, std::uint8_t syndrome);

}  // namespace ndksim::nic
