#include "wire/icrc.hpp"

#include <array>

namespace ndksim::wire {
namespace {

// Slice-by-8 tables: table[0] is the byte-wise table of the reflected polynomial, table[k]
// advances a byte through k further zero bytes, so eight input bytes fold in one step.
using crc_tables = std::array<std::array<std::uint32_t, 256>, 8>;

consteval crc_tables make_tables() {
    crc_tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) {
            c = (c & 1u) != 0 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        }
        t[0][i] = c;
    }
    for (std::size_t k = 1; k < t.size(); ++k) {
        for (std::size_t i = 0; i < 256; ++i) {
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
        }
    }
    return t;
}

constexpr crc_tables tables = make_tables();

std::uint32_t load_le32(const std::byte* p) noexcept {
    return std::to_integer<std::uint32_t>(p[0]) | (std::to_integer<std::uint32_t>(p[1]) << 8) |
           (std::to_integer<std::uint32_t>(p[2]) << 16) |
           (std::to_integer<std::uint32_t>(p[3]) << 24);
}

/// Runs the CRC register (not inverted) over `n` bytes.
std::uint32_t crc_update(std::uint32_t reg, const std::byte* p, std::size_t n) noexcept {
    while (n >= 8) {
        const std::uint32_t lo = load_le32(p) ^ reg;
        const std::uint32_t hi = load_le32(p + 4);
        reg = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^
              tables[4][lo >> 24] ^ tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^
              tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    for (; n > 0; --n, ++p) {
        reg = (reg >> 8) ^ tables[0][(reg ^ std::to_integer<std::uint32_t>(*p)) & 0xFF];
    }
    return reg;
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
    return ~crc_update(~previous, data.data(), data.size());
}

std::uint32_t compute_icrc(const flow& f, std::span<const std::byte> frame) noexcept {
    if (frame.size() < bth_size) {
        return 0;
    }
    std::array<std::byte, pseudo_max> pseudo{};
    const std::size_t n = build_pseudo_header(pseudo.data(), f, frame);
    std::uint32_t reg = crc_update(0xFFFF'FFFFu, pseudo.data(), n);
    reg = crc_update(reg, frame.data() + bth_size, frame.size() - bth_size);
    return ~reg;
}

}  // namespace ndksim::wire
