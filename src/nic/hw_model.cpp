// SPDX-License-Identifier: MIT
#include "nic/hw_model.hpp"

#include <algorithm>
#include <cstddef>

#include "wire/opcode_table.hpp"
#include "wire/proto.hpp"

namespace ndksim::nic {

hw_model::hw_model(const timing::cost_model& costs, std::uint32_t qpc_entries,
                   std::uint32_t qp_numbers, bool zero_cost)
    : costs_(costs), zero_(zero_cost), qpc_(qpc_entries, qp_numbers), held_bytes_(qp_numbers, 0) {}

std::uint64_t hw_model::frame_length(std::uint64_t payload, std::uint64_t extra_headers) noexcept {
    return wire::bth_size + extra_headers + payload +
           wire::pad_for(static_cast<std::size_t>(payload)) + wire::icrc_size;
}

hw_model::wqe_run hw_model::begin_wqe_run(timing::sim_time now, bool wqes_fetched,
                                          std::uint32_t doorbells,
                                          std::uint32_t waiting) const noexcept {
    wqe_run run;
    run.now = now;
    run.fetched = wqes_fetched ? now : 0;
    // A post that rings its own doorbell writes its WQE through the doorbell page (mlx5:
    // rdma-core providers/mlx5 post_send writes a single WQE by BlueFlame, on by default), so
    // a run whose every waiting WQE came with a doorbell has nothing to fetch. A doorbell
    // announcing several deferred posts carries none of them.
    run.pushed =
        !zero_ && costs_.wqe_pushed_with_doorbell() && doorbells > 0 && doorbells >= waiting;
    run.doorbells = doorbells;
    return run;
}

std::uint32_t hw_model::take_uncharged_doorbells(wqe_run& run) const noexcept {
    const std::uint32_t n = run.doorbells;
    run.doorbells = 0;
    return n;
}

timing::sim_time hw_model::issue_wqe(wqe_run& run, qp_state& qp, std::uint32_t qpn,
                                     bool inline_wqe) {
    if (zero_) {
        return run.now;
    }
    // The QP's context (send queue address, PSNs) is loaded before the first WQE a run issues;
    // a QPC miss delays the WQE fetch and the issue by the context fetch.
    if (!run.context_loaded) {
        run.context_at = load_qp_context(qpn, run.now);
        run.context_loaded = true;
    }
    // The WQEs a doorbell announced are fetched by one DMA read; an inline WQE, or one the
    // doorbell carried, is already in the NIC.
    if (!inline_wqe && !run.pushed && run.fetched == 0) {
        run.fetched = dma_read(run.context_at, costs_.host.wqe_bytes);
    }
    const timing::sim_time fetched =
        inline_wqe ? run.context_at : std::max(run.fetched, run.context_at);
    qp.wqe_engine_free_at = std::max(qp.wqe_engine_free_at, fetched) + costs_.wqe_time();
    const timing::sim_time issued = qp.wqe_engine_free_at;
    // Each doorbell keeps the WQE engine busy after the WQE it announced (the per-QP rate).
    if (run.doorbells > 0) {
        --run.doorbells;
        qp.wqe_engine_free_at += costs_.cycles(costs_.nic.doorbell_cycles);
    }
    return issued;
}

void hw_model::end_wqe_run(const wqe_run& run, qp_state& qp) const noexcept {
    if (zero_) {
        return;
    }
    qp.wqe_engine_free_at = std::max(qp.wqe_engine_free_at, run.now) +
                            run.doorbells * costs_.cycles(costs_.nic.doorbell_cycles);
}

void hw_model::read_response_on_engine(qp_state& qp, timing::sim_time now) const noexcept {
    if (zero_) {
        return;
    }
    qp.wqe_engine_free_at =
        std::max(qp.wqe_engine_free_at, now) + costs_.cycles(costs_.nic.read_response_cycles);
}

timing::sim_time hw_model::request_ready(timing::sim_time issued, std::uint64_t offset,
                                         std::uint64_t payload, std::uint64_t message_bytes,
                                         bool payload_in_nic) {
    if (zero_) {
        return issued;
    }
    // The payload is read from host memory (docs/timing.md step 4); an inline one is already
    // in the NIC.
    return packet_ready(
        payload_in_nic || payload == 0 ? issued : staged(issued, offset, payload, message_bytes));
}

timing::sim_time hw_model::read_response_ready(timing::sim_time now, std::uint64_t offset,
                                               std::uint64_t payload, std::uint64_t message_bytes) {
    if (zero_) {
        return now;
    }
    return payload == 0 ? control_ready(now)
                        : packet_ready(staged(now, offset, payload, message_bytes));
}

// Store and forward in units of nic.store_forward_bytes of a message, whatever the path MTU.
// Measured on ConnectX-4 EDR (bench/calibration/points.md), one-packet SEND latency grows by
// about 0.22 ns a byte between 1 and 4 KiB: the PCIe read, the wire and the PCIe write of each
// byte add up, as they do when neither end forwards data before it holds all of it; and a
// 4 KiB SEND takes as long at an MTU of 256 B as at 4096 B, so the unit is not the packet.
// A stream still runs at its slowest stage: one unit's stages overlap the next one's.
timing::sim_time hw_model::staged(timing::sim_time issued, std::uint64_t offset,
                                  std::uint64_t payload, std::uint64_t message_bytes) {
    const std::uint64_t unit = costs_.nic.store_forward_bytes;
    if (issued != unit_issued_ || offset != unit_next_ || offset % unit == 0 ||
        offset >= unit_end_) {
        unit_issued_ = issued;
        unit_end_ =
            std::max(std::min(message_bytes, offset - offset % unit + unit), offset + payload);
        unit_ready_ = dma_read(issued, unit_end_ - offset);
    }
    unit_next_ = offset + payload;
    return unit_ready_;
}

timing::sim_time hw_model::dma_read(timing::sim_time issued, std::uint64_t bytes) {
    const timing::sim_time start =
        std::max(issued + 2 * costs_.pcie.crossing + costs_.host.memory_read, pcie_in_free_at_);
    pcie_in_free_at_ = start + stream_time(bytes, timing::dma_direction::from_host);
    return pcie_in_free_at_;
}

timing::sim_time hw_model::stream_time(std::uint64_t bytes,
                                       timing::dma_direction direction) noexcept {
    if (bytes < timing::cost_model::k_small_stream) {
        return costs_.pcie_stream_time(bytes, direction);
    }
    stream_memo& m = stream_memo_[static_cast<std::size_t>(direction)];
    if (m.bytes != bytes) {
        m.time = costs_.stream_time_of(bytes, direction);
        m.bytes = bytes;
    }
    return m.time;
}

timing::sim_time hw_model::packet_ready(timing::sim_time read) const noexcept {
    return read + costs_.packet_latency(true);
}

timing::sim_time hw_model::tx_packet(std::uint64_t frame_len, timing::sim_time ready,
                                     timing::sim_time now, std::uint64_t translation_misses) {
    if (zero_) {
        port_free_at_ = std::max(ready, now);
        return port_free_at_;
    }
    // Translation-cache misses of the accesses since the last frame (the payload this frame
    // carries, or the placement it acknowledges) fetch their entries over PCIe first. A NIC
    // keeps several such fetches in flight: a lone miss costs the whole round trip, a run of
    // them one round trip plus a share of it per further miss, and fetches started while
    // earlier packets were placed overlap that placement (docs/timing.md).
    const std::uint64_t fresh = translation_misses - translation_misses_;
    translation_misses_ = translation_misses;
    if (fresh > 0) {
        const timing::sim_time penalty = costs_.cache_miss_penalty(timing::nic_cache::translation);
        const timing::sim_time share = penalty / k_translation_fetches_in_flight;
        const timing::sim_time start = std::max(mtt_free_at_, miss_window_start_);
        // The last fetch starts once the engine had room for it, and not before the last miss
        // happened (at the latest, now); the frame waits for its round trip.
        const timing::sim_time last = std::max(start + (fresh - 1) * share, now);
        mtt_free_at_ = std::max(start + fresh * share, now);
        ready = std::max(ready, last) + penalty;
    }
    miss_window_start_ = now;
    const timing::sim_time departure = std::max({ready, port_free_at_, pipeline_free_at_, now});
    pipeline_free_at_ = departure + costs_.packet_gap;
    port_free_at_ = departure + costs_.serialization(frame_len);
    return port_free_at_;
}

timing::sim_time hw_model::load_qp_context(std::uint32_t qpn, timing::sim_time at) noexcept {
    if (zero_) {
        return at;
    }
    if (qpc_.touch(qpn)) {
        return at;
    }
    const timing::sim_time penalty = costs_.cache_miss_penalty(timing::nic_cache::qp_context);
    const timing::sim_time start = std::max(at, qpc_fetch_free_at_);
    qpc_fetch_free_at_ = start + penalty / k_context_fetches_in_flight;
    return start + penalty;
}

std::uint64_t hw_model::bytes_to_place(std::uint32_t qpn, std::uint64_t payload,
                                       bool ends_message) {
    if (qpn >= held_bytes_.size()) {
        return payload;
    }
    const std::uint64_t held = held_bytes_[qpn] + payload;
    if (!ends_message && held < costs_.nic.store_forward_bytes) {
        held_bytes_[qpn] = static_cast<std::uint32_t>(held);
        return 0;
    }
    held_bytes_[qpn] = 0;
    return held;
}

// The receive stage of docs/timing.md: the whole frame passes the receive pipeline, then, once
// its store-and-forward unit is complete (staged), posted writes of the unit's payload and of
// the CQE a message's last packet may complete queue on the NIC-to-host link; the data is in
// memory one crossing after the last write. A packet whose unit is not complete yet is
// dispatched after the receive pipeline. Malformed frames are only refused at dispatch.
timing::sim_time hw_model::rx_packet(const wire::frame& f, timing::sim_time now, bool from_peer) {
    if (zero_) {
        rx_handled_at_ = std::max(rx_handled_at_, now);
        return rx_handled_at_;
    }
    const wire::opcode_info& info =
        wire::opcode_lookup(f.length > 0 ? static_cast<std::uint32_t>(f.data[0]) : 0xFFU);
    // An RC packet needs its QP's context (expected PSN, placement state) before the receive
    // pipeline can handle it: a QPC miss holds the frame for the fetch. Connection management
    // datagrams (UD, QP 1) use no QP context.
    const bool rc = info.valid && info.svc == wire::service::rc && f.length >= wire::bth_size;
    const auto qpn = rc ? static_cast<std::uint32_t>(
                              wire::load_be<3>(f.data + offsetof(wire::bth_layout, dest_qp)))
                        : 0U;
    // Only a frame matched to its QP's peer loads that context: a forged one must not evict a
    // live connection's context from the cache (and so move its times).
    if (rc && from_peer) {
        now = load_qp_context(qpn, now);
    }
    const timing::sim_time received = now + costs_.packet_latency(false);
    const std::size_t framing = info.header_size + wire::icrc_size;
    const std::uint64_t payload = info.valid && f.length > framing ? f.length - framing : 0;
    // The last packet of a message completes a request (a receive, a READ, or the sends an
    // ACK covers), except a READ request and a WRITE without immediate data.
    const bool completes = info.valid && info.ends_message() &&
                           info.cls != wire::op_class::read_request &&
                           (info.cls != wire::op_class::write || info.has(wire::ext::immdt));
    // An RC packet's payload is placed with the rest of its store-and-forward unit
    // (staged): the packet that completes the unit, or ends the message, places all of it.
    const std::uint64_t place = rc && from_peer && payload > 0
                                    ? bytes_to_place(qpn, payload, info.ends_message())
                                    : payload;
    timing::sim_time done = received;
    if (place > 0 || completes) {
        const auto to_host = timing::dma_direction::to_host;
        done = std::max(pcie_out_free_at_, received);
        if (place > 0) {
            done += stream_time(place, to_host);
        }
        if (completes) {
            done += costs_.pcie_stream_time(costs_.host.cqe_bytes, to_host);
        }
        pcie_out_free_at_ = done;
        done += costs_.pcie.crossing;
    }
    rx_handled_at_ = std::max(rx_handled_at_, done);
    return rx_handled_at_;
}

}  // namespace ndksim::nic
