// SPDX-License-Identifier: MIT
// Connection-management messages as IBA CM MADs: round trips as payloads and as UD frames to
// QP 1, every field at its IBA offset in a known message of each type, and every malformed
// MAD with its exact error.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire/cm_proto.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

using test::pattern;
using test::test_flow;

const cm_type all_types[] = {cm_type::request,
                             cm_type::reply,
                             cm_type::ready_to_use,
                             cm_type::reject,
                             cm_type::disconnect_request,
                             cm_type::disconnect_reply};

const cm_type_info& info_of(cm_type t) {
    return cm_type_lookup(static_cast<std::uint32_t>(t));
}

/// A message of `type` with a distinct value in every field the type carries (and only
/// those: decoding leaves the others at their defaults).
cm_message sample_message(cm_type type, std::size_t private_bytes = 0, bool v6 = false) {
    cm_message m;
    m.type = type;
    m.transaction_id = 0x1122334455667788;
    m.local_connection_id = 0x01020304;
    if (type != cm_type::request) {
        m.remote_connection_id = 0x0A0B0C0D;
    }
    if (type == cm_type::request) {
        if (v6) {
            m.src_ip =
                ip_address::v6_from({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11});
            m.dst_ip =
                ip_address::v6_from({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x22});
        } else {
            m.src_ip = ip_address::v4(127, 0, 0, 1);
            m.dst_ip = ip_address::v4(127, 0, 0, 2);
        }
        m.src_port = 49'152;
        m.dst_port = 445;
        m.cm_response_timeout = 16;
        m.max_cm_retries = 3;
        m.local_ack_timeout = 12;
        m.retry_count = 7;
        m.path_mtu = 5;
    }
    if (type == cm_type::request || type == cm_type::reply) {
        m.ca_guid = 0x0200'7FFF'FE00'0001;
        m.qp_number = 0x00ABCDEF;
        m.start_psn = 0x00FEDCBA;
        m.inbound_read_limit = 16;
        m.outbound_read_limit = 8;
        m.rnr_retry_count = 6;
        m.srq = true;
    }
    if (type == cm_type::disconnect_request) {
        m.qp_number = 0x00123456;
    }
    if (type == cm_type::reject) {
        m.rejected_message = cm_rejected::reply;
        m.reject_reason = static_cast<std::uint16_t>(cm_reject_reason::consumer);
    }
    EXPECT_TRUE(m.set_private_data(pattern(private_bytes, 0x33)));
    return m;
}

std::vector<std::byte> payload_of(const cm_message& m) {
    std::vector<std::byte> out(cm_mad_size);
    const cm_encode_result r = encode_cm_payload(m, out);
    EXPECT_TRUE(r.ok()) << cm_error_name(r.error);
    out.resize(r.size);
    return out;
}

cm_error error_of(const std::vector<std::byte>& payload) {
    return decode_cm_payload(payload).error;
}

/// Byte `i` of `p` as an integer.
int at(const std::vector<std::byte>& p, std::size_t i) {
    return std::to_integer<int>(p[i]);
}

/// The big-endian value of bytes [i, i + n) of `p`.
std::uint64_t be(const std::vector<std::byte>& p, std::size_t i, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) {
        v = v << 8 | std::to_integer<std::uint64_t>(p[i + k]);
    }
    return v;
}

TEST(CmProto, EveryMessageTypeRoundTripsAsAPayload) {
    for (cm_type type : all_types) {
        const std::size_t most = info_of(type).max_private_data;
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, most}) {
            if (n > most) {
                continue;
            }
            for (bool v6 : {false, true}) {
                const cm_message m = sample_message(type, n, v6);
                const auto payload = payload_of(m);
                EXPECT_EQ(payload.size(), cm_mad_size);
                const cm_decode_result r = decode_cm_payload(payload);
                ASSERT_TRUE(r.ok()) << cm_error_name(r.error);
                EXPECT_EQ(r.message, m) << info_of(type).name << " with " << n << " bytes";
            }
        }
    }
}

