// SPDX-License-Identifier: MIT
// The requester alone (a zero-cost hardware model, a capturing link, the transport timer off):
// segmentation by the MTU, PSN assignment, the AckReq rule, the READ_FENCE and outbound read
// limit (ORD) rules, doorbells and DEFER, a refused local SGE, and frames built as they depart
// on a link that shares the sender's timeline.

#include <algorithm>
#include <cstring>

#include "stage_harness.hpp"

namespace ndksim::nic::test {
namespace {

using core::wr_kind;
using wire::opcode;

class Requester : public stage_harness {
  protected:
    // A READ response for `psn` carrying `payload` bytes.
    void read_response(opcode op, std::uint32_t psn, std::size_t payload) {
        wire::packet_headers h;
        h.bth.op = op;
        h.bth.psn = psn;
        const std::vector<std::byte> data(payload, std::byte{0x3C});
        response(h, data);
    }

    // Starts with the transport timer off and a link that shares the timeline, lends its
    // frames and holds them in flight (stage_harness.hpp, capturing_link).
    void start_lending() {
        start(timer_off());
        link_shared_ = true;
        link_lends_ = true;
    }
};

TEST_F(Requester, ASendIsSegmentedByTheMtuWithConsecutivePsns) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::send, 1, 0, 3 * mtu + 100), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 4U);
    const opcode ops[] = {opcode::rc_send_first, opcode::rc_send_middle, opcode::rc_send_middle,
                          opcode::rc_send_last};
    for (std::uint32_t i = 0; i < 4; ++i) {
        const wire::decoded_packet& p = sent[i].packet;
        EXPECT_EQ(p.headers.bth.op, ops[i]);
        EXPECT_EQ(p.headers.bth.psn, i);
        EXPECT_EQ(p.headers.bth.dest_qp, k_peer_qpn);
        EXPECT_EQ(p.payload.size(), i < 3 ? mtu : 100U);
        EXPECT_EQ(p.headers.bth.ack_req, i == 3) << "only the last packet of a short message";
    }
    EXPECT_EQ(ctx().req.next_psn, 4U);
}

TEST_F(Requester, ALongMessageAsksForAnAckEverySixteenPackets) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 32 * mtu), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 32U);
    for (std::uint32_t i = 0; i < 32; ++i) {
        EXPECT_EQ(sent[i].packet.headers.bth.ack_req, i == 15 || i == 31) << "packet " << i;
    }
}

TEST_F(Requester, AWriteCarriesItsRethOnTheFirstPacketOnly) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, mtu + 8), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 2U);
    EXPECT_EQ(sent[0].packet.headers.bth.op, opcode::rc_write_first);
    EXPECT_TRUE(sent[0].packet.info->has(wire::ext::reth));
    EXPECT_EQ(sent[0].packet.headers.reth.dma_length, mtu + 8);
    EXPECT_EQ(sent[0].packet.headers.reth.va, 0x10000U);
    EXPECT_EQ(sent[0].packet.headers.reth.rkey, 0x1234U);
    EXPECT_EQ(sent[1].packet.headers.bth.op, opcode::rc_write_last);
    EXPECT_FALSE(sent[1].packet.info->has(wire::ext::reth));
}

TEST_F(Requester, AReadIsOneRequestThatTakesAPsnPerExpectedResponse) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::read, 1, 0, 2 * mtu + 1), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 2U);
    EXPECT_EQ(sent[0].packet.headers.bth.op, opcode::rc_read_request);
    EXPECT_EQ(sent[0].packet.headers.bth.psn, 0U);
    EXPECT_EQ(sent[0].packet.headers.reth.dma_length, 2 * mtu + 1);
    EXPECT_EQ(sent[1].packet.headers.bth.psn, 3U) << "the read's three responses use PSNs 0-2";
}

TEST_F(Requester, AFencedRequestWaitsUntilEarlierReadsHaveTheirResponses) {
    start(timer_off());
    ASSERT_EQ(post(wr_kind::read, 1, 0, 64), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8, core::op_flag::read_fence), status::success);
    run();
    // REFERENCE.md 2.3: READ_FENCE waits for earlier reads.
    EXPECT_EQ(one_sent().bth.op, opcode::rc_read_request);
    read_response(opcode::rc_read_response_only, 0, 64);
    run();
    const wire::packet_headers fenced = one_sent();
    EXPECT_EQ(fenced.bth.op, opcode::rc_send_only);
    EXPECT_EQ(fenced.bth.psn, 1U);
}

