// SPDX-License-Identifier: MIT
// The opcode table against the transport header rules, written out independently here.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "wire/opcode_table.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

struct expected_row {
    std::uint8_t value;
    std::string_view name;
    std::size_t header_size;  // BTH + extension headers [bytes]
    ext_mask headers;
    bool payload;
    op_class cls;
    op_position position;
    bool request;
};

constexpr ext_mask D = ext_bit(ext::deth), R = ext_bit(ext::reth), X = ext_bit(ext::atomic_eth),
                   A = ext_bit(ext::aeth), K = ext_bit(ext::atomic_ack_eth),
                   I = ext_bit(ext::immdt), V = ext_bit(ext::ieth);
using C = op_class;
using P = op_position;

// Values and header sets from the IBA opcode list (RC 000xxxxx, UD 011xxxxx).
const expected_row rows[] = {
    {0x00, "rc_send_first", 12, 0, true, C::send, P::first, true},
    {0x01, "rc_send_middle", 12, 0, true, C::send, P::middle, true},
    {0x02, "rc_send_last", 12, 0, true, C::send, P::last, true},
    {0x03, "rc_send_last_imm", 16, I, true, C::send, P::last, true},
    {0x04, "rc_send_only", 12, 0, true, C::send, P::only, true},
    {0x05, "rc_send_only_imm", 16, I, true, C::send, P::only, true},
    {0x06, "rc_write_first", 28, R, true, C::write, P::first, true},
    {0x07, "rc_write_middle", 12, 0, true, C::write, P::middle, true},
    {0x08, "rc_write_last", 12, 0, true, C::write, P::last, true},
    {0x09, "rc_write_last_imm", 16, I, true, C::write, P::last, true},
    {0x0A, "rc_write_only", 28, R, true, C::write, P::only, true},
    {0x0B, "rc_write_only_imm", 32, R | I, true, C::write, P::only, true},
    {0x0C, "rc_read_request", 28, R, false, C::read_request, P::only, true},
    {0x0D, "rc_read_response_first", 16, A, true, C::read_response, P::first, false},
    {0x0E, "rc_read_response_middle", 12, 0, true, C::read_response, P::middle, false},
    {0x0F, "rc_read_response_last", 16, A, true, C::read_response, P::last, false},
    {0x10, "rc_read_response_only", 16, A, true, C::read_response, P::only, false},
    {0x11, "rc_ack", 16, A, false, C::ack, P::only, false},
    {0x12, "rc_atomic_ack", 24, A | K, false, C::atomic, P::only, false},
    {0x13, "rc_cmp_swap", 40, X, false, C::atomic, P::only, true},
    {0x14, "rc_fetch_add", 40, X, false, C::atomic, P::only, true},
    {0x16, "rc_send_last_inv", 16, V, true, C::send, P::last, true},
    {0x17, "rc_send_only_inv", 16, V, true, C::send, P::only, true},
    {0x64, "ud_send_only", 20, D, true, C::send, P::only, true},
    {0x65, "ud_send_only_imm", 24, D | I, true, C::send, P::only, true},
};

TEST(OpcodeTable, EverySupportedOpcodeHasTheSpecifiedHeadersAndRole) {
    for (const expected_row& e : rows) {
        SCOPED_TRACE(std::string(e.name));
        const opcode_info& info = opcode_lookup(e.value);
        EXPECT_TRUE(info.valid);
        EXPECT_EQ(info.name, e.name);
        EXPECT_EQ(info.header_size, e.header_size);
        EXPECT_EQ(info.headers, e.headers);
        EXPECT_EQ(info.has_payload, e.payload);
        EXPECT_EQ(info.cls, e.cls);
        EXPECT_EQ(info.position, e.position);
        EXPECT_EQ(info.is_request(), e.request);
        EXPECT_EQ(info.svc, e.value >= 0x60 ? service::ud : service::rc);
        EXPECT_EQ(opcode_name(e.value), e.name);
    }
    EXPECT_EQ(valid_opcode_count, std::size(rows));
}

TEST(OpcodeTable, EveryOtherValueIsNotValid) {
    std::set<std::uint32_t> supported;
    for (const expected_row& e : rows) {
        supported.insert(e.value);
    }
    for (std::uint32_t v = 0; v < 256; ++v) {
        if (supported.count(v) != 0) {
            continue;
        }
        const opcode_info& info = opcode_lookup(v);
        EXPECT_FALSE(info.valid) << v;
        EXPECT_EQ(info.name, "invalid") << v;
        EXPECT_EQ(info.header_size, 0) << v;
    }
}

