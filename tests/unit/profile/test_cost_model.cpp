// SPDX-License-Identifier: MIT
// The cost model's formulas on hand-computed cases, and the cx4-edr parameters against the
// published measurements they were calibrated to (published-numbers.md, docs/timing.md).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>

#include "timing/cost_model.hpp"
#include "timing/cost_model_estimates.hpp"

namespace ndksim::timing {
namespace {

TEST(CostModel, OnePacketSerializesFrameAndHeaderAtTheLinkRate) {
    const cost_model m;
    // A full 4 KiB packet: BTH 12 + 4096 + ICRC 4 = 4112 B, plus LRH 8 + VCRC 2 = 4122 B at
    // 100 Gb/s = 329.76 ns.
    EXPECT_EQ(frame_bytes(4096, 0), 4112U);
    EXPECT_EQ(m.serialization(4112), picoseconds(329'760));
}

TEST(CostModel, MtuBoundarySplitsPackets) {
    const cost_model m;
    EXPECT_EQ(m.packets_for(0), 1U);
    EXPECT_EQ(m.packets_for(1), 1U);
    EXPECT_EQ(m.packets_for(4096), 1U);
    EXPECT_EQ(m.packets_for(4097), 2U);
    EXPECT_EQ(m.packets_for(8192), 2U);
}

TEST(CostModel, PcieRateFollowsGenerationAndLanes) {
    cost_model m;
    EXPECT_EQ(m.pcie_bits_per_second(), 126'030'769'230U);  // 8 GT/s x16, 128b/130b
    m.pcie.generation = 2;
    m.pcie.lanes = 8;
    EXPECT_EQ(m.pcie_bits_per_second(), 32'000'000'000U);  // 5 GT/s x8, 8b/10b
}

TEST(CostModel, PcieWriteIsSegmentedAtMaxPayloadWithTlpOverhead) {
    const cost_model m;
    // 1000 B in 4 TLPs of at most 256 B, each with 24 + 15 B of overhead: 1156 B at
    // 126.03 Gb/s = 73.379 ns, plus one crossing for the posted writes to land.
    EXPECT_EQ(m.pcie_tlps(1000, dma_direction::to_host), 4U);
    EXPECT_EQ(m.pcie_stream_time(1000, dma_direction::to_host), picoseconds(73'379));
    EXPECT_EQ(m.pcie_dma_time(1000, dma_direction::to_host),
              nanoseconds(250) + picoseconds(73'379));
}

TEST(CostModel, PcieReadPaysARoundTripAndCompletionsOf128Bytes) {
    const cost_model m;
    // 1000 B come back in 8 completions: 1312 B = 83.281 ns, after the request crossing,
    // the memory read and the completion crossing (250 + 20 + 250 ns).
    EXPECT_EQ(m.pcie_tlps(1000, dma_direction::from_host), 8U);
    EXPECT_EQ(m.pcie_dma_time(1000, dma_direction::from_host),
              nanoseconds(520) + picoseconds(83'281));
    EXPECT_EQ(m.pcie_read_request_bytes(1000), 2U * 39U);  // two 512 B requests
}

TEST(CostModel, CacheMissesCostTheirProfileValues) {
    cost_model m;
    EXPECT_EQ(m.cache_miss_penalty(nic_cache::translation), nanoseconds(550));
    m.nic.qpc_miss = nanoseconds(900);
    EXPECT_EQ(m.cache_miss_penalty(nic_cache::qp_context), nanoseconds(900));
}

TEST(CostModel, CyclesAndRatesFollowTheClock) {
    const cost_model m;
    EXPECT_EQ(m.wqe_time(), picoseconds(21 * 6'400));
    EXPECT_EQ(m.qp_doorbell_busy(1), picoseconds(59 * 6'400));
    EXPECT_EQ(m.packet_latency(true), picoseconds(8 * 6'400));
    EXPECT_EQ(m.packet_latency(false), picoseconds(9 * 6'400));
    EXPECT_EQ(m.packet_interval(), picoseconds(6'666));  // 150 M packets/s
}

TEST(CostModel, ADoorbellCarriesAWqeUpToThePushSize) {
    cost_model m;
    EXPECT_TRUE(m.wqe_pushed_with_doorbell());  // 64 B WQE, 256 B doorbell page
    m.host.wqe_push_bytes = 0;
    EXPECT_FALSE(m.wqe_pushed_with_doorbell());
}

TEST(CostModel, DerivedFirstOrderValuesFollowTheGroups) {
    cost_model m;
    m.wire.mtu = 1024;
    m.wire.propagation = nanoseconds(100);
    m.wire.switch_latency = nanoseconds(300);
    m.derive();
    EXPECT_EQ(m.mtu, 1024U);
    EXPECT_EQ(m.propagation, nanoseconds(400));
    EXPECT_EQ(m.doorbell, m.host.doorbell_mmio);
    EXPECT_EQ(m.wqe_fetch, m.pcie_dma_time(64, dma_direction::from_host) + m.wqe_time());
    EXPECT_EQ(m.dma_write, m.pcie_dma_time(64, dma_direction::to_host));
}

TEST(CostModel, PerPacketValuesKeptByDeriveEqualTheirFormulas) {
    cost_model m;
    const auto tlps = [](std::uint64_t bytes, std::uint64_t unit) {
        return bytes <= unit ? std::uint64_t{1} : (bytes + unit - 1) / unit;
    };
    // TLP units that are powers of two (shifted) and others (divided), each after derive().
    for (const auto& [mps, rcb] :
         {std::pair<std::uint32_t, std::uint32_t>{256, 64}, {128, 128}, {200, 100}, {4096, 1}}) {
        m.pcie.max_payload_bytes = mps;
        m.pcie.read_completion_bytes = rcb;
        m.nic.max_packets_per_second = 150'000'000 + mps;
        m.derive();
        for (std::uint64_t bytes :
             {0U, 1U, 63U, 64U, 65U, 100U, 255U, 256U, 257U, 4096U, 4097U, 1'048'576U}) {
            EXPECT_EQ(tlps(bytes, mps), m.pcie_tlps(bytes, dma_direction::to_host))
                << bytes << " B, MPS " << mps;
            EXPECT_EQ(tlps(bytes, rcb), m.pcie_tlps(bytes, dma_direction::from_host))
                << bytes << " B, RCB " << rcb;
        }
        // The small sizes come from the table derive() filled: equal to the computed time on
        // both sides of its end.
        for (const dma_direction d : {dma_direction::to_host, dma_direction::from_host}) {
            for (std::uint64_t bytes = 0; bytes <= cost_model::k_small_stream + 1; ++bytes) {
                ASSERT_EQ(m.stream_time_of(bytes, d), m.pcie_stream_time(bytes, d)) << bytes;
            }
        }
        EXPECT_EQ(m.packet_interval(), m.packet_gap);
    }
}

TEST(CostModel, SaturatedLinkCarriesItsRateMinusHeaders) {
    cost_model m;
    // PCIe and the NIC made fast enough that the link is the slowest stage.
    m.pcie.generation = 5;
    m.pcie.lanes = 32;
    m.nic.doorbell_cycles = 0;
    m.nic.wqe_cycles = 1;
    m.derive();
    // 64 KiB = 16 packets of 4122 B on the wire, the first with a 16 B RETH.
    const double expected = 100e9 * 65536.0 / (16.0 * 4122.0 + 16.0);
    EXPECT_NEAR(estimate_write_bandwidth(m, 65536), expected, expected * 1e-9);
}

// The calibration: the default parameters (= profiles/cx4-edr.toml) reproduce the published
// ConnectX-4 EDR figures through the stage sums, within the tolerances of the calibration
// report (bench/calibration/points.md: 3 % for the original points, 5 % for later ones).
TEST(CostModelCalibration, Cx4EdrLatencyMatchesPublishedRanges) {
    const cost_model m;
    const auto near = [](sim_time t, double published_us, double tolerance) {
        const double us = static_cast<double>(t) / 1e6;
        return std::fabs(us - published_us) <= published_us * tolerance;
    };
    EXPECT_TRUE(near(estimate_send_latency(m, 32, true), 0.82, 0.03));
    EXPECT_TRUE(near(estimate_send_latency(m, 4096, false), 2.265, 0.03));
    // Between the inline limit and 4 KiB: 1 KiB not inline, and the held-out 32 KiB.
    EXPECT_TRUE(near(estimate_send_latency(m, 1024, false), 1.61, 0.05));
    EXPECT_TRUE(near(estimate_send_latency(m, 32768, false), 4.57, 0.05));
    // 4-32 KiB slope: about 12.4 GB/s of payload (within 5%).
    const double slope_bytes_per_ns = (32768.0 - 4096.0) * 1000.0 /
                                      static_cast<double>(estimate_send_latency(m, 32768, false) -
                                                          estimate_send_latency(m, 4096, false));
    EXPECT_NEAR(slope_bytes_per_ns, 12.4, 12.4 * 0.05);
}

// Published ConnectX-4 EDR latencies hardly depend on the path MTU (a 4 KiB SEND: 2.26 us at
// 256 B, 2.28 us at 4096 B): the model stores and forwards 4 KiB units of a message, not
// packets, so smaller MTUs only add headers.
TEST(CostModelCalibration, SmallerMtusAddOnlyHeaders) {
    const cost_model m;
    cost_model small = m;
    small.wire.mtu = 256;
    small.derive();
    const sim_time at_4096 = estimate_send_latency(m, 4096, false);
    const sim_time at_256 = estimate_send_latency(small, 4096, false);
    EXPECT_GT(at_256, at_4096);
    EXPECT_LT(at_256 - at_4096, nanoseconds(50)) << "15 more packets of 26 B of headers";
}

TEST(CostModelCalibration, Cx4EdrRatesMatchPublishedFigures) {
    const cost_model m;
    EXPECT_NEAR(estimate_write_bandwidth(m, 65536), 96.6e9, 96.6e9 * 0.01);
    EXPECT_NEAR(estimate_qp_message_rate(m, rdma_op::write, 1), 2.64e6, 2.64e6 * 0.02);
    EXPECT_NEAR(estimate_qp_message_rate(m, rdma_op::read, 1), 2.55e6, 2.55e6 * 0.02);
    EXPECT_NEAR(estimate_qp_message_rate(m, rdma_op::write, 128), 7.5e6, 7.5e6 * 0.05);
    EXPECT_NEAR(estimate_nic_message_rate(m, 64, 1), 150e6, 150e6 * 0.01);
}

TEST(CostModelCalibration, LatencyGrowsWithSizeAndOperation) {
    const cost_model m;
    sim_time previous = 0;
    for (std::uint64_t n = 1; n <= 65536; n *= 4) {
        const sim_time t = estimate_send_latency(m, n, false);
        EXPECT_GT(t, previous) << n;
        previous = t;
    }
    // A WRITE completes on the ACK's return, a READ on its response: both after a one-way
    // SEND of the same size.
    EXPECT_GT(estimate_completion_latency(m, rdma_op::write, 32, true),
              estimate_send_latency(m, 32, true));
    EXPECT_GT(estimate_completion_latency(m, rdma_op::read, 32, false),
              estimate_send_latency(m, 32, false));
}

}  // namespace
}  // namespace ndksim::timing
