// SPDX-License-Identifier: MIT
#pragma once
// The invariant CRC (ICRC) of RoCEv2: a CRC-32 over the frame and the parts of its IP and UDP
// headers that do not change on the way, with the variant fields replaced by all-ones bits.
//
// Frames travel between simulated adapters without real IP headers (in-process, over a UDP
// socket whose kernel writes its own headers, or over TCP), so the ICRC is computed over a
// pseudo IP/UDP header built from a `flow`: the adapters' IP addresses and UDP ports, which the
// transport supplies on both sides, and fixed values for the remaining fields. The pcap writer
// writes exactly these headers, so tools that check the ICRC against the captured IP/UDP
// headers agree with it. docs/wire-format.md ("ICRC") lists every byte of the pseudo header.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/proto.hpp"

namespace ndksim::wire {

/// Largest frame (BTH through ICRC) an IPv4 datagram can carry: 65535 - 20 (IP) - 8 (UDP)
/// [bytes]. Encode and decode refuse longer frames.
inline constexpr std::size_t max_frame_size = 65'507;

/// The IP and UDP header fields the ICRC covers that are not inside the frame.
struct flow {
    ip_address src;                          ///< IP source address of the frame
    ip_address dst;                          ///< IP destination address
    std::uint16_t src_port = roce_udp_port;  ///< UDP source port
    std::uint16_t dst_port = roce_udp_port;  ///< UDP destination port
    std::uint16_t ipv4_id = 0;               ///< IPv4 Identification (the pcap writer uses 0)

    /// The flow of a frame going the other way (addresses and ports swapped).
    constexpr flow reversed() const noexcept { return flow{dst, src, dst_port, src_port, ipv4_id}; }

    friend constexpr bool operator==(const flow&, const flow&) = default;
};

/// CRC-32 of `data` as Ethernet, zlib and the ICRC define it (polynomial 0x04C11DB7,
/// reflected, initial value and final XOR 0xFFFFFFFF). `previous` continues an earlier result,
/// as zlib's crc32(previous, data) does; 0 starts afresh. crc32("123456789") == 0xCBF43926.
std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t previous = 0) noexcept;

/// The ICRC of a frame sent over `f`. `frame` is the frame without its ICRC word: BTH,
/// extension headers, payload and pad (at least bth_size bytes, at most max_frame_size - 4).
/// The result is stored least significant byte first (store_icrc).
///
/// Covered, in order: 8 bytes of 0xFF (the absent InfiniBand LRH); the IP header (IPv4:
/// version/IHL 0x45, TOS masked, total length, ipv4_id, flags DF with fragment offset 0, TTL
/// masked, protocol 17, checksum masked, addresses; IPv6 when either address is IPv6, with the
/// other written v4-mapped: traffic class and flow label masked, payload length, next header
/// 17, hop limit masked, addresses); the UDP header with its checksum masked; the BTH with byte
/// 4 (FECN, BECN, reserved) masked; then the rest of `frame`. Masked means all bits one.
/// Returns 0 for a frame shorter than a BTH (never a valid frame).
std::uint32_t compute_icrc(const flow& f, std::span<const std::byte> frame) noexcept;

/// compute_icrc of `frame` with bytes [payload_offset, payload_offset + payload.size()) taken
/// from `payload` instead: the ICRC of a lent frame (lent_frames.hpp), whose payload is the
/// sender's memory and whose buffer holds the rest. 0 when the range does not lie inside the
/// frame after its BTH.
std::uint32_t compute_icrc(const flow& f, std::span<const std::byte> frame,
                           std::size_t payload_offset, std::span<const std::byte> payload) noexcept;

/// Writes `icrc` at `p` least significant byte first (4 bytes).
constexpr void store_icrc(std::byte* p, std::uint32_t icrc) noexcept {
    for (std::size_t i = 0; i < icrc_size; ++i) {
        p[i] = static_cast<std::byte>((icrc >> (8 * i)) & 0xFF);
    }
}

/// Reads an ICRC stored at `p` (4 bytes, least significant first).
constexpr std::uint32_t load_icrc(const std::byte* p) noexcept {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < icrc_size; ++i) {
        v |= std::to_integer<std::uint32_t>(p[i]) << (8 * i);
    }
    return v;
}

}  // namespace ndksim::wire
