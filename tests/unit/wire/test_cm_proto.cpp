// Connection-management messages: round trips as payloads and as UD frames to QP 1, the
// documented offsets, and every malformed payload with its exact error.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire/cm_proto.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

using test::pattern;
using test::test_flow;

cm_message sample_message(cm_type type, std::size_t private_bytes = 0, bool v6 = false) {
    cm_message m;
    m.type = type;
    m.local_connection_id = 0x01020304;
    m.remote_connection_id = 0x0A0B0C0D;
    if (v6) {
        m.src_ip = ip_address::v6_from({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11});
        m.dst_ip = ip_address::v6_from({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x22});
    } else {
        m.src_ip = ip_address::v4(127, 0, 0, 1);
        m.dst_ip = ip_address::v4(127, 0, 0, 2);
    }
    m.src_port = 49'152;
    m.dst_port = 445;
    m.qp_number = 0x00ABCDEF;
    m.start_psn = 0x00FEDCBA;
    m.inbound_read_limit = 16;
    m.outbound_read_limit = 8;
    m.reject_reason = type == cm_type::reject ? 0xC0000236u : 0u;
    EXPECT_TRUE(m.set_private_data(pattern(private_bytes, 0x33)));
    return m;
}

std::vector<std::byte> payload_of(const cm_message& m) {
    std::vector<std::byte> out(cm_max_payload);
    const cm_encode_result r = encode_cm_payload(m, out);
    EXPECT_TRUE(r.ok()) << cm_error_name(r.error);
    out.resize(r.size);
    return out;
}

cm_error error_of(const std::vector<std::byte>& payload) {
    return decode_cm_payload(payload).error;
}

const cm_type all_types[] = {cm_type::request,
                             cm_type::reply,
                             cm_type::ready_to_use,
                             cm_type::reject,
                             cm_type::disconnect_request,
                             cm_type::disconnect_reply};

TEST(CmProto, EveryMessageTypeRoundTripsAsAPayload) {
    for (cm_type type : all_types) {
        const bool pd = cm_type_lookup(static_cast<std::uint32_t>(type)).carries_private_data;
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, cm_max_private_data}) {
            if (n != 0 && !pd) {
                continue;
            }
            for (bool v6 : {false, true}) {
                const cm_message m = sample_message(type, n, v6);
                const auto payload = payload_of(m);
                EXPECT_EQ(payload.size(), cm_header_size_v1 + n);
                const cm_decode_result r = decode_cm_payload(payload);
                ASSERT_TRUE(r.ok()) << cm_error_name(r.error);
                EXPECT_EQ(r.message, m) << cm_type_lookup(static_cast<std::uint32_t>(type)).name;
            }
        }
    }
}

TEST(CmProto, MessagesTravelAsUdSendsToQp1) {
    const cm_message m = sample_message(cm_type::request, 56);
    std::vector<std::byte> frame(cm_max_frame_size);
    const cm_encode_result e = encode_cm_frame(m, 0x123, test_flow(), frame);
    ASSERT_TRUE(e.ok()) << cm_error_name(e.error);
    frame.resize(e.size);

    const decode_result d = decode_frame(frame, test_flow());
    ASSERT_TRUE(d.ok()) << decode_error_name(d.error);
    EXPECT_EQ(d.packet.headers.bth.op, opcode::ud_send_only);
    EXPECT_EQ(d.packet.headers.bth.dest_qp, gsi_qp);
    EXPECT_EQ(d.packet.headers.bth.psn, 0x123u);
    EXPECT_EQ(d.packet.headers.bth.pkey, default_pkey);
    EXPECT_EQ(d.packet.headers.deth.qkey, gsi_qkey);
    EXPECT_EQ(d.packet.headers.deth.src_qp, gsi_qp);
    ASSERT_TRUE(is_cm_packet(d.packet));
    const cm_decode_result c = decode_cm(d.packet);
    ASSERT_TRUE(c.ok()) << cm_error_name(c.error);
    EXPECT_EQ(c.message, m);
}

TEST(CmProto, LargestMessageFitsTheLargestFrame) {
    const cm_message m = sample_message(cm_type::reply, cm_max_private_data, true);
    std::vector<std::byte> frame(cm_max_frame_size);
    const cm_encode_result e = encode_cm_frame(m, psn_mask, test_flow(), frame);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e.size, cm_max_frame_size);
    std::vector<std::byte> small(cm_max_frame_size - 1);
    EXPECT_EQ(encode_cm_frame(m, 0, test_flow(), small).error, cm_error::no_room);
}

