// SPDX-License-Identifier: MIT
#pragma once
// RoCEv2 wire structures: the InfiniBand transport headers as they sit in a frame, in network
// byte order, plus the constants, sequence-number arithmetic and AETH syndrome encoding the
// engine needs to build and read them. A frame (the UDP payload) is
//
//   BTH | extension headers of the opcode (opcode_table.hpp) | payload | pad | ICRC
//
// and every header is a whole number of 4-byte words. The layout structs below only describe
// offsets and sizes (each field is a byte array, so there is no padding and no alignment); the
// codec reads and writes them through the load_be / store_be helpers, never by casting a frame
// pointer to a struct. Field layouts and values: InfiniBand Architecture Specification vol. 1,
// chapter 9 (transport headers), and its RoCEv2 annex (UDP encapsulation, ICRC).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "timing/sim_time.hpp"

namespace ndksim::wire {

// ---------------------------------------------------------------------------------------------
// Constants

/// RoCEv2 UDP destination port (IANA) [UDP port].
inline constexpr std::uint16_t roce_udp_port = 4791;

/// The only transport header version (BTH TVer) defined; any other value is refused.
inline constexpr std::uint8_t transport_version = 0;

/// Default partition key: full member of the default partition. Every QP of ndksim is in this
/// partition: it sends this P_Key and accepts the packets that match it (pkey_matches).
inline constexpr std::uint16_t default_pkey = 0xFFFF;

/// P_Key matching (IBA vol. 1 10.9.3): the packet's `packet` and the QP's `own` name the same
/// partition (the low 15 bits, which must not be 0, the invalid P_Key) and at least one of the
/// two is a full member (bit 15); two limited members may not talk.
constexpr bool pkey_matches(std::uint16_t packet, std::uint16_t own) noexcept {
    constexpr std::uint16_t partition = 0x7FFF;
    constexpr std::uint16_t full_member = 0x8000;
    return (packet & partition) == (own & partition) && (packet & partition) != 0 &&
           ((packet | own) & full_member) != 0;
}

/// QP 1, the general services interface QP, to which connection-management datagrams go.
inline constexpr std::uint32_t gsi_qp = 1;

/// The well-known Q_Key of QP 1.
inline constexpr std::uint32_t gsi_qkey = 0x80010000;

/// QP numbers, PSNs and MSNs are 24-bit fields.
inline constexpr std::uint32_t qpn_mask = 0x00FF'FFFF;
inline constexpr std::uint32_t psn_mask = 0x00FF'FFFF;
inline constexpr std::uint32_t msn_mask = 0x00FF'FFFF;

/// Header sizes [bytes].
inline constexpr std::size_t bth_size = 12;
inline constexpr std::size_t deth_size = 8;
inline constexpr std::size_t reth_size = 16;
inline constexpr std::size_t atomic_eth_size = 28;
inline constexpr std::size_t aeth_size = 4;
inline constexpr std::size_t atomic_ack_eth_size = 8;
inline constexpr std::size_t immdt_size = 4;
inline constexpr std::size_t ieth_size = 4;
inline constexpr std::size_t icrc_size = 4;

/// Largest BTH + extension headers of any opcode (ATOMIC CMP_SWAP / FETCH_ADD: BTH + AtomicETH)
/// [bytes]; opcode_table.cpp checks it against the table.
inline constexpr std::size_t max_header_size = bth_size + atomic_eth_size;

/// Frames are whole 4-byte words; the BTH pad count (0-3) fills the last payload word.
inline constexpr std::size_t word_size = 4;

/// Bytes of pad that follow `payload_size` bytes of payload [bytes, 0-3].
constexpr std::size_t pad_for(std::size_t payload_size) noexcept {
    return (word_size - payload_size % word_size) % word_size;
}

/// Buffer size that holds any frame whose payload is at most `mtu` bytes [bytes].
constexpr std::size_t frame_capacity(std::size_t mtu) noexcept {
    return max_header_size + mtu + pad_for(mtu) + icrc_size;
}

// ---------------------------------------------------------------------------------------------
// Header layouts (network byte order; offsets are the byte offsets inside the header)

/// Base Transport Header, present in every packet.
struct bth_layout {
    std::uint8_t opcode;      ///< 0: opcode
    std::uint8_t flags;       ///< 1: SE [7], MigReq [6], PadCnt [5:4], TVer [3:0]
    std::uint8_t pkey[2];     ///< 2: partition key
    std::uint8_t resv8a;      ///< 4: FECN [7], BECN [6], reserved [5:0]; masked by the ICRC
    std::uint8_t dest_qp[3];  ///< 5: destination QP number (24 bits)
    std::uint8_t ack_req;     ///< 8: AckReq [7], reserved [6:0]
    std::uint8_t psn[3];      ///< 9: packet sequence number (24 bits)
};
static_assert(sizeof(bth_layout) == bth_size);
static_assert(offsetof(bth_layout, resv8a) == 4 && offsetof(bth_layout, psn) == 9);

inline constexpr std::uint8_t bth_se_bit = 0x80;       ///< flags: solicited event
inline constexpr std::uint8_t bth_mig_bit = 0x40;      ///< flags: migration request
inline constexpr std::uint8_t bth_pad_shift = 4;       ///< flags: pad count position
inline constexpr std::uint8_t bth_pad_mask = 0x30;     ///< flags: pad count bits
inline constexpr std::uint8_t bth_tver_mask = 0x0F;    ///< flags: transport version bits
inline constexpr std::uint8_t bth_fecn_bit = 0x80;     ///< resv8a: forward congestion notice
inline constexpr std::uint8_t bth_becn_bit = 0x40;     ///< resv8a: backward congestion notice
inline constexpr std::uint8_t bth_ack_req_bit = 0x80;  ///< ack_req: acknowledge request

/// Datagram Extended Transport Header (UD).
struct deth_layout {
    std::uint8_t qkey[4];    ///< 0: queue key
    std::uint8_t reserved;   ///< 4: zero
    std::uint8_t src_qp[3];  ///< 5: source QP number (24 bits)
};
static_assert(sizeof(deth_layout) == deth_size);

/// RDMA Extended Transport Header (RDMA WRITE first/only, RDMA READ request).
struct reth_layout {
    std::uint8_t va[8];          ///< 0: remote virtual address
    std::uint8_t rkey[4];        ///< 8: remote key (NDK token)
    std::uint8_t dma_length[4];  ///< 12: length of the whole RDMA operation [bytes]
};
static_assert(sizeof(reth_layout) == reth_size);

/// Atomic Extended Transport Header (CMP_SWAP, FETCH_ADD).
struct atomic_eth_layout {
    std::uint8_t va[8];        ///< 0: remote virtual address (8-byte aligned)
    std::uint8_t rkey[4];      ///< 8: remote key
    std::uint8_t swap_add[8];  ///< 12: swap value (CMP_SWAP) or addend (FETCH_ADD)
    std::uint8_t compare[8];   ///< 20: compare value (CMP_SWAP)
};
static_assert(sizeof(atomic_eth_layout) == atomic_eth_size);

/// ACK Extended Transport Header (acknowledges, read responses first/last/only, atomic ACK).
struct aeth_layout {
    std::uint8_t syndrome;  ///< 0: reserved [7], type [6:5], value [4:0] (see aeth_type)
    std::uint8_t msn[3];    ///< 1: message sequence number (24 bits)
};
static_assert(sizeof(aeth_layout) == aeth_size);

/// Atomic Acknowledge Extended Transport Header.
struct atomic_ack_eth_layout {
    std::uint8_t original[8];  ///< 0: the remote value before the atomic operation
};
static_assert(sizeof(atomic_ack_eth_layout) == atomic_ack_eth_size);

/// Immediate data.
struct immdt_layout {
    std::uint8_t data[4];  ///< 0: 32-bit immediate, delivered to the receiver's completion
};
static_assert(sizeof(immdt_layout) == immdt_size);

/// Invalidate Extended Transport Header (SEND with invalidate).
struct ieth_layout {
    std::uint8_t rkey[4];  ///< 0: remote key the responder invalidates
};
static_assert(sizeof(ieth_layout) == ieth_size);

/// Invariant CRC, the last word of every frame.
struct icrc_layout {
    std::uint8_t crc[4];  ///< 0: CRC-32, least significant byte first (see icrc.hpp)
};
static_assert(sizeof(icrc_layout) == icrc_size);

// ---------------------------------------------------------------------------------------------
// Byte-order helpers. `p` must point at enough readable (or writable) bytes.

/// Reads a big-endian integer of 1-8 bytes.
template <std::size_t Bytes>
constexpr std::uint64_t load_be(const std::byte* p) noexcept {
    static_assert(Bytes >= 1 && Bytes <= 8);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < Bytes; ++i) {
        v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
    }
    return v;
}

