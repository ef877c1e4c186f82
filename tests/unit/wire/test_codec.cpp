// SPDX-License-Identifier: MIT
// The packet codec: round trips, field boundaries, every decode error with its exact value,
// ICRC known answers, and a seeded mutation run (meant to run under ASan as well).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "wire/codec.hpp"
#include "wire/icrc.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

using test::allowed_payload;
using test::make_frame;
using test::pattern;
using test::reseal;
using test::sample_headers;
using test::test_flow;
using test::valid_opcodes;

std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
    std::vector<std::byte> out;
    for (int b : v) {
        out.push_back(static_cast<std::byte>(b));
    }
    return out;
}

std::vector<std::byte> hex(std::string_view s) {
    std::vector<std::byte> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(static_cast<std::byte>(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
    }
    return out;
}

decode_error decode_error_of(const std::vector<std::byte>& frame, const flow& f = test_flow()) {
    return decode_frame(frame, f).error;
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(Codec, EveryOpcodeRoundTripsWithAndWithoutPayload) {
    const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 63, 256, 1024, 4093, 4096};
    for (opcode op : valid_opcodes()) {
        for (std::size_t wanted : sizes) {
            const std::size_t n = allowed_payload(op, wanted);
            SCOPED_TRACE(std::string(opcode_name(static_cast<std::uint8_t>(op))) + " payload " +
                         std::to_string(n));
            const packet_headers h = sample_headers(op);
            const auto payload = pattern(n);
            const auto frame = make_frame(h, payload);
            ASSERT_FALSE(frame.empty());
            EXPECT_EQ(frame.size(), opcode_lookup(op).header_size + n + pad_for(n) + icrc_size);
            EXPECT_EQ(frame.size() % word_size, 0u);

            const decode_result r = decode_frame(frame, test_flow());
            ASSERT_TRUE(r.ok()) << decode_error_name(r.error);
            EXPECT_EQ(r.packet.headers, test::carried_only(h, n));
            EXPECT_EQ(r.packet.info, &opcode_lookup(op));
            EXPECT_EQ(r.packet.header_size, opcode_lookup(op).header_size);
            EXPECT_TRUE(std::equal(r.packet.payload.begin(), r.packet.payload.end(),
                                   payload.begin(), payload.end()));
        }
    }
}

TEST(Codec, TwoStepEncodeMatchesOneCall) {
    const packet_headers h = sample_headers(opcode::rc_write_only_imm);
    const auto payload = pattern(301);
    std::vector<std::byte> a(frame_capacity(4096)), b(frame_capacity(4096));

    const encode_result layout = encode_headers(h, payload.size(), a);
    ASSERT_TRUE(layout.ok());
    EXPECT_EQ(layout.header_size, 32u);
    EXPECT_EQ(layout.payload_size, 301u);
    EXPECT_EQ(layout.pad_size, 3u);
    std::copy(payload.begin(), payload.end(), layout.payload(a).begin());
    const std::size_t n = finish_frame(a, layout, test_flow());
    EXPECT_EQ(n, layout.frame_size);

    const encode_result one = encode_frame(h, payload, test_flow(), b);
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(one.frame_size, n);
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin()));
}

TEST(Codec, HeadersAreWrittenBigEndianAtTheirOffsets) {
    const auto frame = make_frame(sample_headers(opcode::rc_write_only), pattern(5));
    const auto want = bytes_of({
        0x0A, 0xB0, 0x81, 0x23, 0x00, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56,  // BTH
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,                          // RETH va
        0xA1, 0xB2, 0xC3, 0xD4, 0x00, 0x01, 0x02, 0x03,                          // rkey, len
    });
    ASSERT_GE(frame.size(), want.size());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), frame.begin()));
    // 5 payload bytes, then 3 zero pad bytes before the ICRC.
    for (std::size_t i = 28 + 5; i < 28 + 8; ++i) {
        EXPECT_EQ(frame[i], std::byte{0});
    }

    const auto imm = make_frame(sample_headers(opcode::rc_send_only_imm), {});
    EXPECT_EQ(imm[12], std::byte{0xDE});
    EXPECT_EQ(imm[15], std::byte{0xEF});
}