TEST_F(Requester, AnUnfencedRequestPassesAnOutstandingRead) {
    start(timer_off());
    ASSERT_EQ(post(wr_kind::read, 1, 0, 64), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    run();
    EXPECT_EQ(take_sent().size(), 2U);
}

TEST_F(Requester, TheOutboundReadLimitHoldsLaterReadsBack) {
    start(timer_off(), 4, 1);
    ASSERT_EQ(post(wr_kind::read, 1, 0, 64), status::success);
    ASSERT_EQ(post(wr_kind::read, 2, 64, 64), status::success);
    run();
    EXPECT_EQ(one_sent().bth.op, opcode::rc_read_request) << "ORD 1: one read outstanding";
    EXPECT_EQ(ctx().req.reads_outstanding, 1U);
    read_response(opcode::rc_read_response_only, 0, 64);
    run();
    const wire::packet_headers second = one_sent();
    EXPECT_EQ(second.bth.op, opcode::rc_read_request);
    EXPECT_EQ(second.bth.psn, 1U);
}

TEST_F(Requester, AnInlineSendCarriesTheBytesPostedAndAZeroLengthSendIsOnePacket) {
    start(timer_off());
    std::memcpy(buffer_.data(), "inline!!", 8);
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8, core::op_flag::inline_data), status::success);
    std::memcpy(buffer_.data(), "changed!", 8);  // the bytes were copied at post time
    ASSERT_EQ(post(wr_kind::send, 2, 0, 0), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 2U);
    ASSERT_EQ(sent[0].packet.payload.size(), 8U);
    EXPECT_EQ(std::memcmp(sent[0].packet.payload.data(), "inline!!", 8), 0);
    EXPECT_EQ(sent[1].packet.headers.bth.op, opcode::rc_send_only);
    EXPECT_EQ(sent[1].packet.payload.size(), 0U);
}

TEST_F(Requester, DeferredRequestsWaitForTheNextDoorbell) {
    start(timer_off());
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8, core::op_flag::defer), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8, core::op_flag::defer), status::success);
    run();
    EXPECT_TRUE(take_sent().empty()) << "REFERENCE.md rule 9: DEFER rings no doorbell";
    ASSERT_EQ(post(wr_kind::send, 3, 0, 8), status::success);
    run();
    EXPECT_EQ(take_sent().size(), 3U);
}

// The UDP wire's host window (engine_config::host_window_packets): no more request packets
// sent and unacknowledged than the window, the rest sent as ACKs move it, nothing counted as
// resent, and the request completes as without it.
TEST_F(Requester, TheHostWindowHoldsPacketsBeyondItUntilAcksMoveIt) {
    engine_config c = timer_off();
    c.host_window_packets = 4;
    start(c);
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::send, 1, 0, 10 * mtu), status::success);
    run();
    auto psns = [&] {
        std::vector<std::uint32_t> out;
        for (const sent_frame& f : take_sent()) {
            out.push_back(f.packet.headers.bth.psn);
        }
        return out;
    };
    EXPECT_EQ(psns(), (std::vector<std::uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(counters().window_waits.load(), 1U);
    ack(1);  // PSNs 0 and 1 acknowledged: two more may leave
    run();
    EXPECT_EQ(psns(), (std::vector<std::uint32_t>{4, 5}));
    ack(5);
    run();
    EXPECT_EQ(psns(), (std::vector<std::uint32_t>{6, 7, 8, 9}));
    EXPECT_TRUE(completions().empty()) << "complete before its last ACK";
    ack(9);
    run();
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::success);
    EXPECT_EQ(counters().retransmitted_packets.load(), 0U);
    EXPECT_EQ(counters().window_waits.load(), 2U);  // the first run and the one after ack(1)
}

// Without a window (every wire but UDP, and synchronized time) a message leaves whole.
TEST_F(Requester, WithoutAHostWindowAMessageLeavesWhole) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::send, 1, 0, 10 * mtu), status::success);
    run();
    EXPECT_EQ(take_sent().size(), 10U);
    EXPECT_EQ(counters().window_waits.load(), 0U);
}

