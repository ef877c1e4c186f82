// SPDX-License-Identifier: MIT
#pragma once
// Connection-management messages: InfiniBand CM MADs (IBA vol. 1 chapter 12) carried the way
// a RoCE fabric carries them, as UD SEND_ONLY packets from QP 1 to QP 1 with the GSI Q_Key
// (BTH + DETH + 256-byte MAD + ICRC), so a capture shows the handshake as Wireshark decodes
// any RoCE CM exchange: ConnectRequest, ConnectReply, ReadyToUse, ConnectReject,
// DisconnectRequest, DisconnectReply.
//
// Connections are addressed as RDMA CM addresses them over RoCE (IBA vol. 1 annex A11, the
// RDMA IP CM service): a REQ names the listener's ND port in its service id
// (0x0000000001060000 | port) and carries the IP CM header (IP version, source port, source
// and destination IP address) in the first 36 bytes of its private data; the consumer's
// private data follows. The primary path's GIDs are the two IP addresses.
//
// IBA's private data fields have a fixed size (REQ 92, REP 196, REJ 148, RTU 224, DREQ 220,
// DREP 224 bytes) and no length. ndksim writes the length of the consumer's private data in
// the MAD's attribute modifier, which the CM class leaves 0, so that NdkGetConnectionData
// returns exactly the bytes the peer's consumer gave.
//
// cm_layout.hpp has the layouts, docs/wire-format.md every field and the order of the checks.
// Decoding reads nothing before the checks that cover it passed.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "wire/cm_layout.hpp"
#include "wire/codec.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {

/// MAD common header fields of every CM message (IBA vol. 1 13.4, MADs; 12.6, CM messages).
inline constexpr std::uint8_t cm_mad_base_version = 1;
inline constexpr std::uint8_t cm_mad_class = 0x07;   ///< Communication Management
inline constexpr std::uint8_t cm_class_version = 2;  ///< the CM class since IBA 1.2
inline constexpr std::uint8_t cm_mad_method = 0x03;  ///< Send(): every CM message
inline constexpr std::size_t cm_mad_header_size = sizeof(mad_header_layout);

/// Most consumer private data a message carries [bytes] (a REP's 196).
inline constexpr std::size_t cm_max_private_data = 196;

/// A CM frame: BTH + DETH + MAD + ICRC [bytes]; every CM frame has this size.
inline constexpr std::size_t cm_frame_size =
    bth_size + deth_size + cm_mad_size + pad_for(cm_mad_size) + icrc_size;

/// CM messages ndksim sends. The value indexes cm_type_table.
enum class cm_type : std::uint8_t {
    invalid = 0,
    request = 1,             ///< REQ: connect request (NdkConnect)
    reply = 2,               ///< REP: accept (NdkAccept)
    ready_to_use = 3,        ///< RTU: connection established (NdkCompleteConnect)
    reject = 4,              ///< REJ: NdkReject, a closed connector, or a refused request
    disconnect_request = 5,  ///< DREQ: NdkDisconnect, a closed connector, a failed QP
    disconnect_reply = 6,    ///< DREP: answer to a DREQ
};
inline constexpr std::size_t cm_type_count = 7;

