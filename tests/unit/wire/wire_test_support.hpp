// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the wire unit tests: a fixed flow, sample header values per opcode and
// frame builders.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "wire/codec.hpp"
#include "wire/icrc.hpp"
#include "wire/opcode_table.hpp"

namespace ndksim::wire::test {

/// The flow every test frame uses unless it says otherwise: 127.0.0.1 -> 127.0.0.2, both on
/// the RoCEv2 port. The fuzz corpus uses the same flow.
inline flow test_flow() {
    flow f;
    f.src = ip_address::v4(127, 0, 0, 1);
    f.dst = ip_address::v4(127, 0, 0, 2);
    return f;
}

/// Every supported opcode, in table order.
inline std::vector<opcode> valid_opcodes() {
    std::vector<opcode> ops;
    for (std::uint32_t v = 0; v < opcode_table.size(); ++v) {
        if (opcode_table[v].valid) {
            ops.push_back(static_cast<opcode>(v));
        }
    }
    return ops;
}

/// Headers with distinct non-zero values in every field (so a field read from the wrong
/// offset shows up), for opcode `op`.
inline packet_headers sample_headers(opcode op) {
    packet_headers h;
    h.bth.op = op;
    h.bth.solicited = true;
    h.bth.pkey = 0x8123;
    h.bth.dest_qp = 0x00ABCDEF;
    h.bth.ack_req = true;
    h.bth.psn = 0x00123456;
    h.deth = {0x11223344, 0x00654321};
    h.reth = {0x0102030405060708, 0xA1B2C3D4, 0x00010203};
    h.atomic_eth = {0x1112131415161718, 0x21222324, 0x3132333435363738, 0x4142434445464748};
    h.aeth = {nak_syndrome(nak_code::remote_access_error), 0x00FEDCBA};
    h.atomic_ack_original = 0x5152535455565758;
    h.immediate = 0xDEADBEEF;
    h.invalidate_rkey = 0xCAFEF00D;
    return h;
}

/// `h` with every extension header the opcode does not carry at its default, and the pad count
/// of `payload_size`: what decode returns for a frame of `h`.
inline packet_headers carried_only(packet_headers h, std::size_t payload_size) {
    const opcode_info& info = opcode_lookup(h.bth.op);
    packet_headers clean;
    clean.bth = h.bth;
    clean.bth.pad_count = static_cast<std::uint8_t>(pad_for(payload_size));
    if (info.has(ext::deth)) {
        clean.deth = h.deth;
    }
    if (info.has(ext::reth)) {
        clean.reth = h.reth;
    }
    if (info.has(ext::atomic_eth)) {
        clean.atomic_eth = h.atomic_eth;
    }
    if (info.has(ext::aeth)) {
        clean.aeth = h.aeth;
    }
    if (info.has(ext::atomic_ack_eth)) {
        clean.atomic_ack_original = h.atomic_ack_original;
    }
    if (info.has(ext::immdt)) {
        clean.immediate = h.immediate;
    }
    if (info.has(ext::ieth)) {
        clean.invalidate_rkey = h.invalidate_rkey;
    }
    return clean;
}

/// `n` bytes of a recognisable pattern.
inline std::vector<std::byte> pattern(std::size_t n, std::uint8_t seed = 0x5A) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<std::byte>((seed + i * 7) & 0xFF);
    }
    return v;
}

/// A complete frame of `h` with `payload`, exactly as long as the frame (so that ASan catches
/// any read past its end).
inline std::vector<std::byte> make_frame(const packet_headers& h,
                                         std::span<const std::byte> payload,
                                         const flow& f = test_flow()) {
    std::vector<std::byte> buf(frame_capacity(payload.size()) + 64);
    const encode_result r = encode_frame(h, payload, f, buf);
    buf.resize(r.ok() ? r.frame_size : 0);
    return buf;
}

/// Recomputes the ICRC of a frame after a test changed it (needs >= bth_size + 4 bytes).
inline void reseal(std::vector<std::byte>& frame, const flow& f = test_flow()) {
    const std::size_t covered = frame.size() - icrc_size;
    store_icrc(frame.data() + covered, compute_icrc(f, std::span(frame).first(covered)));
}

/// A payload size the opcode accepts: `wanted` for last/only packets, rounded down to whole
/// words for first/middle, 0 for opcodes without payload.
inline std::size_t allowed_payload(opcode op, std::size_t wanted) {
    const opcode_info& info = opcode_lookup(op);
    if (!info.has_payload) {
        return 0;
    }
    return info.ends_message() ? wanted : wanted - wanted % word_size;
}

}  // namespace ndksim::wire::test
