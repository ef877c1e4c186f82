// SPDX-License-Identifier: MIT
#include "wire/icrc.hpp"

#include <isa-l/crc.h>

#include <array>

namespace ndksim::wire {
namespace {

// The CRC-32 comes from Intel ISA-L (crc32_gzip_refl: the reflected Ethernet polynomial with
// initial value and final XOR all ones, as zlib's crc32). It folds 64 bytes per step with
// carry-less multiplication (PCLMULQDQ), selected for the CPU at run time; bench/wire/bench_crc
// compares it with zlib on this host (docs/performance.md).
std::uint32_t crc_continue(std::uint32_t previous, const std::byte* p, std::size_t n) noexcept {
    return crc32_gzip_refl(previous, reinterpret_cast<const unsigned char*>(p),
                           static_cast<std::uint64_t>(n));
}

constexpr std::byte ones{0xFF};

// Pseudo header: 8 (LRH stand-in) + 40 (IPv6, the larger) + 8 (UDP) + 12 (BTH).
constexpr std::size_t pseudo_max = 8 + 40 + 8 + bth_size;

void put_address_v6(std::byte* p, const ip_address& a) noexcept {
    if (a.v6) {
        for (std::size_t i = 0; i < 16; ++i) {
            p[i] = static_cast<std::byte>(a.bytes[i]);
        }
        return;
    }
    // v4-mapped: ::ffff:a.b.c.d
    for (std::size_t i = 0; i < 10; ++i) {
        p[i] = std::byte{0};
    }
    p[10] = ones;
    p[11] = ones;
    for (std::size_t i = 0; i < 4; ++i) {
        p[12 + i] = static_cast<std::byte>(a.bytes[i]);
    }
}

/// Writes the pseudo header for a frame of `frame_len` bytes without ICRC; returns its length.
std::size_t build_pseudo_header(std::byte* out, const flow& f, std::span<const std::byte> frame) {
    std::byte* p = out;
    for (std::size_t i = 0; i < 8; ++i) {
        *p++ = ones;
    }
    const std::size_t udp_length = 8 + frame.size() + icrc_size;
    if (!f.src.v6 && !f.dst.v6) {
        store_be<1>(p + 0, 0x45);             // version 4, IHL 5 words
        p[1] = ones;                          // TOS (DSCP, ECN): masked
        store_be<2>(p + 2, 20 + udp_length);  // total length [bytes]
        store_be<2>(p + 4, f.ipv4_id);        // identification
        store_be<2>(p + 6, 0x4000);           // flags DF, fragment offset 0
        p[8] = ones;                          // TTL: masked
        store_be<1>(p + 9, 17);               // protocol UDP
        p[10] = ones;                         // header checksum: masked
        p[11] = ones;
        for (std::size_t i = 0; i < 4; ++i) {
            p[12 + i] = static_cast<std::byte>(f.src.bytes[i]);
            p[16 + i] = static_cast<std::byte>(f.dst.bytes[i]);
        }
        p += 20;
    } else {
        store_be<1>(p + 0, 0x6F);  // version 6, traffic class: masked
        p[1] = ones;               // traffic class / flow label: masked
        p[2] = ones;
        p[3] = ones;
        store_be<2>(p + 4, udp_length);  // payload length [bytes]
        store_be<1>(p + 6, 17);          // next header UDP
        p[7] = ones;                     // hop limit: masked
        put_address_v6(p + 8, f.src);
        put_address_v6(p + 24, f.dst);
        p += 40;
    }
    store_be<2>(p + 0, f.src_port);
    store_be<2>(p + 2, f.dst_port);
    store_be<2>(p + 4, udp_length);
    p[6] = ones;  // UDP checksum: masked
    p[7] = ones;
    p += 8;
    for (std::size_t i = 0; i < bth_size; ++i) {
        p[i] = frame[i];
    }
    p[offsetof(bth_layout, resv8a)] = ones;  // FECN, BECN, reserved: masked
    p += bth_size;
    return static_cast<std::size_t>(p - out);
}

}  // namespace

std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t previous) noexcept {
    return crc_continue(previous, data.data(), data.size());
}

std::uint32_t compute_icrc(const flow& f, std::span<const std::byte> frame) noexcept {
    if (frame.size() < bth_size) {
        return 0;
    }
    std::array<std::byte, pseudo_max> pseudo{};
    const std::size_t n = build_pseudo_header(pseudo.data(), f, frame);
    const std::uint32_t head = crc_continue(0, pseudo.data(), n);
    return crc_continue(head, frame.data() + bth_size, frame.size() - bth_size);
}

std::uint32_t compute_icrc(const flow& f, std::span<const std::byte> frame,
                           std::size_t payload_offset,
                           std::span<const std::byte> payload) noexcept {
    if (frame.size() < bth_size || payload_offset < bth_size || payload_offset > frame.size() ||
        payload.size() > frame.size() - payload_offset) {
        return 0;
    }
    std::array<std::byte, pseudo_max> pseudo{};
    const std::size_t n = build_pseudo_header(pseudo.data(), f, frame);
    std::uint32_t crc = crc_continue(0, pseudo.data(), n);
    crc = crc_continue(crc, frame.data() + bth_size, payload_offset - bth_size);
    crc = crc_continue(crc, payload.data(), payload.size());
    const std::size_t after = payload_offset + payload.size();
    return crc_continue(crc, frame.data() + after, frame.size() - after);
}

}  // namespace ndksim::wire