/// Writes the low `Bytes` bytes of `v` big-endian.
template <std::size_t Bytes>
constexpr void store_be(std::byte* p, std::uint64_t v) noexcept {
    static_assert(Bytes >= 1 && Bytes <= 8);
    for (std::size_t i = 0; i < Bytes; ++i) {
        p[Bytes - 1 - i] = static_cast<std::byte>(v & 0xFF);
        v >>= 8;
    }
}

/// The low byte of a field read by load_be (the width the layout gives it).
constexpr std::uint8_t u8(std::uint64_t v) noexcept {
    return static_cast<std::uint8_t>(v);
}

/// The low 32 bits of a field read by load_be (the width the layout gives it).
constexpr std::uint32_t u32(std::uint64_t v) noexcept {
    return static_cast<std::uint32_t>(v);
}

// ---------------------------------------------------------------------------------------------
// Sequence numbers (24-bit, modulo 2^24)

/// `psn` advanced by `n` packets, wrapped to 24 bits.
constexpr std::uint32_t psn_add(std::uint32_t psn, std::uint32_t n = 1) noexcept {
    return (psn + n) & psn_mask;
}

/// Signed distance a - b in the 24-bit sequence space, in [-2^23, 2^23): positive when `a`
/// comes after `b`, zero when equal, negative when `a` is older (both are masked to 24 bits).
constexpr std::int32_t psn_diff(std::uint32_t a, std::uint32_t b) noexcept {
    return static_cast<std::int32_t>(((a - b) & psn_mask) << 8) >> 8;
}

