// SPDX-License-Identifier: MIT
#pragma once
// The modelled cost of each stage an operation passes (ARCHITECTURE.md "Simulated time is
// first-class"). The parameters are grouped by the component they describe (host, PCIe, NIC,
// wire, responder/ACK); they come from the adapter's NIC profile (profile.hpp, docs/profiles.md)
// and default to the cx4-edr profile. The pure functions below turn them into stage times; the
// engine adds those up per operation. docs/timing.md gives the stage sums per operation and the
// calibration against published measurements.
//
// A few first-order values (doorbell, wqe_fetch, packet_pipeline, dma_write, propagation,
// link_bits_per_second, wire_overhead_bytes, mtu, pcie_rate) are kept as plain members for the
// stages that read them directly; derive() recomputes them from the groups. Change a group, then
// call derive().

#include <array>
#include <cstddef>
#include <cstdint>

#include "timing/sim_time.hpp"

namespace ndksim::timing {

/// The host side: what the CPU and host memory contribute.
struct host_params {
    sim_time doorbell_mmio = nanoseconds(250);  ///< CPU MMIO doorbell write reaching the NIC [ps]
    sim_time memory_read = nanoseconds(20);     ///< host memory answering one DMA read [ps]
    sim_time interrupt = nanoseconds(2'000);    ///< MSI-X interrupt to a waiting thread [ps]
    std::uint32_t wqe_bytes = 64;               ///< size of a work queue entry in host memory [B]
    std::uint32_t cqe_bytes = 64;               ///< size of a completion queue entry [B]
    /// A doorbell that announces a single WQE of at most this many bytes carries the WQE into
    /// the NIC (a write-combining store to the doorbell page, mlx5 "BlueFlame"), so the NIC
    /// does not fetch it; 0 = every WQE that is not inline is fetched by DMA [B].
    std::uint32_t wqe_push_bytes = 256;
};

/// The PCIe link between host and NIC (PCIe Base Specification: TLP framing, MPS, MRRS, RCB).
struct pcie_params {
    std::uint32_t generation = 3;           ///< 1..5: sets the lane rate and line encoding
    std::uint32_t lanes = 16;               ///< link width [lanes]
    std::uint32_t tlp_overhead_bytes = 24;  ///< per TLP: framing, sequence number, header, LCRC [B]
    std::uint32_t dllp_overhead_bytes = 15;      ///< Ack/UpdateFC DLLP bytes per TLP, amortized [B]
    std::uint32_t max_payload_bytes = 256;       ///< MPS: largest posted-write payload [B]
    std::uint32_t max_read_request_bytes = 512;  ///< MRRS: largest read request [B]
    std::uint32_t read_completion_bytes = 128;   ///< RCB: completions split at this size [B]
    sim_time crossing = nanoseconds(250);        ///< one-way latency of a TLP, end to end [ps]
};

/// The NIC's processing engines.
struct nic_params {
    sim_time clock_period = picoseconds(6'400);  ///< NIC core clock period [ps] (156.25 MHz)
    std::uint32_t wqe_cycles = 21;       ///< per-QP engine: parse and issue one WQE [cycles]
    std::uint32_t doorbell_cycles = 38;  ///< per-QP engine busy after a doorbell's WQEs [cycles]
    std::uint32_t read_response_cycles = 2;  ///< per-QP engine per READ response packet [cycles]
    std::uint32_t tx_pipeline_cycles = 8;    ///< transmit pipeline latency per packet [cycles]
    std::uint32_t rx_pipeline_cycles = 9;    ///< receive pipeline latency per packet [cycles]
    /// Both ends store and forward a message in units of this many bytes, whatever the path
    /// MTU: a packet leaves once the unit it belongs to is read from host memory, and the
    /// receiver places a unit once all of its packets have arrived [B].
    std::uint32_t store_forward_bytes = 4'096;
    std::uint64_t max_packets_per_second = 150'000'000;  ///< whole-NIC pipeline rate [pkt/s]
    std::uint32_t mtt_cache_entries = 4'096;             ///< translation (MTT) cache size [pages]
    sim_time mtt_miss = nanoseconds(550);   ///< MTT miss: fetch the entry over PCIe [ps]
    std::uint32_t qpc_cache_entries = 512;  ///< QP context cache size [QPs]
    sim_time qpc_miss = nanoseconds(550);   ///< QPC miss: fetch the context over PCIe [ps]
};

/// The link between the adapters.
struct wire_params {
    std::uint64_t link_bits_per_second = 100'000'000'000;  ///< data rate after line coding [bit/s]
    std::uint32_t mtu = 4096;                ///< path MTU [bytes of payload per packet]
    std::uint32_t header_bytes = 10;         ///< per packet beyond BTH..ICRC (IB: LRH + VCRC) [B]
    sim_time propagation = nanoseconds(65);  ///< cable and both PHYs, one way [ps]
    sim_time switch_latency = 0;             ///< switches on the path, total [ps]
};

/// The responder's acknowledgements (IBA 9.7.5.1: an ACK may cover several packets).
struct ack_params {
    sim_time generation = nanoseconds(20);  ///< build an ACK after the request is placed [ps]
    sim_time coalesce_window = 0;           ///< ACKs due within this window are merged [ps]
};

/// Which way a DMA moves data over PCIe.
enum class dma_direction : std::uint8_t {
    to_host,    ///< posted memory writes (payload placement, CQEs)
    from_host,  ///< non-posted reads answered by completions (WQEs, payload to send)
};

/// Which NIC cache missed.
enum class nic_cache : std::uint8_t {
    translation,  ///< MTT: virtual page to host address
    qp_context,   ///< QPC: the QP's transport state
};

struct cost_model {
    host_params host;
    pcie_params pcie;
    nic_params nic;
    wire_params wire;
    ack_params ack;

