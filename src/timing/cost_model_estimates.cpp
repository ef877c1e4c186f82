// SPDX-License-Identifier: MIT
#include "timing/cost_model_estimates.hpp"

#include <algorithm>

namespace ndksim::timing {
namespace {

constexpr std::uint64_t bth_bytes = 12;
constexpr std::uint64_t icrc_bytes = 4;
constexpr std::uint64_t reth_bytes = 16;
constexpr std::uint64_t aeth_bytes = 4;
constexpr double ps_per_second = 1.0e12;

// Where a message stands after crossing from one adapter to the other.
struct delivery {
    sim_time last_arrival = 0;  // last bit of the last packet at the receiving port [ps]
    sim_time placed = 0;        // last payload byte in the receiver's host memory [ps]
};

// One message of `bytes` leaving an adapter whose per-QP engine issued it at `issued`, with
// `first_extra` header bytes after BTH on its first packet and `rest_extra` on the others
// (RETH on a WRITE's first packet, AETH on every READ response). Both ends store and forward
// in units of nic.store_forward_bytes (hw_model::staged): the sender reads each unit from host
// memory (unless `inline_data`) and sends its packets once all of it is in the NIC; the
// receiver places a unit by posted writes once its last packet has arrived. Nothing else
// queues: the stage sum of an idle pair of adapters.
delivery deliver(const cost_model& m, sim_time issued, std::uint64_t bytes,
                 std::uint64_t first_extra, std::uint64_t rest_extra, bool inline_data) {
    const std::uint64_t packets = m.packets_for(bytes);
    const std::uint64_t unit = m.nic.store_forward_bytes;
    // The reads of all units are issued together; completions start after a round trip.
    sim_time pcie_in_free = issued + 2 * m.pcie.crossing + m.host.memory_read;
    sim_time unit_read = issued;
    sim_time port_free = 0;
    sim_time pcie_out_free = 0;
    std::uint64_t held = 0;
    delivery d;
    for (std::uint64_t k = 0; k < packets; ++k) {
        const std::uint64_t offset = k * m.wire.mtu;
        const std::uint64_t chunk = std::min<std::uint64_t>(m.wire.mtu, bytes - offset);
        const std::uint64_t frame = frame_bytes(chunk, k == 0 ? first_extra : rest_extra);
        if (!inline_data && chunk > 0 && offset % unit == 0) {
            pcie_in_free +=
                m.pcie_stream_time(std::min(unit, bytes - offset), dma_direction::from_host);
            unit_read = pcie_in_free;
        }
        const sim_time departure = std::max(unit_read + m.packet_latency(true), port_free);
        port_free = departure + m.serialization(frame);
        d.last_arrival = port_free + m.propagation;
        held += chunk;
        if (held >= unit || k + 1 == packets) {
            pcie_out_free = std::max(pcie_out_free, d.last_arrival + m.packet_latency(false)) +
                            (held > 0 ? m.pcie_stream_time(held, dma_direction::to_host) : 0);
            held = 0;
        }
    }
    d.placed = pcie_out_free + m.pcie.crossing;
    return d;
}

// When the per-QP engine issues a WQE whose doorbell rang at 0: a doorbell announcing one WQE
// carries it (cost_model::wqe_pushed_with_doorbell), otherwise the NIC fetches it.
sim_time issue_time(const cost_model& m, bool inline_data) {
    const sim_time fetch = inline_data || m.wqe_pushed_with_doorbell()
                               ? 0
                               : m.pcie_dma_time(m.host.wqe_bytes, dma_direction::from_host);
    return m.host.doorbell_mmio + fetch + m.wqe_time();
}

// A CQE written right behind the payload (posted writes stay ordered), visible after the
// crossing that the payload's last TLP already paid.
sim_time cqe_after(const cost_model& m, sim_time placed) {
    return placed + m.pcie_stream_time(m.host.cqe_bytes, dma_direction::to_host);
}

}  // namespace

std::uint64_t frame_bytes(std::uint64_t payload, std::uint64_t extra_headers) {
    const std::uint64_t body = bth_bytes + extra_headers + payload;
    return (body + 3) / 4 * 4 + icrc_bytes;
}

sim_time estimate_send_latency(const cost_model& m, std::uint64_t bytes, bool inline_data) {
    const delivery d = deliver(m, issue_time(m, inline_data), bytes, 0, 0, inline_data);
    return cqe_after(m, d.placed);
}

sim_time estimate_completion_latency(const cost_model& m, rdma_op op, std::uint64_t bytes,
                                     bool inline_data) {
    const sim_time issued = issue_time(m, inline_data && op != rdma_op::read);
    if (op == rdma_op::read) {
        // The request crosses, the responder reads its memory and streams the responses
        // back, the requester places them and writes the CQE.
        const sim_time request_out = issued + m.packet_latency(true);
        const sim_time request_in =
            request_out + m.serialization(frame_bytes(0, reth_bytes)) + m.propagation;
        const delivery d =
            deliver(m, request_in + m.packet_latency(false), bytes, aeth_bytes, aeth_bytes, false);
        return cqe_after(m, d.placed);
    }
    const delivery d =
        deliver(m, issued, bytes, op == rdma_op::write ? reth_bytes : 0, 0, inline_data);
    // The responder acknowledges once the last packet is placed (and its CQE, if any, written);
    // the ACK goes back through both pipelines and the requester writes the CQE.
    const sim_time ack_out = cqe_after(m, d.placed) + m.ack.generation + m.packet_latency(true);
    const sim_time ack_in = ack_out + m.serialization(frame_bytes(0, aeth_bytes)) + m.propagation;
    return ack_in + m.packet_latency(false) +
           m.pcie_dma_time(m.host.cqe_bytes, dma_direction::to_host);
}

double estimate_write_bandwidth(const cost_model& m, std::uint64_t bytes) {
    const std::uint64_t packets = m.packets_for(bytes);
    sim_time link = 0;
    // A doorbell per WRITE: the doorbell carries the WQE unless WQEs are always fetched.
    sim_time pcie_in = m.wqe_pushed_with_doorbell()
                           ? 0
                           : m.pcie_stream_time(m.host.wqe_bytes, dma_direction::from_host);
    sim_time pcie_out = 0;
    for (std::uint64_t k = 0; k < packets; ++k) {
        const std::uint64_t chunk = std::min<std::uint64_t>(m.wire.mtu, bytes - k * m.wire.mtu);
        link += m.serialization(frame_bytes(chunk, k == 0 ? reth_bytes : 0));
        pcie_in += m.pcie_stream_time(chunk, dma_direction::from_host);
        pcie_out += m.pcie_stream_time(chunk, dma_direction::to_host);
    }
    const sim_time engine = m.qp_doorbell_busy(1);
    const sim_time pipeline = packets * m.packet_interval();
    const sim_time slowest = std::max({link, pcie_in, pcie_out, engine, pipeline});
    return static_cast<double>(bytes) * 8.0 * ps_per_second / static_cast<double>(slowest);
}

double estimate_qp_message_rate(const cost_model& m, rdma_op op, std::uint64_t batch) {
    batch = std::max<std::uint64_t>(batch, 1);
    sim_time engine = m.qp_doorbell_busy(batch) / batch;
    if (op == rdma_op::read) {
        engine += m.cycles(m.nic.read_response_cycles);
    }
    const sim_time link = m.serialization(frame_bytes(8, reth_bytes));
    const sim_time slowest = std::max({engine, link, m.packet_interval()});
    return ps_per_second / static_cast<double>(slowest);
}

double estimate_nic_message_rate(const cost_model& m, std::uint64_t qps, std::uint64_t batch) {
    const double qp_rate = estimate_qp_message_rate(m, rdma_op::write, batch);
    const double pipeline = ps_per_second / static_cast<double>(m.packet_interval());
    const double link =
        ps_per_second / static_cast<double>(m.serialization(frame_bytes(8, reth_bytes)));
    return std::min({static_cast<double>(qps) * qp_rate, pipeline, link});
}

}  // namespace ndksim::timing
