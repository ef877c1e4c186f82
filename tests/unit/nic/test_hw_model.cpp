// SPDX-License-Identifier: MIT
// The hardware model alone, on the cx4-edr costs (docs/timing.md): frame lengths as the codec
// encodes them, the port and the pipeline queueing frames, the WQE engine, the receive side's
// arrival order, the QP context cache, and the zero-cost model the stage tests run on.

#include <gtest/gtest.h>

#include <vector>

#include "core/device.hpp"
#include "nic/hw_model.hpp"
#include "timing/cost_model.hpp"
#include "wire/codec.hpp"

namespace ndksim::nic::test {
namespace {

using timing::sim_time;

class HwModel : public ::testing::Test {
  protected:
    timing::cost_model costs_;
    hw_model hw_{costs_, 2, core::device::k_max_qps};
};

TEST_F(HwModel, FrameLengthsAreWhatTheCodecEncodes) {
    std::vector<std::byte> buffer(wire::k_max_frame_bytes);
    const auto encoded = [&](wire::opcode op, std::size_t payload) {
        wire::packet_headers h;
        h.bth.op = op;
        return wire::encode_headers(h, payload, buffer).frame_size;
    };
    for (const std::size_t payload : {0U, 1U, 5U, 32U, 4095U, 4096U}) {
        EXPECT_EQ(hw_model::frame_length(payload, 0), encoded(wire::opcode::rc_send_only, payload));
        EXPECT_EQ(hw_model::frame_length(payload, wire::reth_size),
                  encoded(wire::opcode::rc_write_only, payload));
        EXPECT_EQ(hw_model::frame_length(payload, wire::aeth_size),
                  encoded(wire::opcode::rc_read_response_only, payload));
    }
    EXPECT_EQ(hw_model::frame_length(4096, 0), 4112U);
}

TEST_F(HwModel, BackToBackFramesQueueOnThePort) {
    const sim_time one = costs_.serialization(4112);
    EXPECT_EQ(hw_.tx_packet(4112, 0, 0, 0), one);
    EXPECT_EQ(hw_.tx_packet(4112, 0, 0, 0), 2 * one) << "the second waits for the first";
    EXPECT_EQ(hw_.port_free_at(), 2 * one);
    // A frame ready after the port is free leaves when it is ready.
    EXPECT_EQ(hw_.tx_packet(4112, 10 * one, 0, 0), 11 * one);
}

TEST_F(HwModel, SmallFramesAreAdmittedOnePerPipelineInterval) {
    // 8 B WRITEs serialize in 4 ns, faster than the 6.67 ns pipeline interval of 150 Mpps.
    const std::uint64_t frame = hw_model::frame_length(8, wire::reth_size);
    ASSERT_LT(costs_.serialization(frame), costs_.packet_interval());
    hw_.tx_packet(frame, 0, 0, 0);
    EXPECT_EQ(hw_.tx_packet(frame, 0, 0, 0),
              costs_.packet_interval() + costs_.serialization(frame));
}

TEST_F(HwModel, TranslationMissesHoldTheFrameForTheirFetch) {
    const sim_time penalty = costs_.cache_miss_penalty(timing::nic_cache::translation);
    EXPECT_EQ(hw_.tx_packet(64, 0, 0, 1), penalty + costs_.serialization(64))
        << "a lone miss waits the whole round trip";
    const sim_time later = 10 * penalty;
    EXPECT_EQ(hw_.tx_packet(64, later, later, 1), later + costs_.serialization(64))
        << "misses already charged are not charged again";
}

TEST_F(HwModel, AnInlineWqeIsIssuedAfterTheContextAndTheEngine) {
    hw_model::qp_state qp;
    hw_model::wqe_run run = hw_.begin_wqe_run(0, false, 1, 1);
    const sim_time miss = costs_.cache_miss_penalty(timing::nic_cache::qp_context);
    EXPECT_EQ(hw_.issue_wqe(run, qp, 7, true), miss + costs_.wqe_time())
        << "the first access to QP 7's context misses";
    // The doorbell keeps the engine busy after the WQE (the per-QP message rate).
    EXPECT_EQ(qp.wqe_engine_free_at, miss + costs_.qp_doorbell_busy(1));
    hw_.end_wqe_run(run, qp);
    EXPECT_TRUE(hw_.wqe_engine_busy(qp, hw_.begin_wqe_run(miss, false, 0, 0)));
}

TEST_F(HwModel, ANonInlineWqeIsFetchedOnceForTheRun) {
    hw_.load_qp_context(7, 0);  // a hit from now on
    hw_model::qp_state qp;
    // Two WQEs wait and no doorbell of their own came with them: the NIC fetches both.
    hw_model::wqe_run run = hw_.begin_wqe_run(0, false, 0, 2);
    const sim_time fetched =
        costs_.pcie_dma_time(costs_.host.wqe_bytes, timing::dma_direction::from_host);
    EXPECT_EQ(hw_.issue_wqe(run, qp, 7, false), fetched + costs_.wqe_time());
    EXPECT_EQ(hw_.issue_wqe(run, qp, 7, false), fetched + 2 * costs_.wqe_time())
        << "one DMA read fetched every WQE the doorbell announced";
}

TEST_F(HwModel, ADoorbellPerWqeCarriesTheWqe) {
    hw_.load_qp_context(7, 0);
    hw_model::qp_state qp;
    hw_model::wqe_run run = hw_.begin_wqe_run(0, false, 2, 2);
    EXPECT_EQ(hw_.issue_wqe(run, qp, 7, false), costs_.wqe_time()) << "nothing to fetch";
    costs_.host.wqe_push_bytes = 0;  // a NIC that always fetches
    hw_model::wqe_run fetched = hw_.begin_wqe_run(0, false, 2, 2);
    hw_model::qp_state other;
    EXPECT_EQ(hw_.issue_wqe(fetched, other, 7, false),
              costs_.pcie_dma_time(costs_.host.wqe_bytes, timing::dma_direction::from_host) +
                  costs_.wqe_time());
}

TEST_F(HwModel, APacketLeavesOnceItsWholePayloadIsRead) {
    // Store and forward: the 4 KiB payload's read round trip and stream, then the transmit
    // pipeline.
    const sim_time read = costs_.pcie_dma_time(4096, timing::dma_direction::from_host);
    EXPECT_EQ(hw_.request_ready(0, 0, 4096, 4096, false), read + costs_.packet_latency(true));
    EXPECT_EQ(hw_.request_ready(0, 0, 32, 32, true), costs_.packet_latency(true)) << "inline";
}

TEST_F(HwModel, PacketsOfOneUnitLeaveOnceTheWholeUnitIsRead) {
    // A 4 KiB message in 1 KiB packets: one store-and-forward unit, read at the first packet.
    const sim_time read = costs_.pcie_dma_time(4096, timing::dma_direction::from_host);
    for (std::uint64_t offset = 0; offset < 4096; offset += 1024) {
        EXPECT_EQ(hw_.request_ready(10, offset, 1024, 4096, false),
                  10 + read + costs_.packet_latency(true))
            << offset;
    }
}

TEST_F(HwModel, AUnitIsPlacedWhenItsLastPacketArrives) {
    wire::frame middle{};       // zeroed: the BTH names QP 0
    middle.length = 1024 + 16;  // BTH + 1 KiB + ICRC
    middle.data[0] = static_cast<std::byte>(wire::opcode::rc_write_middle);
    hw_.load_qp_context(0, 0);  // QP 0's context is in the NIC from now on
    const sim_time held = hw_.rx_packet(middle, 1'000'000);
    EXPECT_EQ(held, 1'000'000U + costs_.packet_latency(false)) << "nothing placed yet";
    hw_.rx_packet(middle, 1'100'000);
    hw_.rx_packet(middle, 1'200'000);
    EXPECT_EQ(hw_.rx_packet(middle, 1'300'000),
              1'300'000U + costs_.packet_latency(false) +
                  costs_.pcie_stream_time(4096, timing::dma_direction::to_host) +
                  costs_.pcie.crossing)
        << "the fourth KiB completes the unit: all of it is written";
}

TEST_F(HwModel, AFrameNotFromThePeerNeitherJoinsNorCompletesAUnit) {
    wire::frame middle{};       // zeroed: the BTH names QP 0
    middle.length = 1024 + 16;  // BTH + 1 KiB + ICRC
    middle.data[0] = static_cast<std::byte>(wire::opcode::rc_write_middle);
    hw_.load_qp_context(0, 0);
    hw_.rx_packet(middle, 1'000'000);
    hw_.rx_packet(middle, 1'100'000);
    hw_.rx_packet(middle, 1'200'000);
    // A forged fourth KiB is placed on its own; the unit still waits for the peer's.
    const sim_time forged = hw_.rx_packet(middle, 1'300'000, false);
    EXPECT_EQ(forged, 1'300'000U + costs_.packet_latency(false) +
                          costs_.pcie_stream_time(1024, timing::dma_direction::to_host) +
                          costs_.pcie.crossing);
    const sim_time last = hw_.rx_packet(middle, 2'000'000);
    EXPECT_EQ(last, 2'000'000U + costs_.packet_latency(false) +
                        costs_.pcie_stream_time(4096, timing::dma_direction::to_host) +
                        costs_.pcie.crossing)
        << "the peer's fourth KiB completes the unit";
}

TEST_F(HwModel, AFrameNotFromThePeerLoadsNoQpContext) {
    wire::frame ack{};  // zeroed: the BTH names QP 0
    ack.length = 16;
    ack.data[0] = static_cast<std::byte>(wire::opcode::rc_ack);
    const auto misses = hw_.qp_contexts().misses();
    hw_.rx_packet(ack, 1'000'000, false);
    EXPECT_EQ(hw_.qp_contexts().misses(), misses) << "no fetch, no eviction";
    hw_.rx_packet(ack, 2'000'000);
    EXPECT_EQ(hw_.qp_contexts().misses(), misses + 1) << "the peer's frame fetches it";
}

TEST_F(HwModel, TheQpContextCacheChargesMissesOnly) {
    const sim_time miss = costs_.cache_miss_penalty(timing::nic_cache::qp_context);
    EXPECT_EQ(hw_.load_qp_context(1, 0), miss);
    EXPECT_EQ(hw_.load_qp_context(1, 5 * miss), 5 * miss);
    EXPECT_EQ(hw_.load_qp_context(2, 5 * miss), 6 * miss);
    EXPECT_EQ(hw_.load_qp_context(3, 10 * miss), 11 * miss) << "two entries: 3 evicts 1";
    EXPECT_EQ(hw_.load_qp_context(1, 20 * miss), 21 * miss);
    EXPECT_EQ(hw_.qp_contexts().hits(), 1U);
    EXPECT_EQ(hw_.qp_contexts().misses(), 4U);
}

TEST_F(HwModel, FramesAreDispatchedInArrivalOrder) {
    wire::frame big{};
    big.length = 4112;
    big.data[0] = static_cast<std::byte>(wire::opcode::rc_write_middle);
    wire::frame small{};
    small.length = 16;
    small.data[0] = static_cast<std::byte>(wire::opcode::rc_ack);
    const sim_time first = hw_.rx_packet(big, 1'000'000);
    // QP 0's context is fetched, the whole frame passes the receive pipeline, then its payload
    // is written and lands one crossing later.
    EXPECT_EQ(first, 1'000'000U + costs_.cache_miss_penalty(timing::nic_cache::qp_context) +
                         costs_.packet_latency(false) +
                         costs_.pcie_stream_time(4096, timing::dma_direction::to_host) +
                         costs_.pcie.crossing);
    EXPECT_GE(hw_.rx_packet(small, 1'000'001), first) << "never before a frame received earlier";
}

TEST(HwModelZeroCost, EveryAnswerIsNow) {
    const timing::cost_model costs;
    hw_model hw(costs, 2, core::device::k_max_qps, true);
    hw_model::qp_state qp;
    hw_model::wqe_run run = hw.begin_wqe_run(100, false, 3, 3);
    EXPECT_EQ(hw.issue_wqe(run, qp, 1, false), 100U);
    hw.end_wqe_run(run, qp);
    EXPECT_FALSE(hw.wqe_engine_busy(qp, run));
    EXPECT_EQ(hw.doorbell_latency(), 0U);
    EXPECT_EQ(hw.request_ready(100, 0, 4096, 4096, false), 100U);
    EXPECT_EQ(hw.read_response_ready(100, 0, 4096, 4096), 100U);
    EXPECT_EQ(hw.control_ready(100), 100U);
    EXPECT_EQ(hw.ack_coalesce_delay(), 0U);
    EXPECT_EQ(hw.ack_ready(100), 100U);
    EXPECT_EQ(hw.immediate_ack_ready(100), 100U);
    EXPECT_EQ(hw.tx_packet(4112, 100, 100, 5), 100U);
    EXPECT_EQ(hw.tx_packet(4112, 100, 100, 9), 100U) << "nothing queues";
    EXPECT_EQ(hw.load_qp_context(1, 100), 100U);
}

}  // namespace
}  // namespace ndksim::nic::test