    // First-order values derived from the groups (derive()).
    sim_time doorbell = 0;                   ///< doorbell reaching the NIC [ps]
    sim_time wqe_fetch = 0;                  ///< DMA read of a WQE plus its parsing [ps]
    sim_time packet_pipeline = 0;            ///< transmit pipeline per packet [ps]
    sim_time dma_write = 0;                  ///< placing a CQE in host memory [ps]
    sim_time propagation = 0;                ///< cable, PHYs and switches, one way [ps]
    std::uint64_t link_bits_per_second = 0;  ///< link rate [bit/s]
    std::uint32_t wire_overhead_bytes = 0;   ///< per packet beyond BTH..ICRC [B]
    std::uint32_t mtu = 0;                   ///< path MTU [bytes of payload]
    std::uint64_t pcie_rate = 0;             ///< pcie_bits_per_second(), for pcie_stream_time
    // Kept because the transmit stage needs it for every packet, where it cost an integer
    // division (perf: with the stream times, 4-6 % of a 64-byte write's host time).
    sim_time packet_gap = 0;  ///< packet_interval() [ps]
    /// log2 of the TLP unit per direction (MPS to the host, RCB from it) when it is a power of
    /// two, so pcie_tlps shifts instead of dividing; k_no_shift otherwise.
    std::uint8_t tlp_shift_to_host = 0;
    std::uint8_t tlp_shift_from_host = 0;
    static constexpr std::uint8_t k_no_shift = 0xFF;
    /// pcie_stream_time of every size below k_small_stream bytes, per direction (index: the
    /// dma_direction): the sizes of CQEs, WQEs, headers and small payloads, which every small
    /// operation moves, read from here instead of divided out each time.
    static constexpr std::size_t k_small_stream = 256;
    std::array<std::array<sim_time, k_small_stream>, 2> small_stream{};

    cost_model() noexcept { derive(); }

    /// Recomputes the first-order members from the groups.
    void derive() noexcept;

    /// Time the port is busy putting `frame_bytes` (BTH through ICRC) on the wire [ps]:
    ///   (frame_bytes + wire_overhead_bytes) * 8 / link_bits_per_second.
    constexpr sim_time serialization(std::uint64_t frame_bytes) const noexcept {
        return (frame_bytes + wire_overhead_bytes) * 8 * 1'000'000'000'000ULL /
               link_bits_per_second;
    }