TEST(CmProto, MessagesTravelAsUdSendsToQp1) {
    const cm_message m = sample_message(cm_type::request, 56);
    std::vector<std::byte> frame(cm_frame_size);
    const cm_encode_result e = encode_cm_frame(m, 0x123, test_flow(), frame);
    ASSERT_TRUE(e.ok()) << cm_error_name(e.error);
    EXPECT_EQ(e.size, cm_frame_size);
    EXPECT_EQ(e.size, 280u);  // BTH 12 + DETH 8 + MAD 256 + ICRC 4

    const decode_result d = decode_frame(frame, test_flow());
    ASSERT_TRUE(d.ok()) << decode_error_name(d.error);
    EXPECT_EQ(d.packet.headers.bth.op, opcode::ud_send_only);
    EXPECT_EQ(d.packet.headers.bth.dest_qp, gsi_qp);
    EXPECT_EQ(d.packet.headers.bth.psn, 0x123u);
    EXPECT_EQ(d.packet.headers.bth.pkey, default_pkey);
    EXPECT_EQ(d.packet.headers.deth.qkey, gsi_qkey);
    EXPECT_EQ(d.packet.headers.deth.qkey, 0x80010000u);
    EXPECT_EQ(d.packet.headers.deth.src_qp, gsi_qp);
    EXPECT_EQ(d.packet.payload.size(), cm_mad_size);
    ASSERT_TRUE(is_cm_packet(d.packet));
    const cm_decode_result c = decode_cm(d.packet);
    ASSERT_TRUE(c.ok()) << cm_error_name(c.error);
    EXPECT_EQ(c.message, m);

    std::vector<std::byte> small(cm_frame_size - 1);
    EXPECT_EQ(encode_cm_frame(m, 0, test_flow(), small).error, cm_error::no_room);
}

// ---------------------------------------------------------------------------------------------
// Every field at its IBA offset (IBA vol. 1 13.4.3 and 12.6; offsets from the MAD's start)

void expect_mad_header(const std::vector<std::byte>& p, std::uint16_t attribute,
                       std::uint32_t private_data_length) {
    EXPECT_EQ(at(p, 0), 1);      // base version
    EXPECT_EQ(at(p, 1), 0x07);   // Communication Management
    EXPECT_EQ(at(p, 2), 2);      // class version
    EXPECT_EQ(at(p, 3), 0x03);   // Send
    EXPECT_EQ(be(p, 4, 4), 0u);  // status, class specific
    EXPECT_EQ(be(p, 8, 8), 0x1122334455667788u);
    EXPECT_EQ(be(p, 16, 2), attribute);
    EXPECT_EQ(be(p, 18, 2), 0u);
    EXPECT_EQ(be(p, 20, 4), private_data_length);  // attribute modifier
}

