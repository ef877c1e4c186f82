// SPDX-License-Identifier: MIT
#pragma once
// Closed-form stage sums of the cost model: the latency of one operation on an idle pair of
// adapters and the steady-state rates of a stream of them. They are what the engine's stages
// add up to when nothing queues, written out once so a profile can be checked against
// published measurements without running the engine (docs/timing.md derives each formula).

#include <cstdint>

#include "timing/cost_model.hpp"

namespace ndksim::timing {

/// The operations the estimates cover.
enum class rdma_op : std::uint8_t { send, write, read };

/// One-way latency of an RC SEND of `bytes`, from the doorbell being rung until the receive
/// completion is in the peer's host memory [ps]; `inline_data` puts the payload in the WQE,
/// which the doorbell carries (no WQE fetch, no payload read).
sim_time estimate_send_latency(const cost_model& m, std::uint64_t bytes, bool inline_data);

/// Latency of an RC operation of `bytes` until the requester's completion is in host memory
/// [ps]: a WRITE or SEND completes on the ACK, a READ on its last response.
sim_time estimate_completion_latency(const cost_model& m, rdma_op op, std::uint64_t bytes,
                                     bool inline_data);

/// Payload rate of a long stream of `bytes`-sized WRITEs (or SENDs) on one QP [bit/s]: the
/// slowest of the link, the PCIe reads at the requester, the PCIe writes at the responder, the
/// per-QP engine and the NIC pipeline.
double estimate_write_bandwidth(const cost_model& m, std::uint64_t bytes);

/// Messages per second one QP sustains for small WRITEs when each doorbell announces `batch`
/// WQEs (1 = a doorbell per post) [messages/s].
double estimate_qp_message_rate(const cost_model& m, rdma_op op, std::uint64_t batch);

/// Messages per second of single-packet messages over `qps` QPs (each doorbell announcing
/// `batch` WQEs), capped by the NIC pipeline and the link [messages/s].
double estimate_nic_message_rate(const cost_model& m, std::uint64_t qps, std::uint64_t batch);

/// Bytes on the wire of one packet carrying `payload` bytes with `extra_headers` (RETH 16,
/// AETH 4, ...) after BTH: BTH + extra + payload + ICRC, padded to 4 bytes [B].
std::uint64_t frame_bytes(std::uint64_t payload, std::uint64_t extra_headers);

}  // namespace ndksim::timing