TEST_F(Requester, ARefusedLocalSgeFailsTheRequestAndTheQp) {
    start(timer_off());
    core::sge s = sge(0, 64);
    s.token ^= 0x100;
    transfer_args a;
    a.context = reinterpret_cast<void*>(std::uintptr_t{7});
    a.sges = &s;
    a.sge_count = 1;
    ASSERT_EQ(post_transfer(e(), q(), wr_kind::send, a), status::success);
    run();
    EXPECT_TRUE(take_sent().empty()) << "nothing leaves for a refused SGE";
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::access_violation);
    EXPECT_EQ(q().state(), core::qp_state::error);
}

// Runs engine tasks one at a time until the port has taken `packets` packets in all.
void run_until_reserved(timing::scheduler& loop, engine_counters& c, std::uint64_t packets) {
    while (c.packets_sent.load() < packets && loop.run_one()) {
    }
    ASSERT_EQ(c.packets_sent.load(), packets);
}

TEST_F(Requester, OnASharedTimelineFramesAreBuiltAsTheyDepartAndEqualThoseBuiltAtOnce) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    for (std::size_t i = 0; i < k_buffer; ++i) {
        buffer_.data()[i] = static_cast<std::byte>(i * 7 + i / 4096);
    }
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    run();
    std::deque<sent_frame> at_once = take_sent();
    ASSERT_EQ(at_once.size(), 20U);
    ack(at_once.back().packet.headers.bth.psn);
    run();
    ASSERT_EQ(completions().size(), 1U);

    link_shared_ = true;
    ASSERT_EQ(post(wr_kind::write, 2, 0, 20 * mtu), status::success);
    run_until_reserved(loop_, counters(), 40);
    EXPECT_TRUE(sent_.empty()) << "the port took every packet, and no frame exists yet";
    run();
    std::deque<sent_frame> departed = take_sent();
    ASSERT_EQ(departed.size(), 20U);
    for (std::size_t i = 0; i < departed.size(); ++i) {
        const wire::packet_headers& a = at_once[i].packet.headers;
        const wire::packet_headers& b = departed[i].packet.headers;
        EXPECT_EQ(b.bth.op, a.bth.op) << i;
        EXPECT_EQ(b.bth.psn, wire::psn_add(a.bth.psn, 20)) << i;
        EXPECT_EQ(b.bth.ack_req, a.bth.ack_req) << i;
        EXPECT_EQ(b.reth.va, a.reth.va) << i;
        EXPECT_EQ(b.reth.dma_length, a.reth.dma_length) << i;
        EXPECT_EQ(departed[i].departure, at_once[i].departure) << i;
        ASSERT_EQ(departed[i].bytes.size(), at_once[i].bytes.size()) << i;
        EXPECT_TRUE(std::equal(departed[i].packet.payload.begin(), departed[i].packet.payload.end(),
                               at_once[i].packet.payload.begin()))
            << "packet " << i << " carries other bytes";
    }
}

TEST_F(Requester, OnASharedTimelineAOnePacketMessageIsBuiltAtOnce) {
    start(timer_off());
    link_shared_ = true;
    ASSERT_EQ(post(wr_kind::send, 1, 0, 64), status::success);
    run_until_reserved(loop_, counters(), 1);
    EXPECT_EQ(sent_.size(), 1U);
    EXPECT_TRUE(ctx().req.departures.empty());
}

TEST_F(Requester, MemoryRevokedBeforeItsPacketsDepartFailsTheRequestAndSendsNoneOfThem) {
    start(timer_off());
    link_shared_ = true;
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 9, 0, 20 * mtu), status::success);
    run_until_reserved(loop_, counters(), 20);
    ASSERT_EQ(dev_->memory().deregister_region(mr_->region()), status::success);
    run();
    EXPECT_TRUE(take_sent().empty()) << "a frame whose payload can no longer be read never leaves";
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::access_violation);
    EXPECT_EQ(q().state(), core::qp_state::error);
    EXPECT_TRUE(ctx().req.departures.empty());
    EXPECT_EQ(counters().packets_sent.load(), 0U) << "what never left is not counted as sent";
}

TEST_F(Requester, AnAckThatFinishesAMessageBeforeItsFramesDepartedSendsThemFirst) {
    // A retransmission queued behind copies the peer already holds can be acknowledged before
    // it departs; the message's slot and memory go back to the consumer only after it left.
    start(timer_off());
    link_shared_ = true;
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 4, 0, 20 * mtu), status::success);
    run_until_reserved(loop_, counters(), 20);
    ASSERT_TRUE(sent_.empty());
    ack(wire::psn_add(ctx().req.next_psn, wire::psn_mask));  // the message's last PSN
    EXPECT_EQ(take_sent().size(), 20U);
    EXPECT_TRUE(ctx().req.departures.empty());
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::success);
    run();
    EXPECT_TRUE(take_sent().empty());
}