TEST(CmProto, FieldsSitAtTheDocumentedOffsets) {
    const auto p = payload_of(sample_message(cm_type::reject, 3));
    const auto at = [&](std::size_t i) { return std::to_integer<int>(p[i]); };
    EXPECT_EQ(at(0), 1);      // MAD base version
    EXPECT_EQ(at(1), 0x0F);   // management class
    EXPECT_EQ(at(2), 1);      // CM version
    EXPECT_EQ(at(3), 0x03);   // method Send
    EXPECT_EQ(at(15), 0x04);  // transaction id = local connection id (low byte)
    EXPECT_EQ(at(16), 0);     // attribute id = type
    EXPECT_EQ(at(17), 4);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(p.data()) + 24, 4), "NDKC");
    EXPECT_EQ(at(28), 0);  // header size 100
    EXPECT_EQ(at(29), 100);
    EXPECT_EQ(at(30), 0);     // flags: IPv4
    EXPECT_EQ(at(32), 0x01);  // local connection id
    EXPECT_EQ(at(36), 0x0A);  // remote connection id
    EXPECT_EQ(at(40), 127);   // source IP
    EXPECT_EQ(at(43), 1);
    EXPECT_EQ(at(44), 0);     // unused IPv6 bytes are zero
    EXPECT_EQ(at(59), 2);     // destination IP
    EXPECT_EQ(at(72), 0xC0);  // source port 49152
    EXPECT_EQ(at(75), 445 & 0xFF);
    EXPECT_EQ(at(77), 0xAB);  // QP number
    EXPECT_EQ(at(81), 0xFE);  // start PSN
    EXPECT_EQ(at(87), 16);    // inbound read limit
    EXPECT_EQ(at(91), 8);     // outbound read limit
    EXPECT_EQ(at(92), 0xC0);  // reject reason
    EXPECT_EQ(at(97), 3);     // private data length
    EXPECT_EQ(at(100), 0x33);
}

TEST(CmProto, EncodeRefusesInvalidMessages) {
    std::vector<std::byte> out(cm_max_payload);
    cm_message m = sample_message(cm_type::request);
    m.type = cm_type::invalid;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_type);
    m.type = static_cast<cm_type>(7);
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_type);

    m = sample_message(cm_type::ready_to_use);
    m.private_data_length = 1;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_private_data);
    m = sample_message(cm_type::request);
    m.private_data_length = cm_max_private_data + 1;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_private_data);

    m = sample_message(cm_type::request);
    m.qp_number = 0x100'0000;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_field);
    m = sample_message(cm_type::request);
    m.start_psn = 0x100'0000;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_field);
    m = sample_message(cm_type::request);
    m.dst_ip.v6 = true;
    EXPECT_EQ(encode_cm_payload(m, out).error, cm_error::bad_field);

    m = sample_message(cm_type::request, 10);
    std::vector<std::byte> small(cm_header_size_v1 + 9);
    EXPECT_EQ(encode_cm_payload(m, small).error, cm_error::no_room);
    EXPECT_FALSE(m.set_private_data(pattern(cm_max_private_data + 1)));
    EXPECT_EQ(m.private_data_length, 10);
}

// ---------------------------------------------------------------------------------------------
// Malformed payloads

