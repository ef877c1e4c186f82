// SPDX-License-Identifier: MIT
// The requester: initiator queue -> request packets (STYLE.md 7.3).
//
// Requests leave in queue order. A request gets its PSNs when it first starts: one per packet
// for SEND and WRITE (segmented by the path MTU), and one per expected response packet for a
// READ (the responder's read responses use them). Local operations (bind, fast-register,
// invalidate) execute when the requester reaches them. A READ_FENCE request waits until every
// earlier READ has its response; a READ waits while the outbound read limit (ORD) is reached.
// NAKs, RNR NAKs and the transport timer (retransmit.cpp) rewind the requester to a PSN
// (go-back-N); every run that transmits makes sure the QP's timer check is scheduled.
//
// On a link that shares the sender's timeline, a message of several packets reserves its
// packets' turns on the port when it is issued and builds their frames as they depart
// (departure_queue.hpp, docs/engine.md "Frames built at departure"); a local operation, a
// completion and a QP failure first build what is queued before them, so that requests keep
// their order.

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "core/device.hpp"
#include "nic/departure_queue.hpp"
#include "nic/engine.hpp"
#include "nic/packets.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "util/log.hpp"
#include "util/single_writer.hpp"

namespace ndksim::nic {
namespace {

using core::wr_kind;
using wire::opcode;

// Opcode of packet `index` of `count` for each wire-level request kind: [first, middle, last,
// only].
constexpr std::array<std::array<opcode, 4>, 3> k_opcodes{{
    {opcode::rc_send_first, opcode::rc_send_middle, opcode::rc_send_last, opcode::rc_send_only},
    {opcode::rc_send_first, opcode::rc_send_middle, opcode::rc_send_last_inv,
     opcode::rc_send_only_inv},
    {opcode::rc_write_first, opcode::rc_write_middle, opcode::rc_write_last, opcode::rc_write_only},
}};

opcode opcode_for(wr_kind k, std::uint32_t index, std::uint32_t count) noexcept {
    const std::size_t row = k == wr_kind::send ? 0 : k == wr_kind::send_invalidate ? 1 : 2;
    const std::size_t col = count == 1 ? 3 : index == 0 ? 0 : index + 1 == count ? 2 : 1;
    return k_opcodes[row][col];
}

std::uint32_t packets_for(std::uint64_t length, std::uint32_t mtu) noexcept {
    return length == 0 ? 1 : static_cast<std::uint32_t>((length + mtu - 1) / mtu);
}

// Sends the READ request of `w` (its PSN range covers the expected responses).
void transmit_read(engine& e, core::qp& q, core::send_wqe& w, timing::sim_time ready) {
    qp_context& ctx = context_of(q);
    // A read asked for again (a response was lost) resumes at the first byte not yet placed:
    // the request names that response's PSN and the rest of the range (IB RC read retry), so
    // a retry over a lossy link moves only what is missing and always makes progress.
    const std::uint32_t mtu = e.hw().mtu();
    const auto done = static_cast<std::uint32_t>(w.placed / mtu);
    const std::uint64_t skipped = static_cast<std::uint64_t>(done) * mtu;
    wire::packet_headers h;
    h.bth.op = opcode::rc_read_request;
    h.bth.psn = wire::psn_add(w.first_psn, done);
    h.bth.ack_req = true;
    h.reth.va = w.remote_address + skipped;
    h.reth.rkey = w.remote_token;
    h.reth.dma_length = static_cast<std::uint32_t>(w.length - skipped);
    send_packet(e, q, h, e.hw().control_ready(ready));
    if (!w.read_counted) {
        w.read_counted = true;
        ++ctx.req.reads_outstanding;
    }
    w.resume = w.packets;
}

// A long message asks for an ACK every this many packets as well as on its last (the AckReq bit,
// IBA 9.2.3; HCAs set it periodically). The peer's ACKs then show progress inside the message,
// so the transport timer measures silence rather than the length of the message, and a retry
// resumes after the acknowledged part instead of resending all of it.
constexpr std::uint32_t k_ack_request_interval = 16;

// The headers of packet `index` of the SEND or WRITE `w`.
wire::packet_headers request_headers(const core::send_wqe& w, std::uint32_t index) noexcept {
    const bool last = index + 1 == w.packets;
    wire::packet_headers h;
    h.bth.op = opcode_for(w.kind, index, w.packets);
    h.bth.psn = wire::psn_add(w.first_psn, index);
    h.bth.ack_req = last || (index + 1) % k_ack_request_interval == 0;
    h.bth.solicited = last && (w.flags & core::op_flag::solicit_event) != 0;
    if (w.kind == wr_kind::write && index == 0) {
        h.reth.va = w.remote_address;
        h.reth.rkey = w.remote_token;
        h.reth.dma_length = static_cast<std::uint32_t>(w.length);
    }
    if (w.kind == wr_kind::send_invalidate && last) {
        h.invalidate_rkey = w.remote_token;
    }
    return h;
}

// Bytes of packet `index` of `w`.
std::size_t payload_of(const core::send_wqe& w, std::uint32_t index, std::uint32_t mtu) noexcept {
    const std::uint64_t offset = static_cast<std::uint64_t>(index) * mtu;
    return static_cast<std::size_t>(std::min<std::uint64_t>(mtu, w.length - offset));
}

// The local SGEs a message's payload is read from (none for inline data).
std::span<const mem::sge> payload_sges(const core::send_wqe& w) noexcept {
    const bool inline_data = (w.flags & core::op_flag::inline_data) != 0;
    return {w.sges, inline_data ? 0 : w.sge_count};
}

// Writes packet `index`'s payload of `w` into `payload`, from its inline data or through
// `cursor` (positioned at the packet). With `lent`, a payload that is one host-contiguous run
// is not copied: *lent points at it (sge_cursor::borrow_from_host). False when the memory unit
// refuses an SGE; `fault` then holds the status.
bool fill_payload([[maybe_unused]] core::qp& q, const core::send_wqe& w, std::uint32_t index,
                  std::uint32_t mtu, mem::sge_cursor& cursor, const mem::read_guard& guard,
                  std::span<std::byte> payload, const std::byte** lent, status& fault) {
    if ((w.flags & core::op_flag::inline_data) != 0) {
        std::memcpy(payload.data(), w.inline_data + static_cast<std::uint64_t>(index) * mtu,
                    payload.size());
        return true;
    }
    const mem::copy_result r = lent != nullptr ? cursor.borrow_from_host(guard, payload, *lent)
                                               : cursor.copy_from_host(guard, payload);
    if (!r.ok()) {
        fault = r.st();
        NDKSIM_DEBUG("{}: request {} local SGE {} refused: {}", q.ident(), w.first_psn, r.sge_index,
                     mem::fault_name(r.failed));
        return false;
    }
    return true;
}

// A payload shorter than this is copied into its frame even where it could be lent: lending
// 64-byte writes ran no faster (bench_inproc), and a copy of a few cache lines is cheap.
constexpr std::size_t k_lend_min_bytes = 1024;

// True when the frames of `w` to `peer` may be lent (wire/lent_frames.hpp): the link takes
// lent frames, and `w`'s memory is still the provider's (`w` has not finished: an ACK that
// overtook its frames finishes it right after).
bool lends(engine& e, const core::send_wqe& w, const wire::transport::peer& peer) {
    return w.length >= k_lend_min_bytes && (w.flags & core::op_flag::inline_data) == 0 && !w.done &&
           e.link().lends_payload(peer);
}

// Builds packet `i` of `w` (headers `h`), its payload read through `cursor`, or from `known`
// when that is not null (where the packet's payload lies, translated when the message was
// issued under the memory unit's present generation; the cursor is then not used). With
// `lend`, a payload that is one host-contiguous run stays in the consumer's memory and the
// frame is lent (wire/lent_frames.hpp): the receiving engine, or the socket's gathered write,
// takes it from there, so the sender copies nothing. The memory unit's checks are the same
// either way, as the NIC's DMA read would make them, and the ICRC covers the same bytes.
// nullptr when an SGE is refused (`fault` then holds the status).
wire::frame* build_request(engine& e, core::qp& q, core::send_wqe& w, std::uint32_t i,
                           wire::packet_headers& h, mem::sge_cursor& cursor,
                           const mem::read_guard& guard, bool lend, status& fault,
                           const std::byte* known = nullptr) {
    const std::uint32_t mtu = e.hw().mtu();
    const std::size_t size = payload_of(w, i, mtu);
    // A payload that is not one host-contiguous run is copied into the frame by
    // borrow_from_host, which then leaves `lent` null: that frame is built as any other.
    const bool may_lend = lend && size >= k_lend_min_bytes;
    wire::frame* f =
        build_frame(e, q, h, size, [&](std::span<std::byte> p, const std::byte*& lent) {
            if (known != nullptr) {
                if (may_lend) {
                    lent = known;
                } else {
                    std::memcpy(p.data(), known, p.size());
                }
                return true;
            }
            return fill_payload(q, w, i, mtu, cursor, guard, p, may_lend ? &lent : nullptr, fault);
        });
    if (f != nullptr && f->lender != nullptr) {
        w.lent = true;
    }
    return f;
}

// Builds the frames of `run` and hands them over with their reserved departures. False when
// the memory unit refused the payload, revoked since the message was issued (`fault` then holds
// the status; no frame of the run left).
bool depart_run(engine& e, core::qp& q, const departure_run& run, status& fault) {
    core::send_wqe& w = *run.wqe;
    const std::uint32_t mtu = e.hw().mtu();
    const bool lend = lends(e, w, *run.peer);
    mem::translation_unit& memory = e.dev().memory();
    // The issue already touched the translation cache for these bytes; this read checks
    // again (the unit's generation) without counting the misses twice.
    mem::sge_cursor cursor(memory, q.memory_pd(), mem::access_op::local_read, payload_sges(w),
                           false);
    cursor.seek(static_cast<std::uint64_t>(run.first_packet) * mtu);
    const mem::read_guard guard = memory.read();
    // Nothing in the unit changed since the issue found every payload of the run in one piece:
    // the frames take them from there, without a second walk over the same translations.
    const bool known = memory.generation(guard) == run.generation &&
                       std::all_of(run.payload.begin(), run.payload.begin() + run.count,
                                   [](const std::byte* p) { return p != nullptr; });
    std::array<wire::frame*, departure_run::k_max_packets> frames{};
    for (std::uint32_t k = 0; k < run.count; ++k) {
        const std::uint32_t i = run.first_packet + k;
        wire::packet_headers h = request_headers(w, i);
        frames[k] = build_request(e, q, w, i, h, cursor, guard, lend, fault,
                                  known ? run.payload[k] : nullptr);
        if (frames[k] == nullptr) {
            for (std::uint32_t j = 0; j < k; ++j) {
                wire::frame_pool::release(frames[j]);
            }
            return false;
        }
    }
    for (std::uint32_t k = 0; k < run.count; ++k) {
        e.hand_over(*run.peer, frames[k], run.last_bit[k]);
    }
    return true;
}

// Builds the `runs` oldest runs of `q`'s departure queue now. False when one is refused (the
// consumer revoked its memory after the issue): its request finishes with the fault unless it
// had finished already, and the queue is emptied: nothing queued behind it leaves either, as
// a NIC stops a QP's send queue at a local protection error. The packets dropped are taken
// back from packets_sent; the port time they had reserved stays spent.
bool depart_front(engine& e, core::qp& q, std::size_t runs) {
    departure_queue& queue = context_of(q).req.departures;
    for (; runs > 0 && !queue.empty(); --runs) {
        status fault = status::access_violation;
        if (depart_run(e, q, queue.front(), fault)) {
            queue.pop_front();
            continue;
        }
        core::send_wqe& w = *queue.front().wqe;
        if (!w.done) {
            w.result = fault;
            w.done = true;
        }
        util::single_writer_sub(e.counters().packets_sent, queue.clear());
        return false;
    }
    return true;
}

void depart(engine& e, core::qp& q);

// Schedules the build of `q`'s oldest run at its first departure, unless one is scheduled.
void schedule_departure(engine& e, core::qp& q) {
    departure_queue& queue = context_of(q).req.departures;
    if (queue.empty() || queue.build_scheduled()) {
        return;
    }
    queue.set_build_scheduled(true);
    q.add_ref();
    e.dev().sched().post_at(queue.front().last_bit[0], [&e, qp = &q] {
        depart(e, *qp);
        qp->release();
    });
}

// The scheduled build: every run whose first packet departs by now leaves, and the next
// build is scheduled. Runs built earlier (depart_all, depart_through) are gone from the queue
// by then, and a build that finds no run due only schedules the next.
void depart(engine& e, core::qp& q) {
    if (q.engine_state() == nullptr) {
        return;
    }
    departure_queue& queue = context_of(q).req.departures;
    queue.set_build_scheduled(false);
    while (!queue.empty() && queue.front().last_bit[0] <= e.dev().sched().now()) {
        if (!depart_front(e, q, 1)) {
            // The consumer revoked the message's memory while it was on its way to the port:
            // the DMA read faults, as it would on a NIC, and the QP fails (a local protection
            // error).
            fail_qp(e, q);
            return;
        }
    }
    schedule_departure(e, q);
}

// What transmit_message did.
enum class transmit_outcome : std::uint8_t {
    sent,     ///< every packet from w.resume on left
    held,     ///< the host window is full: w.resume names the first packet that did not leave
    refused,  ///< a local SGE was refused by the memory unit (w.result holds the status)
};

// Sends the packets of a SEND or WRITE from w.resume on, stopping before the PSN `window_end`
// when `windowed` (engine_config::host_window_packets). On a link that shares the sender's
// timeline, each packet's payload is checked and its turn on the port reserved now, and its
// frame is built when it departs (departure_queue.hpp); otherwise the frame is built now.
transmit_outcome transmit_message(engine& e, core::qp& q, core::send_wqe& w, timing::sim_time ready,
                                  bool windowed, std::uint32_t window_end) {
    qp_context& ctx = context_of(q);
    const std::uint32_t mtu = e.hw().mtu();
    const bool inline_data = (w.flags & core::op_flag::inline_data) != 0;
    // A message of one packet is built at once: its frame lives no longer than a run's would,
    // and an event of its own would cost more than it saves.
    const bool at_departure = w.packets > 1 && e.link().shares_timeline(*ctx.peer);
    const bool lend = !at_departure && lends(e, w, *ctx.peer);
    mem::translation_unit& memory = e.dev().memory();
    mem::sge_cursor cursor(memory, q.memory_pd(), mem::access_op::local_read, payload_sges(w));
    cursor.seek(static_cast<std::uint64_t>(w.resume) * mtu);
    const mem::read_guard guard = memory.read();
    transmit_outcome out = transmit_outcome::sent;
    std::uint32_t i = w.resume;
    for (; i < w.packets; ++i) {
        const std::uint32_t psn = wire::psn_add(w.first_psn, i);
        if (windowed && wire::psn_diff(psn, window_end) >= 0) {
            out = transmit_outcome::held;
            break;
        }
        const std::uint64_t offset = static_cast<std::uint64_t>(i) * mtu;
        const std::size_t chunk = payload_of(w, i, mtu);
        wire::packet_headers h = request_headers(w, i);
        const timing::sim_time leaves =
            e.hw().request_ready(ready, offset, chunk, w.length, inline_data);
        if (!at_departure) {
            status fault = status::success;
            wire::frame* f = build_request(e, q, w, i, h, cursor, guard, lend, fault);
            if (f == nullptr) {
                if (fault != status::success) {
                    w.result = fault;
                }
                out = transmit_outcome::refused;
                break;
            }
            e.transmit(*ctx.peer, f, leaves);
        } else {
            // The same lookups as the copy would make, so the same refusals and the same
            // translation-cache touches before the port takes the packet. Where the payload
            // lies is kept for the build (departure_run::payload).
            const std::byte* payload = nullptr;
            const mem::copy_result r =
                inline_data ? mem::copy_result{} : cursor.skip(guard, chunk, payload);
            h.bth.dest_qp = ctx.peer_qpn;
            const std::size_t length = wire::frame_size_of(h, chunk);
            if (!r.ok() || length == 0) {
                w.result = r.st();
                NDKSIM_DEBUG("{}: request {} local SGE {} refused: {}", q.ident(), w.first_psn,
                             r.sge_index, mem::fault_name(r.failed));
                out = transmit_outcome::refused;
                break;
            }
            ctx.req.departures.add(w, ctx.peer, i, e.reserve_departure(length, leaves), payload,
                                   memory.generation(guard));
            w.departures_end = ctx.req.departures.runs_started();
            schedule_departure(e, q);
        }
        w.sent_to = std::max(w.sent_to, i + 1);
    }
    ctx.req.departures.close();
    w.resume = i;
    return out;
}

// The first PSN sent and not yet acknowledged (the next PSN when none is): where the host
// window starts.
std::uint32_t oldest_unacked_psn(core::qp& q) {
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    for (std::uint32_t i = 0; i < outstanding; ++i) {
        const core::send_wqe& w = sq.at(i);
        if (w.done || is_local(w.kind)) {
            continue;
        }
        if (!w.started) {
            break;
        }
        return w.kind == wr_kind::read ? w.first_psn : wire::psn_add(w.first_psn, w.acked);
    }
    return context_of(q).req.next_psn;
}

// The scheduled requester run starts: a doorbell rung from now on schedules another. A
// read-modify-write, not a store: a consumer thread publishes its WQE and then sets the flag,
// while this run clears the flag and then reads the queue's tail. A plain store may become
// visible after that read (store-load reordering, on x86 too), so the consumer could still see
// the flag set and post nothing while this run missed its WQE: a lost doorbell, and a request
// that never leaves. The exchange reads the latest value of the flag; if the consumer set it
// first, this acquires its release and sees the WQE.
void clear_doorbell(qp_context& ctx) noexcept {
    ctx.req.doorbell_pending.exchange(false, std::memory_order_acq_rel);
}

// The QP's WQE engine is busy until a later time: the requester resumes then, so each WQE
// takes the shared resources (PCIe, port) in the order of simulated time.
void resume_when_free(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    if (ctx.req.doorbell_pending.exchange(true, std::memory_order_acq_rel)) {
        return;
    }
    q.add_ref();
    e.dev().sched().post_at(e.hw().wqe_engine_free_at(ctx.hw), [&e, qp = &q] {
        clear_doorbell(context_of(*qp));
        context_of(*qp).req.wqes_fetched = true;
        run_requester(e, *qp);
        qp->release();
    });
}

}  // namespace

void ring_doorbell(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    ctx.req.doorbells.fetch_add(1, std::memory_order_relaxed);
    if (ctx.req.doorbell_pending.exchange(true, std::memory_order_acq_rel)) {
        return;
    }
    q.add_ref();
    e.dev().sched().post_after(e.hw().doorbell_latency(), [&e, qp = &q] {
        clear_doorbell(context_of(*qp));
        run_requester(e, *qp);
        qp->release();
    });
}

void run_requester(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    if (q.state() == core::qp_state::error) {
        fail_qp(e, q);
        return;
    }
    if (q.state() != core::qp_state::connected || ctx.req.retry_scheduled) {
        return;
    }
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    const std::uint32_t mtu = e.hw().mtu();
    const bool was_idle = !awaiting_peer(q);
    // The hardware model fetches and issues the WQEs this run reaches (docs/timing.md steps
    // 2-3); the doorbells rung since the last run each keep the QP's WQE engine busy.
    hw_model::wqe_run run =
        e.hw().begin_wqe_run(e.dev().sched().now(), ctx.req.wqes_fetched,
                             ctx.req.doorbells.exchange(0, std::memory_order_relaxed),
                             outstanding > ctx.req.next_wqe ? outstanding - ctx.req.next_wqe : 0);
    ctx.req.wqes_fetched = false;
    // The host window (engine_config::host_window_packets) counts from the oldest packet not
    // yet acknowledged; an ACK that moves it resumes the run (completer.cpp).
    const std::uint32_t window = e.config().host_window_packets;
    const std::uint32_t window_end = window != 0 ? wire::psn_add(oldest_unacked_psn(q), window) : 0;
    ctx.req.window_blocked = false;
    while (ctx.req.next_wqe < outstanding) {
        core::send_wqe& w = sq.at(ctx.req.next_wqe);
        if (w.done) {
            ++ctx.req.next_wqe;
            continue;
        }
        if (is_local(w.kind)) {
            // Requests take effect in queue order (REFERENCE.md rule 8): the payload of every
            // earlier message is read before a bind, fast-register or invalidate changes what
            // its memory grants.
            if (!depart_all(e, q)) {
                fail_qp(e, q);
                return;
            }
            w.started = true;
            w.result = execute_local(e, q, w);
            w.done = true;
            ++ctx.req.next_wqe;
            if (w.result != status::success) {
                // A failed local operation moves the QP to error, as a failed bind or
                // fast-register does on an RC transport.
                fail_qp(e, q);
                return;
            }
            continue;
        }
        if ((w.flags & core::op_flag::read_fence) != 0 && ctx.req.reads_outstanding > 0) {
            break;  // READ_FENCE: earlier reads first (REFERENCE.md 2.3)
        }
        if (w.kind == wr_kind::read && !w.read_counted &&
            ctx.req.reads_outstanding >= std::max<std::uint32_t>(ctx.ord, 1)) {
            break;  // the outbound read limit is reached
        }
        if (e.hw().wqe_engine_busy(ctx.hw, run)) {
            ctx.req.doorbells.fetch_add(e.hw().take_uncharged_doorbells(run),
                                        std::memory_order_relaxed);
            resume_when_free(e, q);
            break;
        }
        if (!w.started) {
            w.started = true;
            w.packets = packets_for(w.length, mtu);
            w.first_psn = ctx.req.next_psn;
            ctx.req.next_psn = wire::psn_add(ctx.req.next_psn, w.packets);
            w.resume = 0;
            ctx.comp.requests.record(sq, ctx.req.next_wqe);
        } else if (w.resume < w.packets) {
            // A READ is asked for again with one request packet; a message resends what had
            // left (a message the host window held goes on where it stopped).
            e.counters().retransmitted_packets.fetch_add(
                w.kind == wr_kind::read ? 1 : (w.sent_to > w.resume ? w.sent_to - w.resume : 0),
                std::memory_order_relaxed);
        }
        const timing::sim_time ready =
            e.hw().issue_wqe(run, ctx.hw, q.qpn(), (w.flags & core::op_flag::inline_data) != 0);
        if (w.kind == wr_kind::read) {
            if (w.resume < w.packets) {
                transmit_read(e, q, w, ready);
            }
        } else if (w.resume < w.packets) {
            const transmit_outcome out = transmit_message(e, q, w, ready, window != 0, window_end);
            if (out == transmit_outcome::refused) {
                w.done = true;
                fail_qp(e, q);
                return;
            }
            if (out == transmit_outcome::held) {
                ctx.req.window_blocked = true;
                e.counters().window_waits.fetch_add(1, std::memory_order_relaxed);
                break;
            }
        }
        ++ctx.req.next_wqe;
    }
    e.hw().end_wqe_run(run, ctx.hw);
    arm_ack_timer(e, q, was_idle);
    complete_in_order(e, q);
}

bool depart_all(engine& e, core::qp& q) {
    return depart_front(e, q, context_of(q).req.departures.size());
}

bool depart_through(engine& e, core::qp& q, const core::send_wqe& w) {
    const std::uint64_t left = context_of(q).req.departures.runs_left();
    return w.departures_end <= left || depart_front(e, q, w.departures_end - left);
}

void rewind_requester(engine& e, core::qp& q, std::uint32_t psn) {
    qp_context& ctx = context_of(q);
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    bool found = false;
    for (std::uint32_t i = 0; i < outstanding; ++i) {
        core::send_wqe& w = sq.at(i);
        if (w.done || !w.started || is_local(w.kind)) {
            continue;
        }
        if (!found) {
            const std::int32_t offset = wire::psn_diff(psn, w.first_psn);
            if (offset < 0 || offset >= static_cast<std::int32_t>(w.packets)) {
                continue;
            }
            found = true;
            ctx.req.next_wqe = i;
            // A READ is always asked for again whole; a message resumes at the named packet.
            w.resume = w.kind == wr_kind::read ? 0 : static_cast<std::uint32_t>(offset);
        } else {
            w.resume = 0;
        }
    }
    if (!found) {
        NDKSIM_DEBUG("{}: rewind to PSN {:#x} names no request in flight", q.ident(), psn);
        e.counters().protocol_errors.fetch_add(1, std::memory_order_relaxed);
    }
}

}  // namespace ndksim::nic