    /// PCIe data rate after line coding [bit/s]: lanes * GT/s(generation) * encoding
    /// (8b/10b for generations 1-2, 128b/130b from generation 3).
    std::uint64_t pcie_bits_per_second() const noexcept;

    /// TLPs that carry `bytes` in `direction`: ceil(bytes / MPS) writes, or ceil(bytes / RCB)
    /// completions (reads are assumed RCB-aligned). At least one.
    std::uint64_t pcie_tlps(std::uint64_t bytes, dma_direction direction) const noexcept;

    /// Time the PCIe link is busy carrying `bytes` in `direction` [ps]:
    ///   (bytes + tlps * (tlp_overhead + dllp_overhead)) * 8 / pcie_bits_per_second.
    sim_time pcie_stream_time(std::uint64_t bytes, dma_direction direction) const noexcept {
        return bytes < k_small_stream ? small_stream[static_cast<std::size_t>(direction)][bytes]
                                      : stream_time_of(bytes, direction);
    }

    /// pcie_stream_time computed, for any size (derive() fills small_stream with it).
    sim_time stream_time_of(std::uint64_t bytes, dma_direction direction) const noexcept;

    /// Time from issuing a DMA of `bytes` until its last byte is in place [ps]:
    ///   to_host:   crossing + pcie_stream_time
    ///   from_host: crossing (request) + memory_read + crossing (completions) + pcie_stream_time
    sim_time pcie_dma_time(std::uint64_t bytes, dma_direction direction) const noexcept;

    /// Bytes of read requests (no payload) that travel towards the host for a read of `bytes`:
    /// ceil(bytes / MRRS) * (tlp_overhead + dllp_overhead).
    std::uint64_t pcie_read_request_bytes(std::uint64_t bytes) const noexcept;

    /// cycles * clock_period [ps].
    constexpr sim_time cycles(std::uint64_t n) const noexcept { return n * nic.clock_period; }

    /// Per-QP engine latency to parse and issue one WQE: wqe_cycles * clock_period [ps].
    constexpr sim_time wqe_time() const noexcept { return cycles(nic.wqe_cycles); }

    /// Per-QP engine occupancy of one doorbell announcing `wqes` WQEs [ps]:
    ///   (doorbell_cycles + wqes * wqe_cycles) * clock_period.
    constexpr sim_time qp_doorbell_busy(std::uint64_t wqes) const noexcept {
        return cycles(nic.doorbell_cycles + wqes * nic.wqe_cycles);
    }

    /// Latency of one packet through the transmit or receive pipeline [ps]:
    ///   tx_pipeline_cycles (or rx_pipeline_cycles) * clock_period.
    constexpr sim_time packet_latency(bool transmit) const noexcept {
        return cycles(transmit ? nic.tx_pipeline_cycles : nic.rx_pipeline_cycles);
    }

    /// Interval between two packets entering the whole-NIC pipeline [ps]:
    ///   1 / max_packets_per_second.
    constexpr sim_time packet_interval() const noexcept {
        return 1'000'000'000'000ULL / nic.max_packets_per_second;
    }

    /// Penalty of one miss in `cache` [ps] (mtt_miss or qpc_miss).
    constexpr sim_time cache_miss_penalty(nic_cache cache) const noexcept {
        return cache == nic_cache::translation ? nic.mtt_miss : nic.qpc_miss;
    }

    /// Packets of a message of `bytes`: ceil(bytes / mtu), at least one.
    constexpr std::uint64_t packets_for(std::uint64_t bytes) const noexcept {
        return bytes == 0 ? 1 : (bytes + wire.mtu - 1) / wire.mtu;
    }

    /// True when a doorbell announcing a single WQE carries it (host.wqe_push_bytes).
    constexpr bool wqe_pushed_with_doorbell() const noexcept {
        return host.wqe_push_bytes >= host.wqe_bytes;
    }
};

}  // namespace ndksim::timing