// ---------------------------------------------------------------------------------------------
// AETH syndrome: bit 7 reserved (0), bits 6:5 type, bits 4:0 value

/// What an AETH says.
enum class aeth_type : std::uint8_t {
    ack = 0,       ///< positive acknowledge; value = credit code
    rnr_nak = 1,   ///< receiver not ready; value = RNR timer code
    reserved = 2,  ///< not defined
    nak = 3,       ///< negative acknowledge; value = nak_code
};

/// NAK codes (AETH value when the type is nak).
enum class nak_code : std::uint8_t {
    psn_sequence_error = 0,
    invalid_request = 1,
    remote_access_error = 2,
    remote_operational_error = 3,
    invalid_rd_request = 4,
};

/// Credit code meaning "no end-to-end credit information" (the responder does not limit).
inline constexpr std::uint8_t credit_code_invalid = 31;

/// The syndrome byte of `type` with the 5-bit `value`.
constexpr std::uint8_t make_syndrome(aeth_type type, std::uint8_t value) noexcept {
    return static_cast<std::uint8_t>((static_cast<std::uint8_t>(type) << 5) | (value & 0x1F));
}

/// An ACK syndrome carrying `credit_code` (default: no credit information).
constexpr std::uint8_t ack_syndrome(std::uint8_t credit_code = credit_code_invalid) noexcept {
    return make_syndrome(aeth_type::ack, credit_code);
}

/// An RNR NAK syndrome carrying the RNR timer code `timer_code` (0-31, see rnr_timer).
constexpr std::uint8_t rnr_nak_syndrome(std::uint8_t timer_code) noexcept {
    return make_syndrome(aeth_type::rnr_nak, timer_code);
}

/// A NAK syndrome carrying `code`.
constexpr std::uint8_t nak_syndrome(nak_code code) noexcept {
    return make_syndrome(aeth_type::nak, static_cast<std::uint8_t>(code));
}

/// The type bits of a syndrome (the reserved bit 7 is ignored).
constexpr aeth_type syndrome_type(std::uint8_t syndrome) noexcept {
    return static_cast<aeth_type>((syndrome >> 5) & 0x3);
}

/// The 5-bit value of a syndrome.
constexpr std::uint8_t syndrome_value(std::uint8_t syndrome) noexcept {
    return syndrome & 0x1F;
}

/// The name of a NAK code ("remote_access_error"), or "reserved" for the values the specification
/// leaves undefined (5-31). Static storage.
std::string_view nak_code_name(std::uint8_t code) noexcept;

