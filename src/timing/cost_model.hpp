#pragma once
// The modelled cost of each stage an operation passes (ARCHITECTURE.md "Simulated time is
// first-class"). Every stage of the engine charges its time from here; the values come from
// the adapter's NIC profile. Units are in each field's comment.

#include <cstdint>

#include "timing/sim_time.hpp"

namespace ndksim::timing {

struct cost_model {
    sim_time doorbell = nanoseconds(250);       ///< MMIO doorbell write reaching the NIC [ps]
    sim_time wqe_fetch = nanoseconds(400);      ///< DMA read of a WQE by the NIC [ps]
    sim_time packet_pipeline = nanoseconds(30); ///< NIC pipeline per packet, each side [ps]
    sim_time dma_write = nanoseconds(250);      ///< placing data / a CQE in host memory [ps]
    sim_time propagation = nanoseconds(150);    ///< cable + PHY, one way [ps]
    std::uint64_t link_bits_per_second = 100'000'000'000;  ///< link rate [bit/s]
    std::uint32_t wire_overhead_bytes = 8 + 14 + 20 + 8 + 4 + 12;  ///< preamble, Ethernet, IPv4,
                                                                   ///< UDP, FCS, inter-frame gap
    std::uint32_t mtu = 4096;                   ///< RoCE path MTU [bytes of payload]

    /// Time the port is busy putting `frame_bytes` (BTH through ICRC) on the wire [ps].
    constexpr sim_time serialization(std::uint64_t frame_bytes) const noexcept {
        return (frame_bytes + wire_overhead_bytes) * 8 * 1'000'000'000'000ULL /
               link_bits_per_second;
    }
};

}  // namespace ndksim::timing
