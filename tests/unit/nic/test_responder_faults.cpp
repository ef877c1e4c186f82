// SPDX-License-Identifier: MIT
// The responder alone (a zero-cost hardware model, a capturing link): one negative test per row
// of its fault table (src/nic/responder_faults.hpp). Each row's scenario breaks that rule once;
// the checks come from the row: the NAK or RNR NAK sent, what a receive the SEND was landing in
// completes with, whether the QP went to error, and whether a protocol error was counted. The
// completer's half of each row (the requester's status) is test_completer.cpp's.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "nic/responder_faults.hpp"
#include "stage_harness.hpp"

namespace ndksim::nic::test {
namespace {

using wire::opcode;

int receive_marker = 0;
void* const k_receive_context = &receive_marker;

std::vector<std::byte> bytes(std::size_t n) {
    return std::vector<std::byte>(n, std::byte{0x5A});
}

class responder_test : public stage_harness {
  protected:
    void post_receive(std::uint32_t length, std::uint32_t token_flip = 0) {
        core::sge s = sge(0, length);
        s.token ^= token_flip;
        ASSERT_EQ(nic::post_receive(e(), q(), k_receive_context, &s, 1), status::success);
    }

    wire::packet_headers header(opcode op, std::uint32_t psn = 0) {
        wire::packet_headers h;
        h.bth.op = op;
        h.bth.psn = psn;
        h.bth.ack_req = true;
        return h;
    }