/// RNR NAK timer encoding: minimum time the requester waits before retrying, indexed by the
/// 5-bit timer code [picoseconds]. Code 0 is the longest (655.36 ms).
inline constexpr std::array<timing::sim_time, 32> rnr_timer_table = {
    timing::microseconds(655'360), timing::microseconds(10),      timing::microseconds(20),
    timing::microseconds(30),      timing::microseconds(40),      timing::microseconds(60),
    timing::microseconds(80),      timing::microseconds(120),     timing::microseconds(160),
    timing::microseconds(240),     timing::microseconds(320),     timing::microseconds(480),
    timing::microseconds(640),     timing::microseconds(960),     timing::microseconds(1'280),
    timing::microseconds(1'920),   timing::microseconds(2'560),   timing::microseconds(3'840),
    timing::microseconds(5'120),   timing::microseconds(7'680),   timing::microseconds(10'240),
    timing::microseconds(15'360),  timing::microseconds(20'480),  timing::microseconds(30'720),
    timing::microseconds(40'960),  timing::microseconds(61'440),  timing::microseconds(81'920),
    timing::microseconds(122'880), timing::microseconds(163'840), timing::microseconds(245'760),
    timing::microseconds(327'680), timing::microseconds(491'520),
};

/// The RNR delay a timer code (low 5 bits of `timer_code`) stands for [picoseconds].
constexpr timing::sim_time rnr_timer(std::uint8_t timer_code) noexcept {
    return rnr_timer_table[timer_code & 0x1F];
}

/// ACK credit encoding: receive WQEs the responder has available, indexed by credit code 0-30.
inline constexpr std::array<std::uint16_t, 31> credit_table = {
    0,   1,   2,   3,   4,    6,    8,    12,   16,   24,   32,   48,    64,    96,    128,   192,
    256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

/// Number of credits a credit code stands for; nullopt for credit_code_invalid (no limit
/// advertised). Only the low 5 bits of `credit_code` are used.
constexpr std::optional<std::uint32_t> credit_count(std::uint8_t credit_code) noexcept {
    const std::uint8_t c = credit_code & 0x1F;
    if (c == credit_code_invalid) {
        return std::nullopt;
    }
    return credit_table[c];
}

// ---------------------------------------------------------------------------------------------
// Addresses

/// An IP address as the frame's IP header carries it. Same byte layout as core::net_address:
/// IPv4 in bytes[0..3], network order.
struct ip_address {
    bool v6 = false;
    std::array<std::uint8_t, 16> bytes{};

    /// The IPv4 address a.b.c.d.
    static constexpr ip_address v4(std::uint8_t a, std::uint8_t b, std::uint8_t c,
                                   std::uint8_t d) noexcept {
        ip_address r;
        r.bytes[0] = a;
        r.bytes[1] = b;
        r.bytes[2] = c;
        r.bytes[3] = d;
        return r;
    }

    /// The IPv6 address with the 16 given bytes (network order).
    static constexpr ip_address v6_from(const std::array<std::uint8_t, 16>& b) noexcept {
        ip_address r;
        r.v6 = true;
        r.bytes = b;
        return r;
    }

    /// Same family and bytes. The bytes are compared as two words: the defaulted comparison
    /// called memcmp, and the engine compares a frame's source with its QP's peer for every
    /// frame it receives.
    friend constexpr bool operator==(const ip_address& a, const ip_address& b) noexcept {
        using words = std::array<std::uint64_t, 2>;
        const auto x = std::bit_cast<words>(a.bytes);
        const auto y = std::bit_cast<words>(b.bytes);
        return a.v6 == b.v6 && ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
    }
    /// An order (family, then bytes) for maps keyed by address.
    friend constexpr auto operator<=>(const ip_address&, const ip_address&) = default;
};

/// The adapter at `a`'s MAC: locally administered unicast (RFC 7042 section 2.1: bit 1 of the
/// first octet set) and carrying the low bytes of the IP address, so each adapter has a
/// stable, distinct one: 02:00:a:b:c:d for IPv4 a.b.c.d, 02 and the last five bytes for IPv6.
/// A capture's Ethernet headers and the CM's CA GUID (cm_proto.hpp) are derived from it.
constexpr std::array<std::uint8_t, 6> adapter_mac(const ip_address& a) noexcept {
    std::array<std::uint8_t, 6> mac{0x02};
    for (std::size_t i = 1; i < mac.size(); ++i) {
        mac[i] = a.v6 ? a.bytes[10 + i] : (i == 1 ? 0 : a.bytes[i - 2]);
    }
    return mac;
}

}  // namespace ndksim::wire
