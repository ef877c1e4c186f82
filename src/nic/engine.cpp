// SPDX-License-Identifier: MIT
#include "nic/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "core/connector.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "core/listener.hpp"
#include "core/qp.hpp"
#include "nic/connection_manager.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "timing/sync_domain.hpp"
#include "util/log.hpp"
#include "util/single_writer.hpp"
#include "wire/cm_proto.hpp"
#include "wire/opcode_table.hpp"
#include "wire/proto.hpp"

namespace ndksim::nic {
engine::engine(core::device& dev, engine_config cfg, const transport_factory& make_link)
    : dev_(dev),
      cfg_(std::move(cfg)),
      // Its frames come back on this adapter's scheduler thread when the receiver shares it
      // (one deterministic loop) or is this adapter, and skip the pool's atomics then.
      frames_(wire::frame_pool::create(256, SIZE_MAX, &dev.sched())),
      hw_(cfg_.costs, cfg_.costs.nic.qpc_cache_entries, core::device::k_max_qps,
          cfg_.zero_cost_hardware) {
    link_ = make_link([this](wire::frame* f) { on_frame(f); });
    local_address_ = link_->local_address();
    cm_ = std::make_unique<connection_manager>(*this);
    register_counters();
    dev_.set_hooks(this);
}

namespace {

// True when the frame's ICRC need not be checked here: a socket receiver checked it, nothing
// could change the frame on its way (the sender left it out), or the frame is lent
// (wire/lent_frames.hpp) and so came straight from memory, since a layer that could corrupt it
// copies the payload in first. A lent frame's buffer does not hold its payload, so its ICRC
// could not be checked over it anyway.
bool icrc_trusted(const wire::frame& f) noexcept {
    return f.icrc_checked || f.icrc_elided || f.borrowed != nullptr;
}

// Where the statistics document puts each of the engine's counters (docs/statistics.md).
using engine_cell = std::atomic<std::uint64_t> engine_counters::*;
constexpr std::pair<const char*, engine_cell> k_engine_counter_paths[] = {
    {"packets.sent", &engine_counters::packets_sent},
    {"packets.received", &engine_counters::packets_received},
    {"packets.acks_sent", &engine_counters::acks_sent},
    {"packets.naks_sent", &engine_counters::naks_sent},
    {"packets.rnr_naks_sent", &engine_counters::rnr_naks_sent},
    {"packets.rnr_retries", &engine_counters::rnr_retries},
    {"packets.retransmitted", &engine_counters::retransmitted_packets},
    {"packets.duplicates", &engine_counters::duplicate_packets},
    {"packets.out_of_sequence", &engine_counters::out_of_sequence_packets},
    {"packets.protocol_errors", &engine_counters::protocol_errors},
    {"drops.unknown_qp", &engine_counters::frames_for_unknown_qp},
    {"drops.unconnected_qp", &engine_counters::frames_for_unconnected_qp},
    {"drops.pkey_violations", &engine_counters::pkey_violations},
    {"cm.sent", &engine_counters::cm_messages_sent},
    {"cm.received", &engine_counters::cm_messages_received},
    {"cm.bad", &engine_counters::cm_bad_messages},
    {"cm.resent", &engine_counters::cm_messages_resent},
    {"reliability.ack_timeouts", &engine_counters::ack_timeouts},
    {"reliability.retries_exhausted", &engine_counters::retries_exhausted},
    {"reliability.acks_coalesced", &engine_counters::acks_coalesced},
    {"reliability.window_waits", &engine_counters::window_waits},
    {"reliability.stale_responses", &engine_counters::stale_responses},
    {"reliability.connections_aborted", &engine_counters::connections_aborted},
};

}  // namespace

void engine::register_counters() {
    for (const auto& [path, cell] : k_engine_counter_paths) {
        stats_.add_counter(path, counters_.*cell);
    }
    // Frames that failed to decode: in total, and by the codec's cause ("none" is its success).
    stats_.add_counter("drops.bad_frames", [this] {
        std::uint64_t sum = 0;
        for (const auto& cause : counters_.bad_frames) {
            sum += cause.load(std::memory_order_relaxed);
        }
        return sum;
    });
    for (std::size_t i = 0; i < wire::decode_error_count; ++i) {
        const auto cause = static_cast<wire::decode_error>(i);
        if (cause != wire::decode_error::none) {
            stats_.add_counter(
                "drops.bad_frames_by_cause." + std::string(wire::decode_error_name(cause)),
                counters_.bad_frames[i]);
        }
    }
    // The cache models keep their own tallies.
    const mem::translation_unit& memory = dev_.memory();
    stats_.add_counter("translation_cache.hits", [&memory] { return memory.cache_stats().hits; });
    stats_.add_counter("translation_cache.misses",
                       [&memory] { return memory.cache_stats().misses; });
    stats_.add_counter("translation_cache.stale_hits",
                       [&memory] { return memory.cache_stats().stale_hits; });
    stats_.add_counter("qp_context_cache.hits", [this] { return hw_.qp_contexts().hits(); });
    stats_.add_counter("qp_context_cache.misses", [this] { return hw_.qp_contexts().misses(); });
}

engine::~engine() {
    dev_.set_hooks(nullptr);
    // Frames still arriving while the link shuts down (a socket transport closes on the engine
    // thread) are dropped, and the frames already queued run first, so no task is left that
    // refers to this engine.
    detached_.store(true, std::memory_order_release);
    timing::scheduler& sched = dev_.sched();
    // A task the engine thread started before the store may still be reading the link
    // (on_frame checks detached_ once, then uses link_): one more task, run after it, marks
    // the point from which every task sees the store, and only then does the link go.
    if (sched.mode() == timing::run_mode::threaded && !sched.in_task()) {
        const auto passed = std::make_shared<std::atomic<bool>>(false);
        sched.post([passed] { passed->store(true, std::memory_order_release); });
        sched.wait_until([&passed] { return passed->load(std::memory_order_acquire); },
                         std::chrono::seconds(10));
    }
    link_.reset();
    if (!sched.in_task()) {
        sched.drain();
        sched.wait_until([&sched] { return sched.idle(); }, std::chrono::seconds(10));
    }
}

void engine::attach_qp(core::qp& q) {
    auto ctx = std::make_unique<qp_context>();
    ctx->stats = stats_.add_qp(q.qpn());
    q.set_engine_state(std::move(ctx));
}

void engine::note_data_placed() noexcept {
    if (timing::sync_domain* d = dev_.sync()) {
        d->data_placed();
    }
}

void engine::transmit(wire::transport::peer& to, wire::frame* f, timing::sim_time ready) {
    hand_over(to, f, reserve_departure(f->length, ready));
}

timing::sim_time engine::reserve_departure(std::size_t frame_length, timing::sim_time ready) {
    util::single_writer_add(counters_.packets_sent);
    return hw_.tx_packet(frame_length, ready, dev_.sched().now(),
                         dev_.memory().cache_stats().misses);
}

void engine::hand_over(wire::transport::peer& to, wire::frame* f, timing::sim_time last_bit) {
    // The link adds the propagation to the time the last bit leaves.
    link_->send(to, f, last_bit);
}

void engine::on_frame(wire::frame* f) {
    if (detached_.load(std::memory_order_acquire)) {
        wire::frame_pool::release(f);
        return;
    }
    core::ref<core::qp> q;
    if (f->stamped) {
        // A socket wire's frame carries its sender's departure time, which pulls this clock up
        // so that the frame does not land in our past (docs/wire-format.md, "Time across
        // processes"). Only a frame from a peer of a live connection, or a request for a live
        // listener, may move it: a stranger's frame is dispatched now, and dropped and counted
        // there, leaving the clock as it was. The QP found here goes on with the frame, so
        // dispatch does not look it up again.
        f->stamped = false;
        const bool live = matches_live(*f, q);
        if (live) {
            // In synchronized time its sender becomes a peer of the sync domain now, if it
            // was none: a frame that matched nothing never makes a stranger one.
            link_->confirm_peer(f->source);
            dev_.sched().advance_to(f->departure);
        }
        // A peer's frame in synchronized time is read long before its modelled arrival, when
        // the connection it belongs to may not be live yet (its ready-to-use message is
        // itself still on the way): it waits for its arrival and is matched then (receive),
        // which moves no clock in that mode.
        if (live || link_->is_sync_peer(f->source)) {
            timing::scheduler& sched = dev_.sched();
            if (f->arrival > sched.now()) {
                sched.post_at(f->arrival, [this, f, q] { receive(f, q); });
                return;
            }
            if (f->arrival < sched.now()) {
                if (timing::sync_domain* d = dev_.sync()) {
                    // Only a sender that was not yet a peer when it sent gets here: the frame
                    // runs now, behind its modelled time, and the run is no longer exact.
                    d->frame_arrived_late();
                }
            }
        }
    }
    receive(f, std::move(q));
}

void engine::receive(wire::frame* f, core::ref<core::qp> q) {
    // The receive pipeline keeps per-QP placement state, which only a frame from the QP's
    // peer may change: find the destination QP (dispatch reuses it) and match the source now.
    if (!q && f->length >= wire::bth_size) {
        q = dev_.find_qp(static_cast<std::uint32_t>(
            wire::load_be<3>(f->data + offsetof(wire::bth_layout, dest_qp))));
    }
    const qp_match m = match_qp(q.get(), f->source);
    const bool from_peer = m == qp_match::peer || m == qp_match::awaiting_rtu;
    if (from_peer) {
        prefetch_target(*f);
    }
    // Always through the queue, even when the time has come (a threaded engine's clock can be
    // ahead of the frame): the dispatch times never decrease, so the (time, sequence) order
    // keeps frames in arrival order behind those still waiting.
    dev_.sched().post_at(hw_.rx_packet(*f, dev_.sched().now(), from_peer),
                         [this, f, q = std::move(q)] { dispatch(f, q); });
}

void engine::prefetch_target(const wire::frame& f) const noexcept {
    // A WRITE's first packet or a READ request names its target in a RETH; the responder
    // translates it when the frame is dispatched, after the receive pipeline's events. A hint
    // only: the frame is checked in full at dispatch (decode_frame), so a short or odd frame
    // merely prefetches nothing.
    if (f.length < wire::bth_size) {
        return;
    }
    const wire::opcode_info& info =
        wire::opcode_lookup(wire::load_be<1>(f.data + offsetof(wire::bth_layout, opcode)));
    if (!info.has(wire::ext::reth)) {
        return;
    }
    const std::size_t at = info.offset_of(wire::ext::reth) + offsetof(wire::reth_layout, rkey);
    if (f.length >= at + 4) {
        dev_.memory().prefetch(wire::load_be<4>(f.data + at));
    }
}

engine::qp_match engine::match_qp(core::qp* q, const wire::ip_address& source) const {
    if (q == nullptr) {
        return qp_match::unknown;
    }
    // The passive side's QP takes the connection's context when the consumer accepts, and
    // stays connecting until the ready-to-use message arrives (connection_manager::accept).
    const bool connected = q->state() == core::qp_state::connected;
    const bool awaiting_rtu = q->state() == core::qp_state::connecting;
    if ((!connected && !awaiting_rtu) || q->engine_state() == nullptr ||
        context_of(*q).peer_qpn == 0) {
        return qp_match::unconnected;
    }
    if (!(source == context_of(*q).flow.dst)) {
        return connected ? qp_match::stranger : qp_match::unconnected;
    }
    return connected ? qp_match::peer : qp_match::awaiting_rtu;
}

bool engine::matches_live(const wire::frame& f, core::ref<core::qp>& q) {
    const wire::flow flow{f.source, local_address_, wire::roce_udp_port, wire::roce_udp_port, 0};
    const wire::decode_result r =
        wire::decode_frame(std::span<const std::byte>(f.data, f.length), flow, icrc_trusted(f));
    if (!r.ok()) {
        return false;
    }
    if (wire::is_cm_packet(r.packet)) {
        return cm_->matches_live(r.packet, f.source);
    }
    q = dev_.find_qp(r.packet.headers.bth.dest_qp);
    const qp_match m = match_qp(q.get(), f.source);
    return m == qp_match::peer || (m == qp_match::awaiting_rtu && establishes(*q, r.packet));
}

bool engine::establishes(core::qp& q, const wire::decoded_packet& p) const {
    return p.info->svc == wire::service::rc && p.info->is_request() &&
           p.headers.bth.psn == context_of(q).resp.expected_psn;
}

void engine::dispatch(wire::frame* f, const core::ref<core::qp>& found) {
    util::single_writer_add(counters_.packets_received);
    if (detached_.load(std::memory_order_acquire)) {
        wire::frame_pool::release(f);
        return;
    }
    const wire::flow flow{f->source, local_address_, wire::roce_udp_port, wire::roce_udp_port, 0};
    wire::decode_result r =
        wire::decode_frame(std::span<const std::byte>(f->data, f->length), flow, icrc_trusted(*f));
    if (!r.ok()) {
        counters_.bad_frames[static_cast<std::size_t>(r.error)].fetch_add(
            1, std::memory_order_relaxed);
        NDKSIM_DEBUG("{}: dropped a frame from {}: {}", dev_.name(), wire::to_string(f->source),
                     wire::decode_error_name(r.error));
        wire::frame_pool::release(f);
        return;
    }
    if (f->borrowed != nullptr && r.packet.payload.size() == f->borrowed_size) {
        // A lent frame (wire/lent_frames.hpp): the payload is placed from the sender's memory.
        r.packet.payload = std::span<const std::byte>(f->borrowed, f->borrowed_size);
    }
    const wire::decoded_packet& p = r.packet;
    if (wire::is_cm_packet(p)) {
        cm_->on_datagram(p, f->source);
    } else {
        // The arrival's reference, when it found the QP, serves here: a copy would add and drop
        // a counted reference (two read-modify-writes) per packet for nothing.
        const core::ref<core::qp> looked_up =
            found ? core::ref<core::qp>() : dev_.find_qp(p.headers.bth.dest_qp);
        core::qp* const q = found ? found.get() : looked_up.get();
        switch (match_qp(q, f->source)) {
            case qp_match::unknown:
                counters_.frames_for_unknown_qp.fetch_add(1, std::memory_order_relaxed);
                NDKSIM_TRACE("{}: frame for unknown QP {:#x} dropped", dev_.name(),
                             p.headers.bth.dest_qp);
                break;
            case qp_match::awaiting_rtu:
                // The first request from the peer, at the PSN it announced, on a QP whose
                // ready-to-use message has not come (lost, or behind the data): IBA's
                // Communication Established event (vol. 1, 11.6.3.1: the first request packet
                // arrives at a QP still in RTR), on which the CM ends the passive side's wait
                // as an RTU would (chapter 12). So the accept completes, and the packet is
                // taken as on any connected QP.
                if (wire::pkey_matches(p.headers.bth.pkey, wire::default_pkey) &&
                    establishes(*q, p) && cm_->established(*q)) {
                    on_request(*this, *q, p);
                } else {
                    counters_.frames_for_unconnected_qp.fetch_add(1, std::memory_order_relaxed);
                }
                break;
            case qp_match::unconnected:
                counters_.frames_for_unconnected_qp.fetch_add(1, std::memory_order_relaxed);
                break;
            case qp_match::stranger:
                // A packet for a connected QP from any address but its peer's is forged or
                // stray: it must not touch the connection (bad input kills at most its own
                // connection).
                counters_.protocol_errors.fetch_add(1, std::memory_order_relaxed);
                break;
            case qp_match::peer:
                if (p.info->svc != wire::service::rc) {
                    counters_.protocol_errors.fetch_add(1, std::memory_order_relaxed);
                } else if (!wire::pkey_matches(p.headers.bth.pkey, wire::default_pkey)) {
                    // IBA vol. 1 9.6.1.1 (header validation, P_Key check): a packet of another
                    // partition is silently dropped and the violation counted, by the responder
                    // and the completer alike. It proves nothing about the peer, so the
                    // connection goes on.
                    counters_.pkey_violations.fetch_add(1, std::memory_order_relaxed);
                } else if (p.info->is_request()) {
                    on_request(*this, *q, p);
                } else {
                    on_response(*this, *q, p);
                }
                break;
        }
    }
    wire::frame_pool::release(f);
}

void engine::qp_closing(core::qp& q) {
    // A QP that never carried traffic and holds no request has nothing to flush: its close
    // can finish inline. Otherwise flushing runs on the engine, which owns the pipeline state;
    // the task's reference keeps the QP alive until it has run, and the close completes after
    // it (the close waits while the QP is busy).
    const bool quiet = (q.state() == core::qp_state::idle || q.state() == core::qp_state::error) &&
                       q.sq().outstanding() == 0 &&
                       (q.rq() == nullptr || q.rq()->outstanding() == 0);
    if (quiet) {
        return;
    }
    core::post_held(q, 0, [this, qp = &q] {
        if (qp->engine_state() != nullptr) {
            fail_qp(*this, *qp);
        }
    });
}

void engine::connector_closing(core::connector& c) {
    cm_->connector_closing(c);
}

void engine::listener_closing(core::listener& l) {
    cm_->listener_closing(l);
}

}  // namespace ndksim::nic