    wire::packet_headers rdma(opcode op, std::uint32_t length, std::uint32_t token_flip = 0,
                              std::uint32_t psn = 0, std::size_t offset = 1024) {
        wire::packet_headers h = header(op, psn);
        h.reth.va = address(offset);
        h.reth.rkey = token_ ^ token_flip;
        h.reth.dma_length = length;
        return h;
    }
};

class ResponderFault : public responder_test,
                       public ::testing::WithParamInterface<responder_fault> {
  protected:
    // Breaks the rule of `f` once.
    void provoke(responder_fault f) {
        switch (f) {
            case responder_fault::psn_sequence_error:
                request(header(opcode::rc_send_only, 5), bytes(8));
                break;
            case responder_fault::receiver_not_ready:
                request(header(opcode::rc_send_only), bytes(8));
                break;
            case responder_fault::packet_too_long:
                post_receive(8192);
                request(header(opcode::rc_send_only), bytes(e().hw().mtu() + 4));
                break;
            case responder_fault::opcode_sequence:
                post_receive(64);
                request(header(opcode::rc_send_middle), bytes(64));
                break;
            case responder_fault::unsupported_opcode: {
                wire::packet_headers h = header(opcode::rc_fetch_add);
                h.atomic_eth.va = address(0);
                h.atomic_eth.rkey = token_;
                request(h);
                break;
            }
            case responder_fault::receive_too_small:
                post_receive(16);
                request(header(opcode::rc_send_only), bytes(64));
                break;
            case responder_fault::receive_refused:
                post_receive(64, 0x100);
                request(header(opcode::rc_send_only), bytes(64));
                break;
            case responder_fault::invalidate_refused: {
                post_receive(64);
                wire::packet_headers h = header(opcode::rc_send_only_inv);
                h.invalidate_rkey = token_ ^ 0x100;
                request(h, bytes(64));
                break;
            }
            case responder_fault::write_refused:
                request(rdma(opcode::rc_write_only, 64, 0x100), bytes(64));
                break;
            case responder_fault::write_too_long:
                request(rdma(opcode::rc_write_only, 16), bytes(32));
                break;
            case responder_fault::write_too_short:
                request(rdma(opcode::rc_write_only, 64), bytes(32));
                break;
            case responder_fault::read_beyond_ird:
                request(rdma(opcode::rc_read_request, 64));
                break;
            case responder_fault::read_refused:
                request(rdma(opcode::rc_read_request, 64, 0x100));
                break;
            case responder_fault::count:
                FAIL();
        }
    }
};

// What docs/completion-statuses.md promises a consumer for each rule, written out apart from
// the table, so that a change to a row shows here.
struct promised {
    responder_fault fault;
    std::uint8_t syndrome_type;  // wire::aeth_type
    wire::nak_code nak;
    status requester;
    bool fatal;
};
constexpr std::array<promised, static_cast<std::size_t>(responder_fault::count)> k_promised{{
    {responder_fault::psn_sequence_error, 3, wire::nak_code::psn_sequence_error, status::io_timeout,
     false},
    {responder_fault::receiver_not_ready, 1, wire::nak_code::psn_sequence_error, status::io_timeout,
     false},
    {responder_fault::packet_too_long, 3, wire::nak_code::invalid_request, status::remote_resources,
     true},
    {responder_fault::opcode_sequence, 3, wire::nak_code::invalid_request, status::remote_resources,
     true},
    {responder_fault::unsupported_opcode, 3, wire::nak_code::invalid_request,
     status::remote_resources, true},
    {responder_fault::receive_too_small, 3, wire::nak_code::invalid_request,
     status::remote_resources, true},
    {responder_fault::receive_refused, 3, wire::nak_code::remote_operational_error,
     status::connection_aborted, true},
    {responder_fault::invalidate_refused, 3, wire::nak_code::remote_operational_error,
     status::connection_aborted, true},
    {responder_fault::write_refused, 3, wire::nak_code::remote_access_error,
     status::access_violation, true},
    {responder_fault::write_too_long, 3, wire::nak_code::invalid_request, status::remote_resources,
     true},
    {responder_fault::write_too_short, 3, wire::nak_code::invalid_request, status::remote_resources,
     true},
    {responder_fault::read_beyond_ird, 3, wire::nak_code::invalid_request, status::remote_resources,
     true},
    {responder_fault::read_refused, 3, wire::nak_code::remote_access_error,
     status::access_violation, true},
}};

TEST_P(ResponderFault, TheRowIsWhatTheCompletionStatusesPageSays) {
    const responder_fault_rule& row = fault_rule(GetParam());
    const promised& p = k_promised[static_cast<std::size_t>(row.fault)];
    ASSERT_EQ(p.fault, row.fault);
    EXPECT_EQ(
        static_cast<std::uint8_t>(row.answer == fault_answer::rnr_nak ? wire::aeth_type::rnr_nak
                                                                      : wire::aeth_type::nak),
        p.syndrome_type);
    if (row.answer == fault_answer::nak) {
        EXPECT_EQ(row.nak, p.nak);
    }
    EXPECT_EQ(row.requester, p.requester);
    EXPECT_EQ(row.fatal, p.fatal);
    EXPECT_FALSE(row.reference.empty());
}

TEST_P(ResponderFault, AnswersAsItsRowSays) {
    const responder_fault_rule& row = fault_rule(GetParam());
    // An inbound read limit of 0: the first READ is already beyond it.
    start({}, row.fault == responder_fault::read_beyond_ird ? 0 : 4, 4);
    provoke(row.fault);
    run();

    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 1U) << "one answer, and nothing else";
    const wire::decoded_packet& answer = sent.front().packet;
    EXPECT_EQ(answer.headers.bth.op, opcode::rc_ack);
    EXPECT_EQ(answer.headers.bth.dest_qp, k_peer_qpn);
    const std::uint8_t syndrome = answer.headers.aeth.syndrome;
    if (row.answer == fault_answer::rnr_nak) {
        EXPECT_EQ(wire::syndrome_type(syndrome), wire::aeth_type::rnr_nak);
        EXPECT_EQ(wire::syndrome_value(syndrome), e().config().rnr_timer_code);
        EXPECT_EQ(counters().rnr_naks_sent.load(), 1U);
    } else {
        EXPECT_EQ(wire::syndrome_type(syndrome), wire::aeth_type::nak);
        EXPECT_EQ(wire::syndrome_value(syndrome), static_cast<std::uint8_t>(row.nak));
        EXPECT_EQ(counters().naks_sent.load(), 1U);
    }
    // A sequence NAK names the PSN expected; every other answer the packet's.
    EXPECT_EQ(answer.headers.bth.psn, 0U);

    EXPECT_EQ(q().state() == core::qp_state::error, row.fatal);
    EXPECT_EQ(counters().protocol_errors.load(), row.protocol_error ? 1U : 0U);