/// Facts about each message type, indexed by cm_type.
struct cm_type_info {
    std::string_view name;              ///< "request"
    std::string_view iba_name;          ///< "REQ"
    std::uint16_t attribute_id;         ///< MAD attribute ID (IBA vol. 1 12.6); 0: invalid
    std::uint16_t private_data_offset;  ///< where the consumer's private data starts [bytes]
    std::uint16_t max_private_data;     ///< most consumer private data it carries [bytes]
    bool valid;                         ///< false only for cm_type::invalid
};
/// REQ's consumer data follows the IP CM header; RTU, DREQ and DREP carry none, as the NDK
/// calls that send them (NdkCompleteConnect, NdkDisconnect) take none.
inline constexpr std::array<cm_type_info, cm_type_count> cm_type_table = {{
    {"invalid", "", 0, 0, 0, false},
    {"request", "REQ", 0x0010, cm_req_ip_cm_offset + sizeof(ip_cm_header_layout),
     cm_req_consumer_data, true},
    {"reply", "REP", 0x0013, offsetof(cm_rep_layout, private_data),
     sizeof(cm_rep_layout::private_data), true},
    {"ready_to_use", "RTU", 0x0014, offsetof(cm_rtu_layout, private_data), 0, true},
    {"reject", "REJ", 0x0012, offsetof(cm_rej_layout, private_data),
     sizeof(cm_rej_layout::private_data), true},
    {"disconnect_request", "DREQ", 0x0015, offsetof(cm_dreq_layout, private_data), 0, true},
    {"disconnect_reply", "DREP", 0x0016, offsetof(cm_rtu_layout, private_data), 0, true},
}};

/// The row of a cm_type value; out-of-range values give the invalid row. Static storage.
constexpr const cm_type_info& cm_type_lookup(std::uint32_t raw) noexcept {
    return raw < cm_type_table.size() ? cm_type_table[raw] : cm_type_table[0];
}

/// The type whose attribute ID is `attribute_id`; cm_type::invalid for any other (MRA, LAP,
/// APR, SIDR and ClassPortInfo included: ndksim neither sends nor takes them).
cm_type cm_type_of_attribute(std::uint16_t attribute_id) noexcept;

/// REJ "Message Rejected" (IBA vol. 1 12.6, REJ): what the REJ answers.
enum class cm_rejected : std::uint8_t {
    request = 0,  ///< the peer's REQ (the passive side refuses)
    reply = 1,    ///< the peer's REP (the active side refuses)
    other = 2,    ///< neither: the sender abandons a connection it was setting up
};

/// REJ reasons ndksim sends (IBA vol. 1 12.6, "REJ Reason"; any 16-bit value decodes).
enum class cm_reject_reason : std::uint16_t {
    invalid_comm_id = 6,     ///< the message names a connection that no longer exists here
    invalid_service_id = 8,  ///< no listener accepts requests on that address and port
    stale_connection = 10,   ///< the connection named is past taking that message
    consumer = 28,           ///< the consumer rejected (NdkReject) or closed its connector
};

/// The name of a reject reason ("consumer"), or "other". Static storage.
std::string_view cm_reject_reason_name(std::uint16_t reason) noexcept;

/// One CM message, host order. Each type carries only some fields (marked); decoding leaves
/// the others at their defaults, and encoding ignores them.
struct cm_message {
    cm_type type = cm_type::request;
    /// MAD transaction id: the active side's communication id for every message of a
    /// connection; an answer that needs no state echoes the id of the message it answers.
    std::uint64_t transaction_id = 0;
    std::uint32_t local_connection_id = 0;   ///< the sender's communication id
    std::uint32_t remote_connection_id = 0;  ///< the receiver's; not in a REQ; 0 if unknown

    // REQ: primary path GIDs and the IP CM header (they must agree), service id.
    ip_address src_ip;           ///< sender (same family as dst_ip)
    ip_address dst_ip;           ///< receiver
    std::uint16_t src_port = 0;  ///< sender's ND port (IP CM header)
    std::uint16_t dst_port = 0;  ///< receiver's ND port (service id)

    // REQ and REP.
    std::uint64_t ca_guid = 0;              ///< sender's CA GUID (ca_guid_for)
    std::uint32_t qp_number = 0;            ///< sender's QP (24 bits); in a DREQ the receiver's
    std::uint32_t start_psn = 0;            ///< first PSN the sender sends (24 bits)
    std::uint32_t inbound_read_limit = 0;   ///< responder resources (8 bits): reads accepted
    std::uint32_t outbound_read_limit = 0;  ///< initiator depth (8 bits): reads issued
    std::uint8_t rnr_retry_count = 0;       ///< 3 bits; 7 = for ever
    bool srq = false;                       ///< the sender's QP takes receives from an SRQ

