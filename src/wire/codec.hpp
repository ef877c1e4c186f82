// SPDX-License-Identifier: MIT
#pragma once
// Packet codec: RoCEv2 frames (BTH through ICRC, the UDP payload) to and from header fields.
//
// Sending a packet takes two steps so that payload goes straight from host memory into the
// frame buffer:
//
//   encode_result r = encode_headers(h, payload_len, frame);    // BTH + extension headers
//   copy payload_len bytes into r.payload(frame)                // e.g. sge_cursor
//   std::size_t n = finish_frame(frame, r, flow);               // pad + ICRC; n bytes to send
//
// encode_frame() does the three steps for a payload that is already in a buffer.
//
// Receiving: decode_frame() validates a frame in a fixed order (habit 9 of STYLE.md) before it
// reads anything else from it:
//
//   1. length >= BTH                              else truncated
//   2. BTH transport version == 0                 else bad_version
//   3. opcode valid (opcode_table)                else bad_opcode
//   4. length >= headers of the opcode + ICRC,
//      length <= max_frame_size, length % 4 == 0,
//      no payload bytes on an opcode without one  else bad_length
//   5. pad count 0 on first/middle packets and on
//      opcodes without payload, pad <= payload    else bad_pad
//   6. ICRC matches                               else bad_icrc
//
// and only then parses the header fields. It never reads outside the frame, allocates nothing
// and logs at trace level only. The fields' meaning (PSN order, QP state, keys, syndromes) is
// checked by the engine, not here.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "wire/icrc.hpp"
#include "wire/opcode_table.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {

/// BTH fields, host order.
struct bth_fields {
    opcode op = opcode::rc_send_only;
    bool solicited = false;      ///< SE: the receiver's CQ notification fires
    bool mig_req = false;        ///< MigReq
    std::uint8_t pad_count = 0;  ///< decode: pad bytes after the payload; encode: ignored
    std::uint16_t pkey = default_pkey;
    bool fecn = false;          ///< not covered by the ICRC
    bool becn = false;          ///< not covered by the ICRC
    std::uint32_t dest_qp = 0;  ///< 24 bits
    bool ack_req = false;       ///< the responder must acknowledge this packet
    std::uint32_t psn = 0;      ///< 24 bits

    friend bool operator==(const bth_fields&, const bth_fields&) = default;
};

/// DETH fields (UD).
struct deth_fields {
    std::uint32_t qkey = 0;
    std::uint32_t src_qp = 0;  ///< 24 bits

    friend bool operator==(const deth_fields&, const deth_fields&) = default;
};

/// RETH fields (RDMA WRITE first/only, RDMA READ request).
struct reth_fields {
    std::uint64_t va = 0;          ///< remote virtual address
    std::uint32_t rkey = 0;        ///< remote token
    std::uint32_t dma_length = 0;  ///< bytes of the whole operation

    friend bool operator==(const reth_fields&, const reth_fields&) = default;
};

/// AtomicETH fields (CMP_SWAP, FETCH_ADD).
struct atomic_eth_fields {
    std::uint64_t va = 0;
    std::uint32_t rkey = 0;
    std::uint64_t swap_add = 0;  ///< swap value or addend
    std::uint64_t compare = 0;   ///< compare value (CMP_SWAP)

    friend bool operator==(const atomic_eth_fields&, const atomic_eth_fields&) = default;
};

/// AETH fields (ACK, read responses first/last/only, atomic ACK).
struct aeth_fields {
    std::uint8_t syndrome = ack_syndrome();  ///< see make_syndrome / syndrome_type in proto.hpp
    std::uint32_t msn = 0;                   ///< 24 bits

    friend bool operator==(const aeth_fields&, const aeth_fields&) = default;
};

/// The headers of one packet. Only the extension headers the opcode carries (opcode_info::has)
/// are written by encode; decode fills those and leaves the others at their defaults.
struct packet_headers {
    bth_fields bth;
    deth_fields deth;
    reth_fields reth;
    atomic_eth_fields atomic_eth;
    aeth_fields aeth;
    std::uint64_t atomic_ack_original = 0;  ///< AtomicAckETH: remote value before the operation
    std::uint32_t immediate = 0;            ///< ImmDt, as the 32-bit big-endian word on the wire
    std::uint32_t invalidate_rkey = 0;      ///< IETH: the token the responder invalidates

    friend bool operator==(const packet_headers&, const packet_headers&) = default;
};

// ---------------------------------------------------------------------------------------------
// Encode

/// Why encode refused.
enum class encode_error : std::uint8_t {
    none,
    bad_opcode,   ///< opcode not in the table
    bad_field,    ///< a 24-bit field (dest QP, PSN, DETH source QP, AETH MSN) above 0xFFFFFF
    bad_payload,  ///< payload on an opcode without payload, or not a multiple of 4 bytes on a
                  ///< first/middle packet (only the last packet of a message may be padded)
    no_room,      ///< the frame buffer is too small, or the frame would exceed max_frame_size
};

/// The name of an encode error ("no_room"). Static storage.
std::string_view encode_error_name(encode_error e) noexcept;