    const std::vector<core::completion> done = completions();
    const core::completion* receive = nullptr;
    for (const core::completion& c : done) {
        if (c.request_context == k_receive_context) {
            receive = &c;
            break;
        }
    }
    switch (row.receive) {
        case receive_outcome::none:
            if (receive != nullptr && row.fatal) {
                // A receive the packet never reached is flushed with the QP.
                EXPECT_EQ(static_cast<status>(receive->status), status::cancelled);
            } else {
                EXPECT_EQ(receive, nullptr);
            }
            break;
        case receive_outcome::row_status:
            ASSERT_NE(receive, nullptr);
            EXPECT_EQ(static_cast<status>(receive->status), row.receive_status);
            break;
        case receive_outcome::memory_unit:
            ASSERT_NE(receive, nullptr);
            EXPECT_EQ(static_cast<status>(receive->status), status::access_violation)
                << "the memory unit refused the receive's token";
            break;
    }
}

std::vector<responder_fault> every_fault() {
    std::vector<responder_fault> all;
    for (const responder_fault_rule& r : k_responder_faults) {
        all.push_back(r.fault);
    }
    return all;
}

INSTANTIATE_TEST_SUITE_P(Table, ResponderFault, ::testing::ValuesIn(every_fault()),
                         [](const ::testing::TestParamInfo<responder_fault>& i) {
                             return std::string(fault_rule(i.param).name);
                         });

class Responder : public responder_test {};

TEST_F(Responder, AFutureGapIsNakedOnceAndLaterPacketsAreDroppedQuietly) {
    start();
    for (std::uint32_t psn = 3; psn < 6; ++psn) {
        request(rdma(opcode::rc_write_only, 8, 0, psn, 0), bytes(8));
    }
    run();
    EXPECT_EQ(take_sent().size(), 1U);
    EXPECT_EQ(counters().out_of_sequence_packets.load(), 3U);
    EXPECT_EQ(q().state(), core::qp_state::connected);
}

TEST_F(Responder, BackToBackPacketsAskingForAnAckShareOne) {
    start();
    for (std::uint32_t psn = 0; psn < 3; ++psn) {
        request(rdma(opcode::rc_write_only, 8, 0, psn, psn * 8), bytes(8));
    }
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 1U) << "IBA ch. 9: an ACK covers every PSN up to its own";
    EXPECT_EQ(sent.front().packet.headers.bth.psn, 2U);
    EXPECT_EQ(wire::syndrome_type(sent.front().packet.headers.aeth.syndrome), wire::aeth_type::ack);
    EXPECT_EQ(sent.front().packet.headers.aeth.msn, 3U);
    EXPECT_EQ(counters().acks_coalesced.load(), 2U);
    EXPECT_EQ(counters().acks_sent.load(), 1U);
}

TEST_F(Responder, ADuplicateIsAcknowledgedAgainAndPlacesNothing) {
    start();
    const wire::packet_headers h = rdma(opcode::rc_write_only, 8, 0, 0, 0);
    request(h, bytes(8));
    run();
    take_sent();
    buffer_.data()[0] = std::byte{0};
    request(h, bytes(8));
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_EQ(sent.front().packet.headers.bth.psn, 0U);
    EXPECT_EQ(buffer_.data()[0], std::byte{0}) << "nothing is placed twice";
    EXPECT_EQ(counters().duplicate_packets.load(), 1U);
}

TEST_F(Responder, AReadIsAnsweredWithOneResponsePerMtu) {
    start();
    request(rdma(opcode::rc_read_request, 2 * e().hw().mtu() + 10, 0, 0, 0));
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 3U);
    EXPECT_EQ(sent[0].packet.headers.bth.op, opcode::rc_read_response_first);
    EXPECT_EQ(sent[1].packet.headers.bth.op, opcode::rc_read_response_middle);
    EXPECT_EQ(sent[2].packet.headers.bth.op, opcode::rc_read_response_last);
    EXPECT_EQ(sent[2].packet.payload.size(), 10U);
    EXPECT_EQ(sent[2].packet.headers.bth.psn, 2U);
    EXPECT_EQ(ctx().resp.expected_psn, 3U) << "a READ takes one PSN per response";
}

}  // namespace
}  // namespace ndksim::nic::test