    // REQ: the sender's transport settings (informational: each adapter uses its own).
    std::uint8_t cm_response_timeout = 0;  ///< 5 bits: 4.096 us * 2^n per CM attempt
    std::uint8_t max_cm_retries = 0;       ///< 4 bits: CM resends after the first send
    std::uint8_t local_ack_timeout = 0;    ///< 5 bits: 4.096 us * 2^n; 0 = no transport timer
    std::uint8_t retry_count = 0;          ///< 3 bits: transport retries
    std::uint8_t path_mtu = 0;             ///< 4 bits: IBA MTU code (1 = 256 ... 5 = 4096)

    // REJ.
    cm_rejected rejected_message = cm_rejected::request;
    std::uint16_t reject_reason = 0;  ///< cm_reject_reason (any value decodes)

    std::uint16_t private_data_length = 0;  ///< bytes of private_data in use
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
    truncated,         ///< shorter than the MAD header, or than a 256-byte MAD
    bad_mad,           ///< MAD base version, class or method is not a CM Send
    bad_version,       ///< CM class version is not 2
    bad_length,        ///< longer than a 256-byte MAD
    bad_type,          ///< an attribute ndksim does not take (cm_type_of_attribute)
    bad_private_data,  ///< private-data length above what the type carries
    bad_field,         ///< a field out of its range, a REQ that is not an IP CM REQ for RC
                       ///< (service id, transport type, IP CM version, addresses), a REJ
                       ///< naming no message or more ARI than it has room for
    no_room,           ///< encode: the output buffer is too small
};
inline constexpr std::size_t cm_error_count = 10;

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

/// The CA GUID of the adapter at `address`: the EUI-64 form of the MAC a capture gives it
/// (adapter_mac: MAC bytes 0-2, FF FE, MAC bytes 3-5).
std::uint64_t ca_guid_for(const ip_address& address) noexcept;

/// The IBA MTU code (1 = 256 ... 5 = 4096 bytes) of the largest IBA MTU within `mtu` bytes.
std::uint8_t iba_mtu_code(std::uint32_t mtu) noexcept;

/// The 5-bit IBA timeout code n (4.096 us * 2^n) of the shortest such time >= `t`, n >= 1;
/// 0 for 0 (IBA's "no timer" in a local ACK timeout), 31 for anything beyond 2^31 units.
std::uint8_t iba_timeout_code(timing::sim_time t) noexcept;

/// Writes the MAD of `m` (cm_mad_size bytes) at the start of `out`.
/// @return size = cm_mad_size; or the error: bad_type, bad_private_data, bad_field, no_room.
///         Nothing is written on error.
cm_encode_result encode_cm_payload(const cm_message& m, std::span<std::byte> out) noexcept;

/// Builds the whole CM frame: BTH (UD SEND_ONLY to QP 1, P_Key 0xFFFF, PSN `psn`), DETH (GSI
/// Q_Key, source QP 1), the MAD and the ICRC for `f`.
/// @param psn    the sender's CM datagram sequence number (24 bits; higher bits ignored)
/// @param frame  output buffer; cm_frame_size bytes
/// @return size = cm_frame_size; or the payload errors above.
cm_encode_result encode_cm_frame(const cm_message& m, std::uint32_t psn, const flow& f,
                                 std::span<std::byte> frame) noexcept;

/// Validates and parses a CM MAD (the order of the checks is in docs/wire-format.md).
cm_decode_result decode_cm_payload(std::span<const std::byte> payload) noexcept;

/// True when a decoded packet is a CM datagram: UD SEND_ONLY to QP 1 with the GSI Q_Key.
bool is_cm_packet(const decoded_packet& p) noexcept;

/// decode_cm_payload of a decoded packet's payload; cm_error::not_cm unless is_cm_packet(p).
cm_decode_result decode_cm(const decoded_packet& p) noexcept;

}  // namespace ndksim::wire