TEST(CmProto, ShortPayloadsAreTruncated) {
    const auto good = payload_of(sample_message(cm_type::request, 8));
    for (std::size_t n = 0; n < cm_header_size_v1; ++n) {
        const std::vector<std::byte> cut(good.begin(),
                                         good.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(error_of(cut), cm_error::truncated) << n;
    }
    // Longer than the fixed header but shorter than header + private data.
    for (std::size_t n = cm_header_size_v1; n < good.size(); ++n) {
        const std::vector<std::byte> cut(good.begin(),
                                         good.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(error_of(cut), cm_error::bad_length) << n;
    }
}

TEST(CmProto, ForeignMadsAreRefused) {
    const auto good = payload_of(sample_message(cm_type::request));
    for (std::size_t i :
         {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{24}, std::size_t{27}}) {
        auto bad = good;
        bad[i] ^= std::byte{0x40};
        EXPECT_EQ(error_of(bad), cm_error::bad_mad) << i;
    }
    auto version = good;
    version[2] = std::byte{2};
    EXPECT_EQ(error_of(version), cm_error::bad_version);
}

TEST(CmProto, HeaderSizeIsChecked) {
    const auto good = payload_of(sample_message(cm_type::request));
    for (std::uint16_t size : {0, 96, 98, 102, 260, 0xFFFF}) {
        auto bad = good;
        store_be<2>(bad.data() + offsetof(cm_layout, header_size), size);
        EXPECT_EQ(error_of(bad), cm_error::bad_header_size) << size;
    }
    // A larger header from a later revision is skipped over.
    auto longer = good;
    longer.insert(longer.end(), 8, std::byte{0x77});
    store_be<2>(longer.data() + offsetof(cm_layout, header_size), 108);
    const cm_decode_result r = decode_cm_payload(longer);
    ASSERT_TRUE(r.ok()) << cm_error_name(r.error);
    EXPECT_EQ(r.message, sample_message(cm_type::request));
    // ... but never beyond the payload.
    store_be<2>(longer.data() + offsetof(cm_layout, header_size), 112);
    EXPECT_EQ(error_of(longer), cm_error::bad_header_size);
}

TEST(CmProto, UnknownTypesAreRefused) {
    const auto good = payload_of(sample_message(cm_type::request));
    for (std::uint16_t type : {0, 7, 0x100, 0xFFFF}) {
        auto bad = good;
        store_be<2>(bad.data() + offsetof(cm_layout, attribute_id), type);
        EXPECT_EQ(error_of(bad), cm_error::bad_type) << type;
    }
}

TEST(CmProto, PrivateDataLengthIsChecked) {
    auto big = payload_of(sample_message(cm_type::request, cm_max_private_data));
    big.push_back(std::byte{0});
    store_be<2>(big.data() + offsetof(cm_layout, private_data_length), cm_max_private_data + 1);
    EXPECT_EQ(error_of(big), cm_error::bad_private_data);

    auto on_disconnect = payload_of(sample_message(cm_type::disconnect_request));
    on_disconnect.push_back(std::byte{1});
    store_be<2>(on_disconnect.data() + offsetof(cm_layout, private_data_length), 1);
    EXPECT_EQ(error_of(on_disconnect), cm_error::bad_private_data);

    auto extra = payload_of(sample_message(cm_type::reply, 4));
    extra.push_back(std::byte{0});
    EXPECT_EQ(error_of(extra), cm_error::bad_length);
}

TEST(CmProto, FieldRangesAreChecked) {
    const auto good = payload_of(sample_message(cm_type::reply));
    auto flags = good;
    flags[offsetof(cm_layout, flags)] = std::byte{0x02};
    EXPECT_EQ(error_of(flags), cm_error::bad_field);
    auto qpn = good;
    qpn[offsetof(cm_layout, qp_number)] = std::byte{0x01};
    EXPECT_EQ(error_of(qpn), cm_error::bad_field);
    auto psn = good;
    psn[offsetof(cm_layout, start_psn)] = std::byte{0x80};
    EXPECT_EQ(error_of(psn), cm_error::bad_field);
}

TEST(CmProto, OnlyUdSendsToQp1WithTheGsiQkeyAreCm) {
    const auto payload = payload_of(sample_message(cm_type::request));
    const auto decode_as = [&](const packet_headers& h) {
        const auto frame = test::make_frame(h, payload);
        const decode_result d = decode_frame(frame, test_flow());
        EXPECT_TRUE(d.ok());
        return decode_cm(d.packet).error;
    };
    packet_headers h;
    h.bth.op = opcode::ud_send_only;
    h.bth.dest_qp = gsi_qp;
    h.deth = {gsi_qkey, gsi_qp};
    EXPECT_EQ(decode_as(h), cm_error::none);
    packet_headers other_qp = h;
    other_qp.bth.dest_qp = 2;
    EXPECT_EQ(decode_as(other_qp), cm_error::not_cm);
    packet_headers other_qkey = h;
    other_qkey.deth.qkey = 0x1234;
    EXPECT_EQ(decode_as(other_qkey), cm_error::not_cm);
    packet_headers rc = h;
    rc.bth.op = opcode::rc_send_only;
    EXPECT_EQ(decode_as(rc), cm_error::not_cm);
    packet_headers imm = h;
    imm.bth.op = opcode::ud_send_only_imm;
    EXPECT_EQ(decode_as(imm), cm_error::not_cm);
}

TEST(CmProto, ErrorAndTypeNames) {
    EXPECT_EQ(cm_error_name(cm_error::bad_private_data), "bad_private_data");
    EXPECT_EQ(cm_error_name(cm_error::no_room), "no_room");
    EXPECT_EQ(cm_error_name(static_cast<cm_error>(200)), "unknown");
    EXPECT_EQ(cm_type_lookup(3).name, "ready_to_use");
    EXPECT_FALSE(cm_type_lookup(99).valid);
}

}  // namespace
}  // namespace ndksim::wire