TEST_F(Requester, RunsOfLaterMessagesStillLeaveAfterAnAckSentTheFirstOnesEarly) {
    start(timer_off());
    link_shared_ = true;
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 5, 0, 20 * mtu), status::success);
    ASSERT_EQ(post(wr_kind::write, 6, 0, 20 * mtu), status::success);
    run_until_reserved(loop_, counters(), 40);
    ASSERT_TRUE(sent_.empty());
    const std::uint32_t first_last = wire::psn_add(ctx().req.next_psn, wire::psn_mask - 20);
    ack(first_last);
    EXPECT_EQ(take_sent().size(), 20U) << "the first message's frames, and no more";
    run();
    EXPECT_EQ(take_sent().size(), 20U) << "the second message's runs are built in their turn";
    EXPECT_TRUE(ctx().req.departures.empty());
}

// A lent frame (wire/lent_frames.hpp) as the harness's link holds it: its payload, wherever
// it is now.
std::span<const std::byte> payload_of(const wire::frame& f) {
    return f.borrowed != nullptr
               ? std::span<const std::byte>(f.borrowed, f.borrowed_size)
               : std::span<const std::byte>(f.data + f.borrowed_offset, f.borrowed_size);
}

TEST_F(Requester, OnALendingLinkEachPacketRefersToTheConsumersMemory) {
    start_lending();
    buffer_.fill_pattern(3);
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    run();
    ASSERT_EQ(held_.size(), 20U);
    EXPECT_TRUE(sent_.empty());
    for (std::uint32_t i = 0; i < held_.size(); ++i) {
        EXPECT_EQ(held_[i]->borrowed, buffer_.data() + std::size_t{i} * mtu) << i;
        EXPECT_EQ(held_[i]->borrowed_size, mtu) << i;
        EXPECT_TRUE(held_[i]->icrc_elided) << i;
    }
    EXPECT_EQ(ctx().lent.size(), 20U);
    EXPECT_TRUE(completions().empty());
}

TEST_F(Requester, AShortOrInlinePayloadIsCopiedIntoItsFrameOnALendingLink) {
    start_lending();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 512), status::success);
    ASSERT_EQ(post(wr_kind::write, 2, 0, 64, core::op_flag::inline_data), status::success);
    run();
    EXPECT_TRUE(held_.empty());
    EXPECT_EQ(sent_.size(), 2U);
    EXPECT_TRUE(ctx().lent.empty());
}

TEST_F(Requester, AnAckCopiesThePayloadIntoTheFramesInFlightOfTheRequestsItCompletesOnly) {
    // The bytes a lent frame carries are the consumer's until its request completes; after
    // that the memory is the consumer's again, and the frames still in flight hold a copy.
    start_lending();
    buffer_.fill_pattern(4);
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    ASSERT_EQ(post(wr_kind::write, 2, 20 * mtu, 10 * mtu), status::success);
    run();
    ASSERT_EQ(held_.size(), 30U);
    ack(held_[19]->lent_psn);  // the first request's last packet
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::success);
    for (std::uint32_t i = 0; i < held_.size(); ++i) {
        const bool completed = i < 20;
        EXPECT_EQ(held_[i]->borrowed == nullptr, completed) << i;
        EXPECT_EQ(held_[i]->lender == nullptr, completed) << i;
        const std::span<const std::byte> p = payload_of(*held_[i]);
        EXPECT_EQ(std::memcmp(p.data(), buffer_.data() + std::size_t{i} * mtu, mtu), 0) << i;
    }
    EXPECT_EQ(ctx().lent.size(), 10U);
    // The consumer reuses the first request's memory: its frames keep what they copied.
    std::memset(buffer_.data(), 0, 20 * mtu);
    EXPECT_NE(payload_of(*held_[0])[0], std::byte{0});
}

TEST_F(Requester, AFailingQpCopiesThePayloadIntoItsLentFramesBeforeItsRequestsComplete) {
    start_lending();
    buffer_.fill_pattern(5);
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    run();
    ASSERT_EQ(held_.size(), 20U);
    fail_qp(e(), q());
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::cancelled);
    for (std::uint32_t i = 0; i < held_.size(); ++i) {
        EXPECT_EQ(held_[i]->borrowed, nullptr) << i;
        EXPECT_EQ(
            std::memcmp(payload_of(*held_[i]).data(), buffer_.data() + std::size_t{i} * mtu, mtu),
            0)
            << i;
    }
    EXPECT_TRUE(ctx().lent.empty());
}

