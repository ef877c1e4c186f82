// SPDX-License-Identifier: MIT
#pragma once
// The opcode table: every per-opcode fact of the transport (which extension headers follow the
// BTH and where, whether payload follows, the packet's place in its message, its class and
// direction) in one constexpr array indexed by the opcode byte. Opcodes outside the supported
// set (the RC opcodes and the UD SEND_ONLY opcodes) map to a row whose `valid` is false.
// opcode_table.cpp checks the table's consistency at compile time.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "wire/proto.hpp"

namespace ndksim::wire {

/// Opcodes: bits 7:5 select the transport service (000 RC, 011 UD), bits 4:0 the operation.
enum class opcode : std::uint8_t {
    rc_send_first = 0x00,
    rc_send_middle = 0x01,
    rc_send_last = 0x02,
    rc_send_last_imm = 0x03,
    rc_send_only = 0x04,
    rc_send_only_imm = 0x05,
    rc_write_first = 0x06,
    rc_write_middle = 0x07,
    rc_write_last = 0x08,
    rc_write_last_imm = 0x09,
    rc_write_only = 0x0A,
    rc_write_only_imm = 0x0B,
    rc_read_request = 0x0C,
    rc_read_response_first = 0x0D,
    rc_read_response_middle = 0x0E,
    rc_read_response_last = 0x0F,
    rc_read_response_only = 0x10,
    rc_ack = 0x11,
    rc_atomic_ack = 0x12,
    rc_cmp_swap = 0x13,
    rc_fetch_add = 0x14,
    rc_send_last_inv = 0x16,
    rc_send_only_inv = 0x17,
    ud_send_only = 0x64,
    ud_send_only_imm = 0x65,
};

/// Extension headers, in the order they follow the BTH on the wire.
enum class ext : std::uint8_t { deth, reth, atomic_eth, aeth, atomic_ack_eth, immdt, ieth };
inline constexpr std::size_t ext_count = 7;

/// Size of each extension header, indexed by ext [bytes].
inline constexpr std::array<std::uint8_t, ext_count> ext_size = {
    deth_size, reth_size, atomic_eth_size, aeth_size, atomic_ack_eth_size, immdt_size, ieth_size,
};

/// A set of extension headers (bit i = ext i).
using ext_mask = std::uint8_t;

/// The mask bit of one extension header.
constexpr ext_mask ext_bit(ext e) noexcept {
    return static_cast<ext_mask>(1u << static_cast<unsigned>(e));
}

/// The name of an extension header ("reth"). Static storage.
std::string_view ext_name(ext e) noexcept;

/// Transport service of an opcode.
enum class service : std::uint8_t { none, rc, ud };

/// What an opcode does.
enum class op_class : std::uint8_t {
    invalid,
    send,           ///< SEND (all variants)
    write,          ///< RDMA WRITE
    read_request,   ///< RDMA READ request
    read_response,  ///< RDMA READ response
    ack,            ///< ACKNOWLEDGE (ACK, NAK, RNR NAK)
    atomic,         ///< CMP_SWAP, FETCH_ADD (requests) and ATOMIC ACKNOWLEDGE (response)
};

/// The packet's place in its message.
enum class op_position : std::uint8_t { none, first, middle, last, only };

/// Who sends the packet: the requester or the responder.
enum class op_direction : std::uint8_t { none, request, response };

/// Everything the codec and the engine need to know about one opcode.
struct opcode_info {
    std::string_view name = "invalid";  ///< "rc_send_first"; "invalid" for unsupported opcodes
    bool valid = false;                 ///< false: the frame is refused (decode_error::bad_opcode)
    service svc = service::none;
    op_class cls = op_class::invalid;
    op_position position = op_position::none;
    op_direction direction = op_direction::none;
    bool has_payload = false;      ///< payload may follow the headers (it may still be empty)
    ext_mask headers = 0;          ///< extension headers present
    std::uint8_t header_size = 0;  ///< BTH + extension headers [bytes]; 0 when not valid
    std::array<std::uint8_t, ext_count> offset{};  ///< frame offset of each header; 0 = absent

    /// True when extension header `e` is present.
    constexpr bool has(ext e) const noexcept { return (headers & ext_bit(e)) != 0; }

    /// Frame offset of extension header `e` [bytes]; 0 when it is absent.
    constexpr std::size_t offset_of(ext e) const noexcept {
        return offset[static_cast<std::size_t>(e)];
    }

    /// True for requester-to-responder packets.
    constexpr bool is_request() const noexcept { return direction == op_direction::request; }

    /// True for the first or only packet of a message.
    constexpr bool starts_message() const noexcept {
        return position == op_position::first || position == op_position::only;
    }