TEST(Codec, BthFlagsRoundTrip) {
    for (int bits = 0; bits < 32; ++bits) {
        packet_headers h = sample_headers(opcode::rc_send_last);
        h.bth.solicited = (bits & 1) != 0;
        h.bth.mig_req = (bits & 2) != 0;
        h.bth.fecn = (bits & 4) != 0;
        h.bth.becn = (bits & 8) != 0;
        h.bth.ack_req = (bits & 16) != 0;
        h.bth.pkey = static_cast<std::uint16_t>(0x7FFF + bits);
        const decode_result r = decode_frame(make_frame(h, pattern(7)), test_flow());
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.packet.headers.bth, test::carried_only(h, 7).bth) << bits;
    }
}

TEST(Codec, TwentyFourBitFieldsKeepTheirFullRange) {
    for (std::uint32_t v : {0u, 1u, 0x7F'FFFFu, 0x80'0000u, 0xFF'FFFFu}) {
        packet_headers h = sample_headers(opcode::ud_send_only);
        h.bth.dest_qp = v;
        h.bth.psn = v;
        h.deth.src_qp = v;
        decode_result r = decode_frame(make_frame(h, pattern(3)), test_flow());
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.packet.headers.bth.dest_qp, v);
        EXPECT_EQ(r.packet.headers.bth.psn, v);
        EXPECT_EQ(r.packet.headers.deth.src_qp, v);

        packet_headers a = sample_headers(opcode::rc_ack);
        a.aeth.msn = v;
        r = decode_frame(make_frame(a, {}), test_flow());
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.packet.headers.aeth.msn, v);
    }
}

TEST(Codec, PsnWrapsFromMaxToZero) {
    packet_headers h = sample_headers(opcode::rc_send_middle);
    h.bth.psn = 0xFF'FFFF;
    const auto last = make_frame(h, pattern(8));
    h.bth.psn = psn_add(h.bth.psn);
    const auto next = make_frame(h, pattern(8));
    const decode_result a = decode_frame(last, test_flow());
    const decode_result b = decode_frame(next, test_flow());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(b.packet.headers.bth.psn, 0u);
    EXPECT_EQ(psn_diff(b.packet.headers.bth.psn, a.packet.headers.bth.psn), 1);
}

TEST(Codec, WideFieldsKeepEveryBit) {
    packet_headers h = sample_headers(opcode::rc_cmp_swap);
    h.atomic_eth = {~0ull, ~0u, ~0ull, 0};
    decode_result r = decode_frame(make_frame(h, {}), test_flow());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.packet.headers.atomic_eth, h.atomic_eth);

    packet_headers w = sample_headers(opcode::rc_write_first);
    w.reth = {~0ull, ~0u, ~0u};
    r = decode_frame(make_frame(w, pattern(64)), test_flow());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.packet.headers.reth, w.reth);
}

