#pragma once
// Connection-management messages. They travel on the data wire as InfiniBand UD SEND_ONLY
// packets from QP 1 to QP 1 with the GSI Q_Key (BTH + DETH + CM payload + ICRC), the way CM
// datagrams do on a real fabric, so a capture shows valid UD packets.
//
// The CM payload starts with a 24-byte InfiniBand MAD common header of a vendor-specific
// management class (tshark labels it "VENDOR"), whose class version is the CM version and
// whose attribute ID is the message type, followed by the ndksim CM body and the private data.
// docs/wire-format.md gives every field's offset. Decoding validates, in order: length >= MAD
// header, MAD base version/class/method, CM version, length >= version-1 body, magic, header
// size, message type, private-data length (and whether the type may carry any), total length,
// field ranges; only then does it read the fields.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "wire/codec.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {

/// CM payload format version (MAD class version).
inline constexpr std::uint8_t cm_version = 1;

/// MAD fields that mark a CM payload.
inline constexpr std::uint8_t cm_mad_base_version = 1;
inline constexpr std::uint8_t cm_mad_class = 0x0F;   ///< vendor specific, range 1 (0x09-0x0F)
inline constexpr std::uint8_t cm_mad_method = 0x03;  ///< Send()

/// First four body bytes: "NDKC".
inline constexpr std::uint32_t cm_magic = 0x4E444B43;

/// Most private data a message carries [bytes].
inline constexpr std::size_t cm_max_private_data = 196;

/// CM payload layout, version 1 (network byte order). Private data follows at header_size.
struct cm_layout {
    // InfiniBand MAD common header.
    std::uint8_t base_version;           ///< 0: cm_mad_base_version
    std::uint8_t mgmt_class;             ///< 1: cm_mad_class
    std::uint8_t class_version;          ///< 2: cm_version
    std::uint8_t method;                 ///< 3: cm_mad_method
    std::uint8_t status[2];              ///< 4: 0
    std::uint8_t class_specific[2];      ///< 6: 0
    std::uint8_t transaction_id[8];      ///< 8: sender's local connection id (informational)
    std::uint8_t attribute_id[2];        ///< 16: message type (cm_type)
    std::uint8_t reserved0[2];           ///< 18: 0
    std::uint8_t attribute_modifier[4];  ///< 20: 0
    // ndksim CM body.
    std::uint8_t magic[4];                 ///< 24: cm_magic
    std::uint8_t header_size[2];           ///< 28: bytes before the private data [bytes]
    std::uint8_t flags;                    ///< 30: bit 0: addresses are IPv6; others 0
    std::uint8_t reserved1;                ///< 31: 0
    std::uint8_t local_connection_id[4];   ///< 32: sender's connection id
    std::uint8_t remote_connection_id[4];  ///< 36: receiver's connection id (0 if unknown)
    std::uint8_t src_ip[16];               ///< 40: sender's IP (IPv4 in the first 4 bytes)
    std::uint8_t dst_ip[16];               ///< 56: receiver's IP
    std::uint8_t src_port[2];              ///< 72: sender's ND port
    std::uint8_t dst_port[2];              ///< 74: receiver's ND port
    std::uint8_t qp_number[4];             ///< 76: sender's QP number (24 bits)
    std::uint8_t start_psn[4];             ///< 80: first PSN the sender sends (24 bits)
    std::uint8_t inbound_read_limit[4];    ///< 84: RDMA reads the sender accepts at once
    std::uint8_t outbound_read_limit[4];   ///< 88: RDMA reads the sender issues at once
    std::uint8_t reject_reason[4];         ///< 92: why a reject (0 otherwise)
    std::uint8_t private_data_length[2];   ///< 96: [bytes], at most cm_max_private_data
    std::uint8_t reserved2[2];             ///< 98: 0
};
static_assert(sizeof(cm_layout) == 100);
static_assert(offsetof(cm_layout, magic) == 24 && offsetof(cm_layout, qp_number) == 76);

/// Size of the MAD common header at the start of a CM payload [bytes].
inline constexpr std::size_t cm_mad_header_size = 24;
/// header_size written by version 1 [bytes]; a reader accepts larger values (later fields).
inline constexpr std::size_t cm_header_size_v1 = sizeof(cm_layout);
/// Largest header_size accepted [bytes].
inline constexpr std::size_t cm_max_header_size = 256;
/// Largest CM payload version 1 writes [bytes].
inline constexpr std::size_t cm_max_payload = cm_header_size_v1 + cm_max_private_data;
/// Largest CM frame version 1 writes: BTH + DETH + payload + pad + ICRC [bytes].
inline constexpr std::size_t cm_max_frame_size =
    bth_size + deth_size + cm_max_payload + pad_for(cm_max_payload) + icrc_size;

/// CM message types (MAD attribute ID).
enum class cm_type : std::uint16_t {
    invalid = 0,
    request = 1,             ///< connect request (NdkConnect)
    reply = 2,               ///< accept (NdkAccept)
    ready_to_use = 3,        ///< connection established (NdkCompleteConnect)
    reject = 4,              ///< refuse (NdkReject), or a failed request
    disconnect_request = 5,  ///< NdkDisconnect
    disconnect_reply = 6,    ///< answer to a disconnect request
};
inline constexpr std::size_t cm_type_count = 7;