/// Layout of a frame being built; returned by encode_headers, consumed by finish_frame.
struct encode_result {
    encode_error error = encode_error::none;
    std::size_t header_size = 0;   ///< BTH + extension headers; the payload starts here [bytes]
    std::size_t payload_size = 0;  ///< payload the caller writes at header_size [bytes]
    std::size_t pad_size = 0;      ///< pad after the payload (written by finish_frame) [bytes]
    std::size_t frame_size = 0;    ///< whole frame including ICRC [bytes]

    bool ok() const noexcept { return error == encode_error::none; }

    /// Where the caller writes the payload inside `frame` (the buffer given to encode_headers).
    std::span<std::byte> payload(std::span<std::byte> frame) const noexcept {
        return frame.subspan(header_size, payload_size);
    }
};

/// Writes the BTH and the extension headers of `h.bth.op` at the start of `frame`, with the pad
/// count that `payload_size` needs, after checking that the whole frame (headers, payload, pad,
/// ICRC) fits in `frame`. The transport version is always 0; h.bth.pad_count is ignored.
///
/// @param h             header fields; extension headers the opcode does not carry are ignored
/// @param payload_size  payload bytes that will follow the headers [bytes]
/// @param frame         the frame buffer (frame_capacity(mtu) bytes is always enough)
/// @return the layout on success; otherwise `error` says why and nothing was written.
encode_result encode_headers(const packet_headers& h, std::size_t payload_size,
                             std::span<std::byte> frame) noexcept;

/// The length of the frame encode_headers and finish_frame would make of `h` with a
/// `payload_size`-byte payload [bytes]; 0 when encode_headers would refuse it.
std::size_t frame_size_of(const packet_headers& h, std::size_t payload_size) noexcept;

/// Completes a frame whose headers encode_headers wrote and whose payload the caller wrote:
/// zeroes the pad bytes and appends the ICRC computed for `f`.
///
/// @param frame   the same buffer given to encode_headers
/// @param layout  the successful result of encode_headers for this frame
/// @param f       addresses and ports the frame travels with (see icrc.hpp)
/// @param with_icrc  false: the ICRC word is zeroed instead of computed, for a link on which
///                nothing can change the frame (transport::wants_icrc); write_icrc() fills it
///                in later if a capture needs it
/// @return the frame length to transmit [bytes]; 0 when `layout` failed or does not fit `frame`.
std::size_t finish_frame(std::span<std::byte> frame, const encode_result& layout, const flow& f,
                         bool with_icrc = true) noexcept;

/// Computes the ICRC of the `length`-byte frame at `frame` (ICRC word included) over `f` and
/// stores it in the frame's last four bytes. `length` must be at least bth_size + icrc_size.
void write_icrc(std::byte* frame, std::size_t length, const flow& f) noexcept;

/// encode_headers + copy of `payload` + finish_frame in one call. Returns the layout, whose
/// frame_size is the number of bytes to transmit when ok().
encode_result encode_frame(const packet_headers& h, std::span<const std::byte> payload,
                           const flow& f, std::span<std::byte> frame) noexcept;

// ---------------------------------------------------------------------------------------------
// Decode

/// Why decode refused a frame, in the order the checks run.
enum class decode_error : std::uint8_t {
    none,
    truncated,    ///< shorter than a BTH
    bad_version,  ///< BTH transport version is not 0
    bad_opcode,   ///< opcode not in the table
    bad_length,   ///< too short for the opcode's headers + ICRC, too long, not whole words, or
                  ///< payload bytes on an opcode that carries none
    bad_pad,      ///< pad count where none is allowed, or larger than the payload
    bad_icrc,     ///< ICRC mismatch (corruption, or a flow other than the sender's)
};
inline constexpr std::size_t decode_error_count = 7;

/// The name of a decode error ("bad_icrc"), for logs and counter labels. Static storage.
std::string_view decode_error_name(decode_error e) noexcept;

/// A decoded frame. `payload` points into the frame given to decode_frame and is valid as long
/// as that buffer is.
struct decoded_packet {
    packet_headers headers;
    const opcode_info* info = &opcode_table[0xFF];  ///< row of headers.bth.op; never null
    std::size_t header_size = 0;                    ///< BTH + extension headers [bytes]
    std::span<const std::byte> payload;             ///< payload without pad and ICRC
};

/// Result of decode_frame.
struct decode_result {
    decode_error error = decode_error::none;
    decoded_packet packet;  ///< meaningful when ok()

    bool ok() const noexcept { return error == decode_error::none; }
};

/// Validates and parses one frame (see the order above).
///
/// @param frame  the received bytes: BTH through ICRC, nothing before or after
/// @param f      addresses and ports the frame arrived with, as the sender saw them (src = the
///               sender): for a frame from peer P to this adapter A, {P, A, P's port, A's port}
/// @param icrc_checked  the ICRC was already verified over the same bytes and flow (a socket
///               receiver's check, frame::icrc_checked): check 6 is skipped, every other one runs
/// @return the parsed packet, or the first failing check.
decode_result decode_frame(std::span<const std::byte> frame, const flow& f,
                           bool icrc_checked = false) noexcept;

}  // namespace ndksim::wire