TEST(Codec, Ipv6FlowRoundTrips) {
    flow f;
    f.src = ip_address::v6_from({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    f.dst = ip_address::v6_from({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
    const auto frame = make_frame(sample_headers(opcode::rc_read_response_only), pattern(99), f);
    EXPECT_TRUE(decode_frame(frame, f).ok());
    EXPECT_EQ(decode_error_of(frame, test_flow()), decode_error::bad_icrc);
}

// A socket receiver that verified the ICRC marks the frame, and the engine's decode skips that
// one check (frame::icrc_checked): a frame whose ICRC is wrong decodes only when told so, and
// every other check still runs.
TEST(Codec, AnIcrcCheckedElsewhereIsSkippedAndNothingElseIs) {
    auto frame = make_frame(sample_headers(opcode::rc_send_only), pattern(64));
    frame.back() ^= std::byte{0x01};  // the ICRC's last byte
    EXPECT_EQ(decode_frame(frame, test_flow()).error, decode_error::bad_icrc);
    const decode_result r = decode_frame(frame, test_flow(), true);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.packet.payload.size(), 64U);
    frame[0] = std::byte{0xFF};  // no such opcode: still refused
    EXPECT_EQ(decode_frame(frame, test_flow(), true).error, decode_error::bad_opcode);
}

// ---------------------------------------------------------------------------------------------
// Encode errors

TEST(Codec, EncodeRefusesBadInputAndWritesNothing) {
    std::vector<std::byte> buf(frame_capacity(4096), std::byte{0xEE});
    const auto untouched = [&] {
        return std::all_of(buf.begin(), buf.end(),
                           [](std::byte b) { return b == std::byte{0xEE}; });
    };

    packet_headers h = sample_headers(opcode::rc_send_only);
    h.bth.op = static_cast<opcode>(0x15);
    EXPECT_EQ(encode_headers(h, 0, buf).error, encode_error::bad_opcode);

    h = sample_headers(opcode::rc_send_only);
    h.bth.dest_qp = 0x100'0000;
    EXPECT_EQ(encode_headers(h, 0, buf).error, encode_error::bad_field);
    h = sample_headers(opcode::rc_send_only);
    h.bth.psn = 0x100'0000;
    EXPECT_EQ(encode_headers(h, 0, buf).error, encode_error::bad_field);
    h = sample_headers(opcode::ud_send_only);
    h.deth.src_qp = 0x100'0000;
    EXPECT_EQ(encode_headers(h, 0, buf).error, encode_error::bad_field);
    h = sample_headers(opcode::rc_ack);
    h.aeth.msn = 0x100'0000;
    EXPECT_EQ(encode_headers(h, 0, buf).error, encode_error::bad_field);

    EXPECT_EQ(encode_headers(sample_headers(opcode::rc_ack), 1, buf).error,
              encode_error::bad_payload);
    EXPECT_EQ(encode_headers(sample_headers(opcode::rc_read_request), 4, buf).error,
              encode_error::bad_payload);
    EXPECT_EQ(encode_headers(sample_headers(opcode::rc_write_middle), 1022, buf).error,
              encode_error::bad_payload);
    EXPECT_EQ(encode_headers(sample_headers(opcode::rc_send_first), 1023, buf).error,
              encode_error::bad_payload);
    EXPECT_TRUE(untouched());

    // Fields of headers the opcode does not carry are not checked.
    h = sample_headers(opcode::rc_send_only);
    h.deth.src_qp = 0x100'0000;
    EXPECT_TRUE(encode_headers(h, 0, buf).ok());
}

TEST(Codec, EncodeNeedsRoomForTheWholeFrame) {
    const packet_headers h = sample_headers(opcode::rc_write_only);
    const std::size_t needed = 28 + 10 + 2 + 4;
    std::vector<std::byte> small(needed - 1, std::byte{0xEE});
    EXPECT_EQ(encode_headers(h, 10, small).error, encode_error::no_room);
    EXPECT_TRUE(
        std::all_of(small.begin(), small.end(), [](std::byte b) { return b == std::byte{0xEE}; }));
    std::vector<std::byte> exact(needed);
    const encode_result r = encode_headers(h, 10, exact);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.frame_size, needed);
    EXPECT_EQ(encode_headers(h, ~std::size_t{0}, exact).error, encode_error::no_room);
}

TEST(Codec, FramesStopAtTheIpv4DatagramLimit) {
    std::vector<std::byte> big(max_frame_size + 16);
    const packet_headers h = sample_headers(opcode::rc_send_only);
    const encode_result fits = encode_headers(h, max_frame_size - 19, big);  // 65488 + 16
    ASSERT_TRUE(fits.ok());
    EXPECT_EQ(fits.frame_size, 65'504u);
    EXPECT_EQ(encode_headers(h, max_frame_size - 18, big).error, encode_error::no_room);

    std::vector<std::byte> frame(fits.frame_size);
    const auto payload = pattern(fits.payload_size);
    ASSERT_TRUE(encode_frame(h, payload, test_flow(), frame).ok());
    EXPECT_TRUE(decode_frame(frame, test_flow()).ok());

    std::vector<std::byte> too_long(65'508);
    std::copy(frame.begin(), frame.begin() + 12, too_long.begin());
    EXPECT_EQ(decode_error_of(too_long), decode_error::bad_length);
}

TEST(Codec, FinishFrameRefusesAFailedOrForeignLayout) {
    std::vector<std::byte> buf(64);
    encode_result bad;
    bad.error = encode_error::no_room;
    EXPECT_EQ(finish_frame(buf, bad, test_flow()), 0u);

    const encode_result ok = encode_headers(sample_headers(opcode::rc_send_only), 40, buf);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(finish_frame(std::span(buf).first(ok.frame_size - 1), ok, test_flow()), 0u);
    encode_result forged = ok;
    forged.payload_size += 4;
    EXPECT_EQ(finish_frame(buf, forged, test_flow()), 0u);
}

TEST(Codec, ErrorNamesForLogsAndCounters) {
    const std::array<std::string_view, decode_error_count> names = {
        "none", "truncated", "bad_version", "bad_opcode", "bad_length", "bad_pad", "bad_icrc"};
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(decode_error_name(static_cast<decode_error>(i)), names[i]);
    }
    EXPECT_EQ(decode_error_name(static_cast<decode_error>(99)), "unknown");
    EXPECT_EQ(encode_error_name(encode_error::bad_payload), "bad_payload");
}

// ---------------------------------------------------------------------------------------------
// Decode errors, each with its exact value

TEST(Codec, EveryLengthBelowABthIsTruncated) {
    const auto frame = make_frame(sample_headers(opcode::rc_send_only), pattern(20));
    for (std::size_t n = 0; n < bth_size; ++n) {
        const std::vector<std::byte> cut(frame.begin(),
                                         frame.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(decode_error_of(cut), decode_error::truncated) << n;
    }
    EXPECT_EQ(decode_frame({}, test_flow()).error, decode_error::truncated);
}

// The error a prefix of a valid frame must produce, derived from the check order.
decode_error expected_for_prefix(const std::vector<std::byte>& frame, std::size_t n) {
    const opcode_info& info = opcode_lookup(std::to_integer<std::uint8_t>(frame[0]));
    if (n < bth_size) {
        return decode_error::truncated;
    }
    if (n < info.header_size + icrc_size || n % word_size != 0) {
        return decode_error::bad_length;
    }
    const std::size_t body = n - info.header_size - icrc_size;
    const std::size_t pad = (std::to_integer<std::uint8_t>(frame[1]) >> 4) & 3;
    if (pad > body) {
        return decode_error::bad_pad;
    }
    return decode_error::bad_icrc;
}

TEST(Codec, EveryPrefixOfEveryOpcodeIsRefusedWithTheRightError) {
    for (opcode op : valid_opcodes()) {
        const std::size_t payload = allowed_payload(op, 45);
        const auto frame = make_frame(sample_headers(op), pattern(payload));
        for (std::size_t n = 0; n < frame.size(); ++n) {
            const std::vector<std::byte> cut(frame.begin(),
                                             frame.begin() + static_cast<std::ptrdiff_t>(n));
            EXPECT_EQ(decode_error_of(cut), expected_for_prefix(frame, n))
                << opcode_name(static_cast<std::uint8_t>(op)) << " cut to " << n;
        }
    }
}

TEST(Codec, TooShortForTheExtensionHeadersIsBadLength) {
    // A BTH that announces a RETH, cut inside the RETH.
    auto frame = make_frame(sample_headers(opcode::rc_read_request), {});
    frame.resize(24);
    reseal(frame);
    EXPECT_EQ(decode_error_of(frame), decode_error::bad_length);
}

TEST(Codec, AnyTransportVersionButZeroIsBadVersion) {
    for (std::uint8_t tver = 1; tver < 16; ++tver) {
        auto frame = make_frame(sample_headers(opcode::rc_send_only), pattern(8));
        frame[1] = (frame[1] & std::byte{0xF0}) | std::byte{tver};
        reseal(frame);
        EXPECT_EQ(decode_error_of(frame), decode_error::bad_version) << int{tver};
    }
}

TEST(Codec, EveryUnsupportedOpcodeIsBadOpcode) {
    for (std::uint32_t v = 0; v < 256; ++v) {
        if (opcode_lookup(v).valid) {
            continue;
        }
        auto frame = make_frame(sample_headers(opcode::rc_send_only), pattern(8));
        frame[0] = static_cast<std::byte>(v);
        reseal(frame);
        EXPECT_EQ(decode_error_of(frame), decode_error::bad_opcode) << v;
    }
}

TEST(Codec, LengthMustMatchTheOpcode) {
    // Payload bytes on an ACK, with a correct ICRC.
    auto ack = make_frame(sample_headers(opcode::rc_ack), {});
    ack.insert(ack.end() - 4, 4, std::byte{0});
    reseal(ack);
    EXPECT_EQ(decode_error_of(ack), decode_error::bad_length);

    // Not a whole number of words.
    auto odd = make_frame(sample_headers(opcode::rc_send_only), pattern(8));
    odd.push_back(std::byte{0});
    reseal(odd);
    EXPECT_EQ(decode_error_of(odd), decode_error::bad_length);
}

TEST(Codec, PadOnlyWhereAllowedAndNeverBeyondThePayload) {
    const auto with_pad = [](opcode op, std::size_t payload, std::uint8_t pad) {
        auto frame = make_frame(sample_headers(op), pattern(payload));
        frame[1] = (frame[1] & std::byte{0xCF}) | static_cast<std::byte>(pad << 4);
        reseal(frame);
        return frame;
    };
    EXPECT_EQ(decode_error_of(with_pad(opcode::rc_send_middle, 8, 1)), decode_error::bad_pad);
    EXPECT_EQ(decode_error_of(with_pad(opcode::rc_write_first, 8, 2)), decode_error::bad_pad);
    EXPECT_EQ(decode_error_of(with_pad(opcode::rc_ack, 0, 1)), decode_error::bad_pad);
    EXPECT_EQ(decode_error_of(with_pad(opcode::rc_send_only, 0, 3)), decode_error::bad_pad);

    // Four bytes after the headers with pad 3: one byte of payload.
    const decode_result r = decode_frame(with_pad(opcode::rc_send_only, 4, 3), test_flow());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.packet.payload.size(), 1u);
    EXPECT_EQ(r.packet.headers.bth.pad_count, 3);
}

TEST(Codec, ACorruptByteAnywhereFailsTheIcrc) {
    const std::uint8_t masks[] = {0x01, 0x10, 0x80, 0xFF};
    for (opcode op : valid_opcodes()) {
        const auto frame = make_frame(sample_headers(op), pattern(allowed_payload(op, 13)));
        for (std::size_t i = 0; i < frame.size(); ++i) {
            for (std::uint8_t m : masks) {
                auto bad = frame;
                bad[i] ^= std::byte{m};
                const decode_error e = decode_error_of(bad);
                if (i == offsetof(bth_layout, resv8a)) {
                    // FECN, BECN and the reserved bits are variant: the ICRC masks them.
                    EXPECT_EQ(e, decode_error::none);
                } else if (i < offsetof(bth_layout, pkey)) {
                    // Opcode and flags are checked structurally before the ICRC.
                    EXPECT_NE(e, decode_error::none) << i;
                } else {
                    EXPECT_EQ(e, decode_error::bad_icrc)
                        << opcode_name(static_cast<std::uint8_t>(op)) << " byte " << i;
                }
            }
        }
    }
}

TEST(Codec, AFrameCheckedAgainstAnotherFlowFailsTheIcrc) {
    const flow f = test_flow();
    const auto frame = make_frame(sample_headers(opcode::rc_write_only), pattern(16), f);
    ASSERT_TRUE(decode_frame(frame, f).ok());
    EXPECT_EQ(decode_error_of(frame, f.reversed()), decode_error::bad_icrc);
    flow port = f;
    port.src_port = 50'000;
    EXPECT_EQ(decode_error_of(frame, port), decode_error::bad_icrc);
    flow id = f;
    id.ipv4_id = 1;
    EXPECT_EQ(decode_error_of(frame, id), decode_error::bad_icrc);
    flow v6 = f;
    v6.src.v6 = true;
    EXPECT_EQ(decode_error_of(frame, v6), decode_error::bad_icrc);
}

// ---------------------------------------------------------------------------------------------
// ICRC known answers

TEST(Icrc, Crc32CheckValue) {
    const auto digits = bytes_of({'1', '2', '3', '4', '5', '6', '7', '8', '9'});
    EXPECT_EQ(crc32(digits), 0xCBF43926u);
    EXPECT_EQ(crc32(std::span(digits).subspan(4), crc32(std::span(digits).first(4))), 0xCBF43926u);
    EXPECT_EQ(crc32({}), 0u);
}

// A RoCEv2 CNP frame captured from a ConnectX-4 Lx adapter, published with scapy's RoCE tests
// (test/contrib/roce.uts): IPv4 10.0.17.1 -> 10.0.18.1, identification 0x718c, DF, UDP
// 0 -> 4791; its ICRC on the wire is 82 fd 00 2a. The CNP opcode (0x81) is not one the codec
// accepts, but the ICRC is computed the same way for every frame.
TEST(Icrc, MatchesACapturedHardwareFrame) {
    const auto frame =
        hex("8100ffff4000011800000000"
            "00000000000000000000000000000000");
    flow f;
    f.src = ip_address::v4(10, 0, 17, 1);
    f.dst = ip_address::v4(10, 0, 18, 1);
    f.src_port = 0;
    f.dst_port = 4791;
    f.ipv4_id = 0x718c;
    std::array<std::byte, 4> wire{};
    store_icrc(wire.data(), compute_icrc(f, frame));
    EXPECT_EQ(wire,
              (std::array{std::byte{0x82}, std::byte{0xfd}, std::byte{0x00}, std::byte{0x2a}}));
}

// The UC SEND_ONLY example of the same scapy test file (192.168.0.7 to itself, identification
// 1144, UDP 49152 -> 4791, MigReq, pad 2): ICRC 78 f3 53 f3 on the wire.
TEST(Icrc, MatchesAPublishedUcSendExample) {
    const auto frame =
        hex("2460ffff000000d300cf1710"
            "4630818be28935d90e9a95505401be885e500000");
    flow f;
    f.src = ip_address::v4(192, 168, 0, 7);
    f.dst = ip_address::v4(192, 168, 0, 7);
    f.src_port = 49152;
    f.ipv4_id = 1144;
    std::array<std::byte, 4> wire{};
    store_icrc(wire.data(), compute_icrc(f, frame));
    EXPECT_EQ(wire,
              (std::array{std::byte{0x78}, std::byte{0xf3}, std::byte{0x53}, std::byte{0xf3}}));
}

// IPv6: the pseudo header written out byte by byte (docs/wire-format.md, "ICRC"), whose plain
// CRC-32 must equal compute_icrc; the value 0x54f1e6a5 was computed independently with
// Python's zlib.crc32 over the same bytes.
TEST(Icrc, Ipv6PseudoHeaderByteByByte) {
    const auto frame =
        hex("1100ffff0000002a00000007"
            "1f000005");  // RC ACK, QP 42, PSN 7
    flow f;
    f.src = ip_address::v6_from({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    f.dst = ip_address::v6_from({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
    f.src_port = 0xC000;
    // clang-format off
    const auto covered = hex(
        "ffffffffffffffff"                  // LRH stand-in
        "6fffffff" "001c" "11" "ff"         // IPv6: masked TC/flow label, length, UDP, masked hop
        "20010db8000000000000000000000001"  // source
        "20010db8000000000000000000000002"  // destination
        "c000" "12b7" "001c" "ffff"         // UDP: ports, length, masked checksum
        "1100ffff" "ff" "00002a00000007"    // BTH with byte 4 masked
        "1f000005");                        // AETH
    // clang-format on  // BTH with byte 4 masked, AETH
    EXPECT_EQ(crc32(covered), 0x54f1e6a5u);
    EXPECT_EQ(compute_icrc(f, frame), 0x54f1e6a5u);
}

TEST(Icrc, OfALentFrameIsThatOfTheFrameWithItsPayloadInPlace) {
    // A lent frame's buffer holds its headers, pad and trailer; its payload is elsewhere.
    const auto payload = test::pattern(1000);
    const std::vector<std::byte> whole =
        test::make_frame(test::sample_headers(opcode::rc_write_only), payload);
    const std::size_t covered = whole.size() - icrc_size;
    const std::size_t offset = covered - payload.size();  // no pad: 1000 is a multiple of 4
    std::vector<std::byte> holed(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(covered));
    std::fill_n(holed.begin() + static_cast<std::ptrdiff_t>(offset), payload.size(), std::byte{0xAA});
    EXPECT_EQ(compute_icrc(test_flow(), holed, offset, payload),
              compute_icrc(test_flow(), std::span(whole).first(covered)));
    EXPECT_NE(compute_icrc(test_flow(), holed), compute_icrc(test_flow(), std::span(whole).first(covered)));
    // A range that does not lie after the BTH, inside the frame.
    EXPECT_EQ(compute_icrc(test_flow(), holed, 4, payload), 0U);
    EXPECT_EQ(compute_icrc(test_flow(), holed, offset + 1, payload), 0U);
}

TEST(Icrc, VariantBthBitsDoNotChangeIt) {
    auto frame = hex("0a00ffff00000011000000010000000000000000");
    const std::uint32_t before = compute_icrc(test_flow(), frame);
    frame[4] = std::byte{0xC0};
    EXPECT_EQ(compute_icrc(test_flow(), frame), before);
    frame[8] = std::byte{0x01};
    EXPECT_NE(compute_icrc(test_flow(), frame), before);
    EXPECT_EQ(compute_icrc(test_flow(), std::span(frame).first(11)), 0u);
}

// ---------------------------------------------------------------------------------------------
// Seeded mutation: decode never reads outside the frame (run under ASan) and what it accepts
// is consistent.

TEST(Codec, MutatedFramesNeverEscapeTheFrame) {
    std::mt19937_64 rng(0x5EED'0005);
    const auto ops = valid_opcodes();
    std::size_t accepted = 0;
    for (int iter = 0; iter < 20'000; ++iter) {
        const opcode op = ops[rng() % ops.size()];
        packet_headers h = sample_headers(op);
        h.bth.psn = static_cast<std::uint32_t>(rng()) & psn_mask;
        auto frame = make_frame(h, pattern(allowed_payload(op, rng() % 300)));
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            switch (rng() % 4) {
                case 0:  // flip a byte
                    if (!frame.empty()) {
                        frame[rng() % frame.size()] ^= static_cast<std::byte>(1 + rng() % 255);
                    }
                    break;
                case 1:  // cut
                    frame.resize(frame.empty() ? 0 : rng() % frame.size());
                    break;
                case 2:  // grow
                    frame.resize(frame.size() + 1 + rng() % 8, static_cast<std::byte>(rng()));
                    break;
                default:  // random opcode
                    if (!frame.empty()) {
                        frame[0] = static_cast<std::byte>(rng());
                    }
                    break;
            }
        }
        if (rng() % 2 == 0 && frame.size() >= bth_size + icrc_size) {
            reseal(frame);  // let the structural checks, not the ICRC, decide
        }
        frame.shrink_to_fit();
        const std::vector<std::byte> exact(frame);  // exact-size allocation for ASan
        const decode_result r = decode_frame(exact, test_flow());
        if (!r.ok()) {
            continue;
        }
        ++accepted;
        const std::byte* lo = exact.data();
        const std::byte* hi = exact.data() + exact.size();
        ASSERT_TRUE(r.packet.info->valid);
        ASSERT_GE(r.packet.payload.data(), lo);
        ASSERT_LE(r.packet.payload.data() + r.packet.payload.size(), hi);
        ASSERT_EQ(r.packet.header_size + r.packet.payload.size() + r.packet.headers.bth.pad_count +
                      icrc_size,
                  exact.size());
    }
    EXPECT_GT(accepted, 1000u);
}

}  // namespace
}  // namespace ndksim::wire