TEST_F(Requester, ALentFrameConsumedInFlightLeavesTheListAndIsNotCopied) {
    start_lending();
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    run();
    ASSERT_EQ(held_.size(), 20U);
    const std::uint32_t last = held_.back()->lent_psn;
    release_held();  // the receiver placed every packet
    EXPECT_TRUE(ctx().lent.empty());
    ack(last);
    ASSERT_EQ(completions().size(), 1U);
}

// A lent frame reaches the engine with its payload in the sender's memory; its buffer does
// not hold the payload, so the ICRC is trusted rather than checked over it (a layer that could
// corrupt the frame copies the payload in first). The same frame holding nothing where its
// payload belongs fails its ICRC.
class LentFrameArrival : public stage_harness {
  protected:
    // A WRITE ONLY of `payload` to buffer_[offset] from the peer, the ICRC over `payload`,
    // its buffer's payload bytes left zero; lent from `lent` when it is given.
    wire::frame* write_frame(std::span<const std::byte> payload, std::size_t offset,
                             wire::lent_frames* lent) {
        wire::packet_headers h;
        h.bth.op = opcode::rc_write_only;
        h.bth.dest_qp = q().qpn();
        h.bth.psn = ctx().resp.expected_psn;
        h.bth.ack_req = true;
        h.reth.va = address(offset);
        h.reth.rkey = token_;
        h.reth.dma_length = static_cast<std::uint32_t>(payload.size());
        wire::frame* f = e().frames().take();
        const std::span<std::byte> buffer(f->data, sizeof f->data);
        const wire::encode_result layout = wire::encode_headers(h, payload.size(), buffer);
        EXPECT_TRUE(layout.ok());
        const std::span<std::byte> slot = layout.payload(buffer);
        std::fill(slot.begin(), slot.end(), std::byte{0});
        const wire::flow flow{peer_, local_};
        f->length = static_cast<std::uint32_t>(wire::finish_frame(buffer, layout, flow, false));
        const auto at = static_cast<std::uint32_t>(slot.data() - f->data);
        wire::store_icrc(
            f->data + f->length - wire::icrc_size,
            wire::compute_icrc(flow, buffer.first(f->length - wire::icrc_size), at, payload));
        f->source = peer_;
        if (lent != nullptr) {
            lent->lend(*f, payload.data(), at, static_cast<std::uint32_t>(payload.size()), 0);
        }
        return f;
    }
};

TEST_F(LentFrameArrival, ALentFrameIsPlacedFromTheSendersMemoryWithoutAnIcrcCheckOverItsBuffer) {
    start(timer_off());
    std::vector<std::byte> payload(2048);
    for (std::size_t i = 0; i < payload.size(); ++i) {
        payload[i] = static_cast<std::byte>(i * 11 + 5);
    }
    wire::lent_frames lent;
    e().on_frame(write_frame(payload, 4096, &lent));
    run();
    EXPECT_EQ(std::memcmp(buffer_.data() + 4096, payload.data(), payload.size()), 0);
    EXPECT_TRUE(lent.empty()) << "placed, and back in its pool";
    EXPECT_EQ(counters().bad_frames[static_cast<std::size_t>(wire::decode_error::bad_icrc)].load(),
              0U);

    e().on_frame(write_frame(payload, 8192, nullptr));
    run();
    EXPECT_EQ(counters().bad_frames[static_cast<std::size_t>(wire::decode_error::bad_icrc)].load(),
              1U);
    EXPECT_NE(std::memcmp(buffer_.data() + 8192, payload.data(), payload.size()), 0);
}

TEST_F(Requester, AFailingQpSendsWhatThePortHadScheduled) {
    start(timer_off());
    link_shared_ = true;
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 3, 0, 20 * mtu), status::success);
    run_until_reserved(loop_, counters(), 20);
    ASSERT_TRUE(sent_.empty());
    fail_qp(e(), q());
    EXPECT_EQ(take_sent().size(), 20U) << "the frames already on their way leave";
    EXPECT_TRUE(ctx().req.departures.empty());
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::cancelled);
    run();
    EXPECT_TRUE(take_sent().empty()) << "the builds scheduled earlier find nothing left to do";
}

}  // namespace
}  // namespace ndksim::nic::test