    /// True for the last or only packet of a message.
    constexpr bool ends_message() const noexcept {
        return position == op_position::last || position == op_position::only;
    }
};

namespace detail {

struct opcode_row {
    opcode op;
    std::string_view name;
    service svc;
    op_class cls;
    op_position position;
    op_direction direction;
    bool has_payload;
    ext_mask headers;
};

inline constexpr ext_mask h_deth = ext_bit(ext::deth);
inline constexpr ext_mask h_reth = ext_bit(ext::reth);
inline constexpr ext_mask h_atomic = ext_bit(ext::atomic_eth);
inline constexpr ext_mask h_aeth = ext_bit(ext::aeth);
inline constexpr ext_mask h_atomic_ack = ext_bit(ext::atomic_ack_eth);
inline constexpr ext_mask h_imm = ext_bit(ext::immdt);
inline constexpr ext_mask h_ieth = ext_bit(ext::ieth);

using enum opcode;
inline constexpr service rc = service::rc;
inline constexpr service ud = service::ud;
inline constexpr op_class send = op_class::send;
inline constexpr op_class write = op_class::write;
inline constexpr op_class read_request = op_class::read_request;
inline constexpr op_class read_response = op_class::read_response;
inline constexpr op_class ack = op_class::ack;
inline constexpr op_class atomic = op_class::atomic;
inline constexpr op_position first = op_position::first;
inline constexpr op_position middle = op_position::middle;
inline constexpr op_position last = op_position::last;
inline constexpr op_position only = op_position::only;
inline constexpr op_direction request = op_direction::request;
inline constexpr op_direction response = op_direction::response;

// clang-format off
inline constexpr std::array<opcode_row, 25> opcode_rows = {{
    // opcode                 name                       svc cls            position dir       payload headers
    {rc_send_first,           "rc_send_first",           rc, send,          first,  request,  true,  0},
    {rc_send_middle,          "rc_send_middle",          rc, send,          middle, request,  true,  0},
    {rc_send_last,            "rc_send_last",            rc, send,          last,   request,  true,  0},
    {rc_send_last_imm,        "rc_send_last_imm",        rc, send,          last,   request,  true,  h_imm},
    {rc_send_only,            "rc_send_only",            rc, send,          only,   request,  true,  0},
    {rc_send_only_imm,        "rc_send_only_imm",        rc, send,          only,   request,  true,  h_imm},
    {rc_write_first,          "rc_write_first",          rc, write,         first,  request,  true,  h_reth},
    {rc_write_middle,         "rc_write_middle",         rc, write,         middle, request,  true,  0},
    {rc_write_last,           "rc_write_last",           rc, write,         last,   request,  true,  0},
    {rc_write_last_imm,       "rc_write_last_imm",       rc, write,         last,   request,  true,  h_imm},
    {rc_write_only,           "rc_write_only",           rc, write,         only,   request,  true,  h_reth},
    {rc_write_only_imm,       "rc_write_only_imm",       rc, write,         only,   request,  true,  h_reth | h_imm},
    {rc_read_request,         "rc_read_request",         rc, read_request,  only,   request,  false, h_reth},
    {rc_read_response_first,  "rc_read_response_first",  rc, read_response, first,  response, true,  h_aeth},
    {rc_read_response_middle, "rc_read_response_middle", rc, read_response, middle, response, true,  0},
    {rc_read_response_last,   "rc_read_response_last",   rc, read_response, last,   response, true,  h_aeth},
    {rc_read_response_only,   "rc_read_response_only",   rc, read_response, only,   response, true,  h_aeth},
    {rc_ack,                  "rc_ack",                  rc, ack,           only,   response, false, h_aeth},
    {rc_atomic_ack,           "rc_atomic_ack",           rc, atomic,        only,   response, false, h_aeth | h_atomic_ack},
    {rc_cmp_swap,             "rc_cmp_swap",             rc, atomic,        only,   request,  false, h_atomic},
    {rc_fetch_add,            "rc_fetch_add",            rc, atomic,        only,   request,  false, h_atomic},
    {rc_send_last_inv,        "rc_send_last_inv",        rc, send,          last,   request,  true,  h_ieth},
    {rc_send_only_inv,        "rc_send_only_inv",        rc, send,          only,   request,  true,  h_ieth},
    {ud_send_only,            "ud_send_only",            ud, send,          only,   request,  true,  h_deth},
    {ud_send_only_imm,        "ud_send_only_imm",        ud, send,          only,   request,  true,  h_deth | h_imm},
}};
// clang-format on

/// Expands the rows into the 256-entry table, computing header offsets and sizes.
consteval std::array<opcode_info, 256> build_opcode_table() {
    std::array<opcode_info, 256> table{};
    for (const opcode_row& row : opcode_rows) {
        opcode_info& info = table[static_cast<std::uint8_t>(row.op)];
        info.name = row.name;
        info.valid = true;
        info.svc = row.svc;
        info.cls = row.cls;
        info.position = row.position;
        info.direction = row.direction;
        info.has_payload = row.has_payload;
        info.headers = row.headers;
        std::size_t at = bth_size;
        for (std::size_t e = 0; e < ext_count; ++e) {
            if ((row.headers & (1u << e)) != 0) {
                info.offset[e] = static_cast<std::uint8_t>(at);
                at += ext_size[e];
            }
        }
        info.header_size = static_cast<std::uint8_t>(at);
    }
    return table;
}

}  // namespace detail

/// The table, indexed by the opcode byte.
inline constexpr std::array<opcode_info, 256> opcode_table = detail::build_opcode_table();

/// Number of supported opcodes (rows with valid == true).
inline constexpr std::size_t valid_opcode_count = detail::opcode_rows.size();

/// The row of a raw opcode value. Values outside the table (above 255) and unsupported opcodes
/// give a row whose `valid` is false; the returned reference has static storage.
constexpr const opcode_info& opcode_lookup(std::uint32_t raw) noexcept {
    return raw < opcode_table.size() ? opcode_table[raw] : opcode_table[0xFF];
}

/// The row of an opcode.
constexpr const opcode_info& opcode_lookup(opcode op) noexcept {
    return opcode_table[static_cast<std::uint8_t>(op)];
}

/// The name of an opcode value ("rc_write_only", "invalid"). Static storage.
constexpr std::string_view opcode_name(std::uint32_t raw) noexcept {
    return opcode_lookup(raw).name;
}

/// The names of the enums above ("read_response", "middle", "request", "ud"). Static storage.
std::string_view op_class_name(op_class c) noexcept;
std::string_view op_position_name(op_position p) noexcept;
std::string_view op_direction_name(op_direction d) noexcept;
std::string_view service_name(service s) noexcept;

}  // namespace ndksim::wire
