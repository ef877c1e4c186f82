// SPDX-License-Identifier: MIT
#include "timing/cost_model.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "timing/round_half_away.hpp"

namespace ndksim::timing {
namespace {

// Lane rate and line encoding per PCIe generation (PCIe Base Specification 1.0-5.0): 2.5 and
// 5 GT/s use 8b/10b, 8, 16 and 32 GT/s use 128b/130b. Index = generation - 1.
struct pcie_generation {
    std::uint64_t transfers_per_second;  // per lane [T/s]
    std::uint64_t payload_bits;          // encoding: payload bits ...
    std::uint64_t line_bits;             // ... per line bits
};
constexpr std::array<pcie_generation, 5> pcie_generations{{
    {2'500'000'000, 8, 10},
    {5'000'000'000, 8, 10},
    {8'000'000'000, 128, 130},
    {16'000'000'000, 128, 130},
    {32'000'000'000, 128, 130},
}};

constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}

// bytes * 8 / rate in picoseconds, rounded to the nearest picosecond. A double keeps the
// product in range for any size a message can have, and is deterministic.
sim_time bytes_at(std::uint64_t bytes, std::uint64_t bits_per_second) {
    return static_cast<sim_time>(round_half_away(static_cast<double>(bytes) * 8.0e12 /
                                                 static_cast<double>(bits_per_second)));
}

}  // namespace

void cost_model::derive() noexcept {
    // First: pcie_stream_time, which the values below use, reads it. Kept as a member because
    // its integer division ran two to three times per packet.
    pcie_rate = pcie_bits_per_second();
    const auto shift_of = [](std::uint64_t unit) {
        return unit != 0 && std::has_single_bit(unit)
                   ? static_cast<std::uint8_t>(std::countr_zero(unit))
                   : k_no_shift;
    };
    tlp_shift_to_host = shift_of(pcie.max_payload_bytes);
    tlp_shift_from_host = shift_of(pcie.read_completion_bytes);
    for (const dma_direction d : {dma_direction::to_host, dma_direction::from_host}) {
        for (std::size_t bytes = 0; bytes < k_small_stream; ++bytes) {
            small_stream[static_cast<std::size_t>(d)][bytes] = stream_time_of(bytes, d);
        }
    }
    packet_gap = packet_interval();
    doorbell = host.doorbell_mmio;
    wqe_fetch = pcie_dma_time(host.wqe_bytes, dma_direction::from_host) + wqe_time();
    packet_pipeline = packet_latency(true);
    dma_write = pcie_dma_time(host.cqe_bytes, dma_direction::to_host);
    propagation = wire.propagation + wire.switch_latency;
    link_bits_per_second = wire.link_bits_per_second;
    wire_overhead_bytes = wire.header_bytes;
    mtu = wire.mtu;
}

std::uint64_t cost_model::pcie_bits_per_second() const noexcept {
    const std::size_t i = std::clamp<std::size_t>(pcie.generation, 1, pcie_generations.size()) - 1;
    const pcie_generation& g = pcie_generations[i];
    return g.transfers_per_second * pcie.lanes * g.payload_bits / g.line_bits;
}

std::uint64_t cost_model::pcie_tlps(std::uint64_t bytes, dma_direction direction) const noexcept {
    const bool to_host = direction == dma_direction::to_host;
    const std::uint8_t shift = to_host ? tlp_shift_to_host : tlp_shift_from_host;
    if (shift != k_no_shift) {
        const std::uint64_t mask = (std::uint64_t{1} << shift) - 1;
        return std::max<std::uint64_t>(1, (bytes >> shift) + ((bytes & mask) != 0 ? 1 : 0));
    }
    const std::uint64_t unit = to_host ? pcie.max_payload_bytes : pcie.read_completion_bytes;
    return std::max<std::uint64_t>(1, ceil_div(bytes, unit));
}

sim_time cost_model::stream_time_of(std::uint64_t bytes, dma_direction direction) const noexcept {
    const std::uint64_t overhead = pcie.tlp_overhead_bytes + pcie.dllp_overhead_bytes;
    return bytes_at(bytes + pcie_tlps(bytes, direction) * overhead, pcie_rate);
}

sim_time cost_model::pcie_dma_time(std::uint64_t bytes, dma_direction direction) const noexcept {
    const sim_time stream = pcie_stream_time(bytes, direction);
    if (direction == dma_direction::to_host) {
        return pcie.crossing + stream;
    }
    return 2 * pcie.crossing + host.memory_read + stream;
}

std::uint64_t cost_model::pcie_read_request_bytes(std::uint64_t bytes) const noexcept {
    return std::max<std::uint64_t>(1, ceil_div(bytes, pcie.max_read_request_bytes)) *
           (pcie.tlp_overhead_bytes + pcie.dllp_overhead_bytes);
}

}  // namespace ndksim::timing