TEST(OpcodeTable, LookupBeyondTheTableGivesTheInvalidRow) {
    for (std::uint32_t v : {256u, 0x1000u, 0xFFFF'FFFFu}) {
        EXPECT_FALSE(opcode_lookup(v).valid) << v;
        EXPECT_EQ(opcode_name(v), "invalid");
    }
}

TEST(OpcodeTable, ExtensionHeadersSitInWireOrder) {
    const opcode_info& write_imm = opcode_lookup(opcode::rc_write_only_imm);
    EXPECT_EQ(write_imm.offset_of(ext::reth), 12u);
    EXPECT_EQ(write_imm.offset_of(ext::immdt), 28u);
    EXPECT_EQ(write_imm.offset_of(ext::aeth), 0u);

    const opcode_info& atomic_ack = opcode_lookup(opcode::rc_atomic_ack);
    EXPECT_EQ(atomic_ack.offset_of(ext::aeth), 12u);
    EXPECT_EQ(atomic_ack.offset_of(ext::atomic_ack_eth), 16u);

    const opcode_info& ud_imm = opcode_lookup(opcode::ud_send_only_imm);
    EXPECT_EQ(ud_imm.offset_of(ext::deth), 12u);
    EXPECT_EQ(ud_imm.offset_of(ext::immdt), 20u);

    const opcode_info& inv = opcode_lookup(opcode::rc_send_only_inv);
    EXPECT_EQ(inv.offset_of(ext::ieth), 12u);
    EXPECT_TRUE(inv.has(ext::ieth));
    EXPECT_FALSE(inv.has(ext::immdt));
}

TEST(OpcodeTable, NoOpcodeExceedsTheLargestHeader) {
    std::size_t largest = 0;
    for (const opcode_info& info : opcode_table) {
        largest = std::max<std::size_t>(largest, info.header_size);
        EXPECT_EQ(info.header_size % word_size, 0u);
    }
    EXPECT_EQ(largest, max_header_size);
}

TEST(OpcodeTable, MessagePositionHelpers) {
    EXPECT_TRUE(opcode_lookup(opcode::rc_send_first).starts_message());
    EXPECT_FALSE(opcode_lookup(opcode::rc_send_first).ends_message());
    EXPECT_FALSE(opcode_lookup(opcode::rc_write_middle).starts_message());
    EXPECT_FALSE(opcode_lookup(opcode::rc_write_middle).ends_message());
    EXPECT_TRUE(opcode_lookup(opcode::rc_read_response_last).ends_message());
    EXPECT_TRUE(opcode_lookup(opcode::rc_ack).starts_message());
    EXPECT_TRUE(opcode_lookup(opcode::rc_ack).ends_message());
}

TEST(OpcodeTable, EnumNamesForLogs) {
    EXPECT_EQ(ext_name(ext::atomic_ack_eth), "atomic_ack_eth");
    EXPECT_EQ(op_class_name(op_class::read_response), "read_response");
    EXPECT_EQ(op_position_name(op_position::middle), "middle");
    EXPECT_EQ(op_direction_name(op_direction::response), "response");
    EXPECT_EQ(service_name(service::ud), "ud");
    EXPECT_EQ(op_class_name(static_cast<op_class>(200)), "unknown");
}

TEST(Proto, PsnArithmeticWrapsAt24Bits) {
    EXPECT_EQ(psn_add(0xFF'FFFF), 0u);
    EXPECT_EQ(psn_add(0xFF'FFFE, 3), 1u);
    EXPECT_EQ(psn_diff(1, 0xFF'FFFF), 2);
    EXPECT_EQ(psn_diff(0xFF'FFFF, 1), -2);
    EXPECT_EQ(psn_diff(5, 5), 0);
    EXPECT_EQ(psn_diff(0x7F'FFFF, 0), 0x7F'FFFF);
    EXPECT_EQ(psn_diff(0x80'0000, 0), -0x80'0000);
}

TEST(Proto, AethSyndromesEncodeTypeAndValue) {
    EXPECT_EQ(ack_syndrome(), 0x1F);
    EXPECT_EQ(ack_syndrome(5), 0x05);
    EXPECT_EQ(rnr_nak_syndrome(14), 0x2E);
    EXPECT_EQ(nak_syndrome(nak_code::psn_sequence_error), 0x60);
    EXPECT_EQ(nak_syndrome(nak_code::invalid_rd_request), 0x64);
    EXPECT_EQ(syndrome_type(0x2E), aeth_type::rnr_nak);
    EXPECT_EQ(syndrome_value(0x2E), 14);
    EXPECT_EQ(syndrome_type(0x62), aeth_type::nak);
    EXPECT_EQ(nak_code_name(2), "remote_access_error");
    EXPECT_EQ(nak_code_name(9), "reserved");
}

TEST(Proto, RnrTimerAndCreditEncodings) {
    EXPECT_EQ(rnr_timer(0), timing::microseconds(655'360));
    EXPECT_EQ(rnr_timer(1), timing::microseconds(10));
    EXPECT_EQ(rnr_timer(14), timing::microseconds(1'280));
    EXPECT_EQ(rnr_timer(31), timing::microseconds(491'520));
    EXPECT_EQ(credit_count(0), 0u);
    EXPECT_EQ(credit_count(5), 6u);
    EXPECT_EQ(credit_count(30), 32'768u);
    EXPECT_FALSE(credit_count(credit_code_invalid).has_value());
}

TEST(Proto, PadAndCapacity) {
    EXPECT_EQ(pad_for(0), 0u);
    EXPECT_EQ(pad_for(1), 3u);
    EXPECT_EQ(pad_for(6), 2u);
    EXPECT_EQ(pad_for(4096), 0u);
    EXPECT_EQ(frame_capacity(4096), 40u + 4096u + 4u);
    EXPECT_EQ(roce_udp_port, 4791);
}

}  // namespace
}  // namespace ndksim::wire