TEST(CmProto, RequestFieldsSitAtTheirIbaOffsets) {
    const auto p = payload_of(sample_message(cm_type::request, 3));
    expect_mad_header(p, 0x0010, 3);
    EXPECT_EQ(be(p, 24, 4), 0x01020304u);          // local communication id
    EXPECT_EQ(be(p, 28, 4), 0u);                   // reserved
    EXPECT_EQ(be(p, 32, 8), 0x00000000010601BDu);  // IP CM service id: TCP, port 445
    EXPECT_EQ(be(p, 40, 8), 0x02007FFFFE000001u);  // local CA GUID
    EXPECT_EQ(be(p, 52, 4), 0u);                   // local Q_Key (RC)
    EXPECT_EQ(be(p, 56, 3), 0xABCDEFu);            // local QPN
    EXPECT_EQ(at(p, 59), 16);                      // responder resources
    EXPECT_EQ(be(p, 60, 3), 0u);                   // local EECN
    EXPECT_EQ(at(p, 63), 8);                       // initiator depth
    EXPECT_EQ(at(p, 67), 16 << 3);                 // remote CM timeout 16, RC, no E2E
    EXPECT_EQ(be(p, 68, 3), 0xFEDCBAu);            // starting PSN
    EXPECT_EQ(at(p, 71), 16 << 3 | 7);             // local CM timeout 16, retry count 7
    EXPECT_EQ(be(p, 72, 2), 0xFFFFu);              // P_Key
    EXPECT_EQ(at(p, 74), 5 << 4 | 6);              // MTU 4096, RNR retry count 6
    EXPECT_EQ(at(p, 75), 3 << 4 | 0x08);           // max CM retries 3, SRQ
    EXPECT_EQ(be(p, 76, 4), 0xFFFFFFFFu);          // primary LIDs: permissive
    EXPECT_EQ(be(p, 80, 8), 0u);                   // local GID ::ffff:127.0.0.1
    EXPECT_EQ(be(p, 88, 8), 0x0000FFFF7F000001u);
    EXPECT_EQ(be(p, 104, 8), 0x0000FFFF7F000002u);  // remote GID ::ffff:127.0.0.2
    EXPECT_EQ(at(p, 117), 64);                      // hop limit
    EXPECT_EQ(at(p, 119), 12 << 3);                 // local ACK timeout
    EXPECT_EQ(be(p, 120, 8), 0u);                   // no alternate path
    EXPECT_EQ(at(p, 164), 0x00);                    // IP CM version 0.0
    EXPECT_EQ(at(p, 165), 0x40);                    // IPv4
    EXPECT_EQ(be(p, 166, 2), 49'152u);              // source port
    EXPECT_EQ(be(p, 168, 8), 0u);                   // IPv4 source after 12 zero bytes
    EXPECT_EQ(be(p, 176, 8), 0x000000007F000001u);
    EXPECT_EQ(be(p, 192, 4), 0u);
    EXPECT_EQ(be(p, 196, 4), 0x7F000002u);  // destination
    EXPECT_EQ(at(p, 200), 0x33);            // consumer's private data
    EXPECT_EQ(at(p, 202), 0x33 + 14);
    EXPECT_EQ(at(p, 203), 0);  // the rest of the field is zero
    EXPECT_EQ(at(p, 255), 0);
}

TEST(CmProto, ReplyFieldsSitAtTheirIbaOffsets) {
    const auto p = payload_of(sample_message(cm_type::reply, 196));
    expect_mad_header(p, 0x0013, 196);
    EXPECT_EQ(be(p, 24, 4), 0x01020304u);          // local communication id
    EXPECT_EQ(be(p, 28, 4), 0x0A0B0C0Du);          // remote communication id
    EXPECT_EQ(be(p, 32, 4), 0u);                   // local Q_Key
    EXPECT_EQ(be(p, 36, 3), 0xABCDEFu);            // local QPN
    EXPECT_EQ(be(p, 44, 3), 0xFEDCBAu);            // starting PSN
    EXPECT_EQ(at(p, 48), 16);                      // responder resources
    EXPECT_EQ(at(p, 49), 8);                       // initiator depth
    EXPECT_EQ(at(p, 51), 6 << 5 | 0x10);           // RNR retry count 6, SRQ
    EXPECT_EQ(be(p, 52, 8), 0x02007FFFFE000001u);  // local CA GUID
    EXPECT_EQ(at(p, 60), 0x33);                    // private data: the whole 196 bytes
    EXPECT_EQ(at(p, 255), (0x33 + 195 * 7) & 0xFF);
}

TEST(CmProto, RejectFieldsSitAtTheirIbaOffsets) {
    const auto p = payload_of(sample_message(cm_type::reject, 148));
    expect_mad_header(p, 0x0012, 148);
    EXPECT_EQ(be(p, 24, 4), 0x01020304u);
    EXPECT_EQ(be(p, 28, 4), 0x0A0B0C0Du);
    EXPECT_EQ(at(p, 32), 1 << 6);  // message rejected: REP
    EXPECT_EQ(at(p, 33), 0);       // no ARI
    EXPECT_EQ(be(p, 34, 2), 28u);  // reason: consumer reject
    EXPECT_EQ(be(p, 36, 8), 0u);   // ARI
    EXPECT_EQ(at(p, 108), 0x33);   // private data
    EXPECT_EQ(at(p, 255), (0x33 + 147 * 7) & 0xFF);
}

TEST(CmProto, ReadyToUseDisconnectRequestAndReplyFieldsSitAtTheirIbaOffsets) {
    const auto rtu = payload_of(sample_message(cm_type::ready_to_use));
    expect_mad_header(rtu, 0x0014, 0);
    EXPECT_EQ(be(rtu, 24, 4), 0x01020304u);
    EXPECT_EQ(be(rtu, 28, 4), 0x0A0B0C0Du);
    EXPECT_EQ(be(rtu, 32, 8), 0u);

    const auto dreq = payload_of(sample_message(cm_type::disconnect_request));
    expect_mad_header(dreq, 0x0015, 0);
    EXPECT_EQ(be(dreq, 24, 4), 0x01020304u);
    EXPECT_EQ(be(dreq, 28, 4), 0x0A0B0C0Du);
    EXPECT_EQ(be(dreq, 32, 3), 0x123456u);  // remote QPN
    EXPECT_EQ(at(dreq, 35), 0);

    const auto drep = payload_of(sample_message(cm_type::disconnect_reply));
    expect_mad_header(drep, 0x0016, 0);
    EXPECT_EQ(be(drep, 24, 4), 0x01020304u);
    EXPECT_EQ(be(drep, 28, 4), 0x0A0B0C0Du);
}

TEST(CmProto, AnIpv6RequestCarriesItsAddressesWhole) {
    const auto p = payload_of(sample_message(cm_type::request, 0, true));
    EXPECT_EQ(at(p, 165), 0x60);
    EXPECT_EQ(be(p, 80, 8), 0xFE80000000000000u);  // local GID: the address itself
    EXPECT_EQ(be(p, 88, 8), 0x11u);
    EXPECT_EQ(be(p, 168, 8), 0xFE80000000000000u);  // IP CM source
    EXPECT_EQ(be(p, 176, 8), 0x11u);
    EXPECT_EQ(be(p, 192, 8), 0x22u);  // IP CM destination, low half
}

TEST(CmProto, AttributeIdsNameTheTypes) {
    EXPECT_EQ(cm_type_of_attribute(0x0010), cm_type::request);
    EXPECT_EQ(cm_type_of_attribute(0x0012), cm_type::reject);
    EXPECT_EQ(cm_type_of_attribute(0x0013), cm_type::reply);
    EXPECT_EQ(cm_type_of_attribute(0x0014), cm_type::ready_to_use);
    EXPECT_EQ(cm_type_of_attribute(0x0015), cm_type::disconnect_request);
    EXPECT_EQ(cm_type_of_attribute(0x0016), cm_type::disconnect_reply);
    for (std::uint16_t other : {0x0000, 0x0001, 0x0011, 0x0017, 0x0019, 0xFFFF}) {
        EXPECT_EQ(cm_type_of_attribute(other), cm_type::invalid) << other;
    }
    EXPECT_EQ(cm_reject_reason_name(28), "consumer");
    EXPECT_EQ(cm_reject_reason_name(8), "invalid_service_id");
    EXPECT_EQ(cm_reject_reason_name(1), "other");
}

TEST(CmProto, GuidsMtuAndTimeoutCodesFollowIba) {
    EXPECT_EQ(ca_guid_for(ip_address::v4(10, 0, 0, 1)), 0x02000AFFFE000001u);
    EXPECT_EQ(iba_mtu_code(256), 1);
    EXPECT_EQ(iba_mtu_code(1000), 2);
    EXPECT_EQ(iba_mtu_code(1024), 3);
    EXPECT_EQ(iba_mtu_code(4096), 5);
    EXPECT_EQ(iba_mtu_code(9000), 5);
    EXPECT_EQ(iba_timeout_code(0), 0);
    EXPECT_EQ(iba_timeout_code(1), 1);  // never 0 for a timer that exists
    EXPECT_EQ(iba_timeout_code(timing::microseconds(16000)), 12);  // 16.8 ms
    EXPECT_EQ(iba_timeout_code(timing::milliseconds(250)), 16);    // 268 ms
    EXPECT_EQ(iba_timeout_code(timing::seconds(100000)), 31);
}

// ---------------------------------------------------------------------------------------------
// Encoding refuses what the wire cannot carry

TEST(CmProto, EncodeRefusesInvalidMessages) {
    std::vector<std::byte> out(cm_mad_size);
    cm_message m = sample_message(cm_type::request);
    m.type = cm_type::invalid;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_type);
    m.type = static_cast<cm_type>(7);
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_type);

    // Private data beyond what the type carries: the REQ's 56 consumer bytes, the REJ's 148,
    // none on an RTU.
    for (cm_type type : all_types) {
        m = sample_message(type);
        m.private_data_length = static_cast<std::uint16_t>(info_of(type).max_private_data + 1);
        EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_private_data)
            << info_of(type).name;
    }

    const auto out_of_range = [&](auto&& change) {
        cm_message bad = sample_message(cm_type::request);
        change(bad);
        return encode_cm_payload(bad, out).error;
    };
    EXPECT_EQ(out_of_range([](cm_message& x) { x.qp_number = 0x100'0000; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.start_psn = 0x100'0000; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.inbound_read_limit = 256; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.outbound_read_limit = 256; }),
              cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.rnr_retry_count = 8; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.retry_count = 8; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.cm_response_timeout = 32; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.local_ack_timeout = 32; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.path_mtu = 16; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.max_cm_retries = 16; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.dst_ip.v6 = true; }), cm_error::bad_field);
    EXPECT_EQ(out_of_range([](cm_message& x) { x.rejected_message = static_cast<cm_rejected>(3); }),
              cm_error::bad_field);

    m = sample_message(cm_type::request, 10);
    std::vector<std::byte> small(cm_mad_size - 1);
    EXPECT_EQ(encode_cm_payload(m, small).error, cm_error::no_room);
    EXPECT_FALSE(m.set_private_data(pattern(cm_max_private_data + 1)));
    EXPECT_EQ(m.private_data_length, 10);
}