/// Facts about each message type, indexed by cm_type.
struct cm_type_info {
    std::string_view name;      ///< "request"
    bool valid;                 ///< false only for cm_type::invalid
    bool carries_private_data;  ///< private data allowed (else its length must be 0)
};
inline constexpr std::array<cm_type_info, cm_type_count> cm_type_table = {{
    {"invalid", false, false},
    {"request", true, true},
    {"reply", true, true},
    {"ready_to_use", true, false},
    {"reject", true, true},
    {"disconnect_request", true, false},
    {"disconnect_reply", true, false},
}};

/// The row of a raw type value; out-of-range values give the invalid row. Static storage.
constexpr const cm_type_info& cm_type_lookup(std::uint32_t raw) noexcept {
    return raw < cm_type_table.size() ? cm_type_table[raw] : cm_type_table[0];
}

/// One CM message, host order.
struct cm_message {
    cm_type type = cm_type::request;
    std::uint32_t local_connection_id = 0;   ///< the sender's id for this connection
    std::uint32_t remote_connection_id = 0;  ///< the receiver's id; 0 in a request
    ip_address src_ip;                       ///< sender (same family as dst_ip)
    ip_address dst_ip;                       ///< receiver
    std::uint16_t src_port = 0;              ///< sender's ND port
    std::uint16_t dst_port = 0;              ///< receiver's ND port
    std::uint32_t qp_number = 0;             ///< sender's QP number (24 bits)
    std::uint32_t start_psn = 0;             ///< first PSN the sender sends (24 bits)
    std::uint32_t inbound_read_limit = 0;    ///< RDMA reads in flight the sender accepts
    std::uint32_t outbound_read_limit = 0;   ///< RDMA reads in flight the sender issues
    std::uint32_t reject_reason = 0;         ///< meaningful in a reject
    std::uint16_t private_data_length = 0;   ///< bytes of private_data in use
    std::array<std::byte, cm_max_private_data> private_data{};

    /// The private data in use (empty when private_data_length is out of range).
    std::span<const std::byte> private_data_view() const noexcept {
        return private_data_length <= private_data.size()
                   ? std::span<const std::byte>(private_data).first(private_data_length)
                   : std::span<const std::byte>();
    }

    /// Copies `data` into private_data; false (and nothing changed) if longer than the maximum.
    bool set_private_data(std::span<const std::byte> data) noexcept;

    friend bool operator==(const cm_message&, const cm_message&) = default;
};

/// Why a CM message could not be encoded or decoded.
enum class cm_error : std::uint8_t {
    none,
    not_cm,            ///< decode_cm: not a UD SEND_ONLY to QP 1 with the GSI Q_Key
    truncated,         ///< shorter than the MAD header, or than the version-1 body
    bad_mad,           ///< MAD base version, class or method, or magic, is not ours
    bad_version,       ///< CM version (MAD class version) is not cm_version
    bad_header_size,   ///< header_size < version-1 body, > cm_max_header_size, not whole
                       ///< words, or beyond the payload
    bad_type,          ///< unknown message type
    bad_private_data,  ///< private-data length > 196, or private data on a type without any
    bad_length,        ///< payload length != header_size + private-data length
    bad_field,         ///< QP number or PSN above 24 bits, mixed address families, or a
                       ///< reserved flag bit set
    no_room,           ///< encode: the output buffer is too small
};
inline constexpr std::size_t cm_error_count = 11;

/// The name of a CM error ("bad_private_data"). Static storage.
std::string_view cm_error_name(cm_error e) noexcept;

/// Result of the CM encoders.
struct cm_encode_result {
    cm_error error = cm_error::none;
    std::size_t size = 0;  ///< bytes written (payload or whole frame) when ok()

    bool ok() const noexcept { return error == cm_error::none; }
};

/// Result of the CM decoders.
struct cm_decode_result {
    cm_error error = cm_error::none;
    cm_message message;  ///< meaningful when ok()

    bool ok() const noexcept { return error == cm_error::none; }
};

/// Writes the CM payload of `m` (MAD header, body, private data) at the start of `out`.
/// @return size = payload bytes (cm_header_size_v1 + private data); or the error: bad_type,
///         bad_private_data, bad_field, no_room. Nothing is written on error.
cm_encode_result encode_cm_payload(const cm_message& m, std::span<std::byte> out) noexcept;

/// Builds the whole CM frame: BTH (UD SEND_ONLY to QP 1, P_Key 0xFFFF, PSN `psn`), DETH (GSI
/// Q_Key, source QP 1), the CM payload, pad and the ICRC for `f`.
/// @param psn    the sender's CM datagram sequence number (24 bits; higher bits ignored)
/// @param frame  output buffer; cm_max_frame_size bytes always suffice
/// @return size = frame bytes to transmit; or the payload errors above.
cm_encode_result encode_cm_frame(const cm_message& m, std::uint32_t psn, const flow& f,
                                 std::span<std::byte> frame) noexcept;

/// Validates and parses a CM payload (the order is in the file comment).
cm_decode_result decode_cm_payload(std::span<const std::byte> payload) noexcept;

/// True when a decoded packet is a CM datagram: UD SEND_ONLY to QP 1 with the GSI Q_Key.
bool is_cm_packet(const decoded_packet& p) noexcept;

/// decode_cm_payload of a decoded packet's payload; cm_error::not_cm unless is_cm_packet(p).
cm_decode_result decode_cm(const decoded_packet& p) noexcept;

}  // namespace ndksim::wire
