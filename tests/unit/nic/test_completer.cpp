// SPDX-License-Identifier: MIT
// The completer alone (a zero-cost hardware model, a capturing link, the transport timer off):
// cumulative ACKs and completions in posting order, ACKs inside a message, stale responses,
// READ response placement, and what each NAK of the responder's fault table makes of the
// request it names (the requester's half of each row).

#include <cstring>
#include <string>
#include <vector>

#include "nic/responder_faults.hpp"
#include "stage_harness.hpp"

namespace ndksim::nic::test {
namespace {

using core::wr_kind;
using wire::opcode;

std::uintptr_t context_id(const core::completion& c) {
    return reinterpret_cast<std::uintptr_t>(c.request_context);
}

class Completer : public stage_harness {};

TEST_F(Completer, AnAckCompletesEveryRequestUpToItsPsnInPostingOrder) {
    start(timer_off());
    for (std::uintptr_t id = 1; id <= 3; ++id) {
        ASSERT_EQ(post(wr_kind::send, id, 0, 8), status::success);
    }
    run();
    take_sent();
    ack(1);
    std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 2U) << "IBA ch. 9: an ACK acknowledges every PSN up to its own";
    EXPECT_EQ(context_id(done[0]), 1U);
    EXPECT_EQ(context_id(done[1]), 2U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::success);
    ack(2);
    done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(context_id(done[0]), 3U);
}

TEST_F(Completer, ALateOrRepeatedAckIsStaleAndChangesNothing) {
    start(timer_off());
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    run();
    ack(0);
    EXPECT_EQ(completions().size(), 1U);
    ack(0);
    EXPECT_TRUE(completions().empty());
    EXPECT_EQ(counters().stale_responses.load(), 1U);
}

TEST_F(Completer, AnAckInsideAMessageRecordsProgressAndCompletesNothing) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 3 * mtu), status::success);
    run();
    ack(1);
    EXPECT_TRUE(completions().empty());
    EXPECT_EQ(q().sq().at(0).acked, 2U) << "the peer holds PSNs 0 and 1";
    ack(2);
    EXPECT_EQ(completions().size(), 1U);
}

TEST_F(Completer, ReadResponsesArePlacedInOrderAndOneOutOfOrderIsStale) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    std::memset(buffer_.data(), 0, 2 * mtu);
    ASSERT_EQ(post(wr_kind::read, 1, 0, 2 * mtu), status::success);
    run();
    const std::vector<std::byte> payload(mtu, std::byte{0x6B});
    wire::packet_headers h;
    h.bth.op = opcode::rc_read_response_last;
    h.bth.psn = 1;
    response(h, payload);
    EXPECT_EQ(counters().stale_responses.load(), 1U) << "it passed a lost predecessor";
    EXPECT_TRUE(completions().empty());
    h.bth.op = opcode::rc_read_response_first;
    h.bth.psn = 0;
    response(h, payload);
    h.bth.op = opcode::rc_read_response_last;
    h.bth.psn = 1;
    response(h, payload);
    run();
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::success);
    EXPECT_EQ(buffer_.data()[0], std::byte{0x6B});
    EXPECT_EQ(buffer_.data()[2 * mtu - 1], std::byte{0x6B});
}

TEST_F(Completer, ASequenceNakResendsFromThePsnItNames) {
    start(timer_off());
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 3 * mtu), status::success);
    run();
    take_sent();
    ack(1, wire::nak_syndrome(wire::nak_code::psn_sequence_error));
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 2U) << "go-back-N from PSN 1";
    EXPECT_EQ(sent[0].packet.headers.bth.psn, 1U);
    EXPECT_EQ(sent[1].packet.headers.bth.psn, 2U);
    EXPECT_EQ(counters().retransmitted_packets.load(), 2U);
    EXPECT_TRUE(completions().empty());
    EXPECT_EQ(q().state(), core::qp_state::connected);
}

TEST_F(Completer, AnRnrNakResendsAfterTheTimerItNames) {
    start(timer_off());
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    run();
    take_sent();
    const timing::sim_time before = loop_.now();
    ack(0, wire::rnr_nak_syndrome(1));
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_EQ(sent[0].departure - before, wire::rnr_timer_table[1]);
    EXPECT_EQ(counters().rnr_retries.load(), 1U);
    EXPECT_TRUE(completions().empty());
}

// The requester's half of each row of the responder's fault table: the NAK the responder sends
// for it, arriving for the request it names.
class CompleterNak : public stage_harness, public ::testing::WithParamInterface<responder_fault> {};

TEST_P(CompleterNak, TheRequestCompletesAsTheRowSays) {
    const responder_fault_rule& row = fault_rule(GetParam());
    engine_config cfg = timer_off();
    cfg.rnr_retry_limit = 0;  // a retried row's status: its retries have run out
    start(cfg);
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    run();
    take_sent();
    ack(0, row.answer == fault_answer::rnr_nak ? wire::rnr_nak_syndrome(1)
                                               : wire::nak_syndrome(row.nak));
    run();
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 2U);
    EXPECT_EQ(static_cast<status>(done[0].status), row.requester);
    EXPECT_EQ(done[0].provider_error,
              row.answer == fault_answer::nak ? 0x100U | static_cast<std::uint32_t>(row.nak) : 0U);
    EXPECT_EQ(static_cast<status>(done[1].status), status::cancelled) << "the rest is flushed";
    EXPECT_EQ(q().state(), core::qp_state::error);
}

std::vector<responder_fault> completing_faults() {
    std::vector<responder_fault> out;
    for (const responder_fault_rule& r : k_responder_faults) {
        // A sequence NAK is retried by the transport timer, not completed (see above).
        if (r.fault != responder_fault::psn_sequence_error) {
            out.push_back(r.fault);
        }
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(Table, CompleterNak, ::testing::ValuesIn(completing_faults()),
                         [](const ::testing::TestParamInfo<responder_fault>& i) {
                             return std::string(fault_rule(i.param).name);
                         });

}  // namespace
}  // namespace ndksim::nic::test