// ---------------------------------------------------------------------------------------------
// Malformed MADs

TEST(CmProto, ShortAndLongMadsAreRefused) {
    const auto good = payload_of(sample_message(cm_type::request, 8));
    for (std::size_t n = 0; n < cm_mad_size; ++n) {
        const std::vector<std::byte> cut(good.begin(),
                                         good.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(error_of(cut), cm_error::truncated) << n;
    }
    auto longer = good;
    longer.push_back(std::byte{0});
    EXPECT_EQ(error_of(longer), cm_error::bad_length);
}

TEST(CmProto, ForeignMadsAreRefused) {
    const auto good = payload_of(sample_message(cm_type::request));
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        auto bad = good;
        bad[i] ^= std::byte{0x40};
        EXPECT_EQ(error_of(bad), cm_error::bad_mad) << i;
    }
    auto vendor = good;
    vendor[1] = std::byte{0x0F};  // a vendor class, as ndksim's CM used before
    EXPECT_EQ(error_of(vendor), cm_error::bad_mad);
    for (std::uint8_t version : {0, 1, 3}) {
        auto bad = good;
        bad[2] = std::byte{version};
        EXPECT_EQ(error_of(bad), cm_error::bad_version) << int{version};
    }
}

TEST(CmProto, AttributesNdksimDoesNotTakeAreRefused) {
    const auto good = payload_of(sample_message(cm_type::request));
    // ClassPortInfo, MRA, SIDR_REQ, LAP, and values no CM defines.
    for (std::uint16_t attribute : {0x0000, 0x0001, 0x0011, 0x0017, 0x0019, 0x0100, 0xFFFF}) {
        auto bad = good;
        store_be<2>(bad.data() + offsetof(mad_header_layout, attribute_id), attribute);
        EXPECT_EQ(error_of(bad), cm_error::bad_type) << attribute;
    }
}

TEST(CmProto, PrivateDataLengthIsCheckedAgainstTheType) {
    for (cm_type type : all_types) {
        auto bad = payload_of(sample_message(type));
        const std::size_t too_long = info_of(type).max_private_data + 1;
        store_be<4>(bad.data() + offsetof(mad_header_layout, attribute_modifier), too_long);
        EXPECT_EQ(error_of(bad), cm_error::bad_private_data) << info_of(type).name;
        store_be<4>(bad.data() + offsetof(mad_header_layout, attribute_modifier), 0xFFFFFFFF);
        EXPECT_EQ(error_of(bad), cm_error::bad_private_data) << info_of(type).name;
    }
}

TEST(CmProto, RequestsMustBeIpCmRequestsForReliableConnections) {
    const auto good = payload_of(sample_message(cm_type::request));
    ASSERT_EQ(error_of(good), cm_error::none);
    const auto refused = [&](std::size_t offset, std::uint8_t value) {
        auto bad = good;
        bad[offset] = std::byte{value};
        return error_of(bad);
    };
    constexpr std::size_t sid = offsetof(cm_req_layout, service_id);
    EXPECT_EQ(refused(sid + 4, 0x02), cm_error::bad_field);  // not the IP CM prefix
    EXPECT_EQ(refused(sid + 0, 0x01), cm_error::bad_field);
    EXPECT_EQ(refused(sid + 5, 0x11), cm_error::bad_field);  // UDP port space
    EXPECT_EQ(refused(offsetof(cm_req_layout, remote_timeout_tst_e2e), 16 << 3 | 0x06),
              cm_error::bad_field);  // transport service type UD
    EXPECT_EQ(refused(cm_req_ip_cm_offset, 0x10), cm_error::bad_field);       // IP CM 1.0
    EXPECT_EQ(refused(cm_req_ip_cm_offset + 1, 0x50), cm_error::bad_field);   // IP version 5
    EXPECT_EQ(refused(cm_req_ip_cm_offset + 1, 0x60), cm_error::bad_field);   // v6, v4 GIDs
    EXPECT_EQ(refused(cm_req_ip_cm_offset + 4, 0x01), cm_error::bad_field);   // v4 pad not 0
    EXPECT_EQ(refused(cm_req_ip_cm_offset + 35, 0x03), cm_error::bad_field);  // != remote GID
    EXPECT_EQ(refused(offsetof(cm_req_layout, primary_local_gid) + 15, 0x09),
              cm_error::bad_field);  // local GID != IP CM source
    EXPECT_EQ(refused(offsetof(cm_req_layout, primary_local_gid) + 10, 0x00),
              cm_error::bad_field);  // not v4-mapped
}

TEST(CmProto, RejectsMustNameWhatTheyReject) {
    const auto good = payload_of(sample_message(cm_type::reject));
    auto rejected = good;
    rejected[offsetof(cm_rej_layout, message_rejected)] = std::byte{3 << 6};
    EXPECT_EQ(error_of(rejected), cm_error::bad_field);
    auto ari = good;
    ari[offsetof(cm_rej_layout, reject_info_length)] = std::byte{73 << 1};
    EXPECT_EQ(error_of(ari), cm_error::bad_field);
    ari[offsetof(cm_rej_layout, reject_info_length)] = std::byte{72 << 1};
    EXPECT_EQ(error_of(ari), cm_error::none);
    // Any reason decodes: it is the sender's word, not ours to check.
    auto reason = good;
    store_be<2>(reason.data() + offsetof(cm_rej_layout, reason), 0xABCD);
    const cm_decode_result r = decode_cm_payload(reason);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.message.reject_reason, 0xABCD);
}

}  // namespace
}  // namespace ndksim::wire
