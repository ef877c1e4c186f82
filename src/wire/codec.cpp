// SPDX-License-Identifier: MIT
#include "wire/codec.hpp"

#include <algorithm>

#include "util/log.hpp"

namespace ndksim::wire {
namespace {

constexpr std::array<std::string_view, 5> encode_error_names = {
    "none", "bad_opcode", "bad_field", "bad_payload", "no_room",
};
constexpr std::array<std::string_view, decode_error_count> decode_error_names = {
    "none", "truncated", "bad_version", "bad_opcode", "bad_length", "bad_pad", "bad_icrc",
};

// One writer and one reader per extension header, indexed by ext (wire order). `p` points at
// the header inside the frame; the caller has checked that the whole header is inside it.

void write_deth(std::byte* p, const packet_headers& h) noexcept {
    store_be<4>(p + offsetof(deth_layout, qkey), h.deth.qkey);
    store_be<1>(p + offsetof(deth_layout, reserved), 0);
    store_be<3>(p + offsetof(deth_layout, src_qp), h.deth.src_qp);
}
void read_deth(const std::byte* p, packet_headers& h) noexcept {
    h.deth.qkey = u32(load_be<4>(p + offsetof(deth_layout, qkey)));
    h.deth.src_qp = u32(load_be<3>(p + offsetof(deth_layout, src_qp)));
}

void write_reth(std::byte* p, const packet_headers& h) noexcept {
    store_be<8>(p + offsetof(reth_layout, va), h.reth.va);
    store_be<4>(p + offsetof(reth_layout, rkey), h.reth.rkey);
    store_be<4>(p + offsetof(reth_layout, dma_length), h.reth.dma_length);
}
void read_reth(const std::byte* p, packet_headers& h) noexcept {
    h.reth.va = load_be<8>(p + offsetof(reth_layout, va));
    h.reth.rkey = u32(load_be<4>(p + offsetof(reth_layout, rkey)));
    h.reth.dma_length = u32(load_be<4>(p + offsetof(reth_layout, dma_length)));
}

void write_atomic_eth(std::byte* p, const packet_headers& h) noexcept {
    store_be<8>(p + offsetof(atomic_eth_layout, va), h.atomic_eth.va);
    store_be<4>(p + offsetof(atomic_eth_layout, rkey), h.atomic_eth.rkey);
    store_be<8>(p + offsetof(atomic_eth_layout, swap_add), h.atomic_eth.swap_add);
    store_be<8>(p + offsetof(atomic_eth_layout, compare), h.atomic_eth.compare);
}
void read_atomic_eth(const std::byte* p, packet_headers& h) noexcept {
    h.atomic_eth.va = load_be<8>(p + offsetof(atomic_eth_layout, va));
    h.atomic_eth.rkey = u32(load_be<4>(p + offsetof(atomic_eth_layout, rkey)));
    h.atomic_eth.swap_add = load_be<8>(p + offsetof(atomic_eth_layout, swap_add));
    h.atomic_eth.compare = load_be<8>(p + offsetof(atomic_eth_layout, compare));
}

void write_aeth(std::byte* p, const packet_headers& h) noexcept {
    store_be<1>(p + offsetof(aeth_layout, syndrome), h.aeth.syndrome);
    store_be<3>(p + offsetof(aeth_layout, msn), h.aeth.msn);
}
void read_aeth(const std::byte* p, packet_headers& h) noexcept {
    h.aeth.syndrome = u8(load_be<1>(p + offsetof(aeth_layout, syndrome)));
    h.aeth.msn = u32(load_be<3>(p + offsetof(aeth_layout, msn)));
}

void write_atomic_ack_eth(std::byte* p, const packet_headers& h) noexcept {
    store_be<8>(p + offsetof(atomic_ack_eth_layout, original), h.atomic_ack_original);
}
void read_atomic_ack_eth(const std::byte* p, packet_headers& h) noexcept {
    h.atomic_ack_original = load_be<8>(p + offsetof(atomic_ack_eth_layout, original));
}

void write_immdt(std::byte* p, const packet_headers& h) noexcept {
    store_be<4>(p + offsetof(immdt_layout, data), h.immediate);
}
void read_immdt(const std::byte* p, packet_headers& h) noexcept {
    h.immediate = u32(load_be<4>(p + offsetof(immdt_layout, data)));
}

void write_ieth(std::byte* p, const packet_headers& h) noexcept {
    store_be<4>(p + offsetof(ieth_layout, rkey), h.invalidate_rkey);
}
void read_ieth(const std::byte* p, packet_headers& h) noexcept {
    h.invalidate_rkey = u32(load_be<4>(p + offsetof(ieth_layout, rkey)));
}

using ext_writer = void (*)(std::byte*, const packet_headers&) noexcept;
using ext_reader = void (*)(const std::byte*, packet_headers&) noexcept;

constexpr std::array<ext_writer, ext_count> ext_writers = {
    write_deth,           write_reth,  write_atomic_eth, write_aeth,
    write_atomic_ack_eth, write_immdt, write_ieth,
};
constexpr std::array<ext_reader, ext_count> ext_readers = {
    read_deth, read_reth, read_atomic_eth, read_aeth, read_atomic_ack_eth, read_immdt, read_ieth,
};

void write_bth(std::byte* p, const bth_fields& b, std::size_t pad) noexcept {
    std::uint8_t flags = transport_version;
    flags |= b.solicited ? bth_se_bit : 0;
    flags |= b.mig_req ? bth_mig_bit : 0;
    flags |= u8(pad << bth_pad_shift) & bth_pad_mask;
    std::uint8_t resv8a = 0;
    resv8a |= b.fecn ? bth_fecn_bit : 0;
    resv8a |= b.becn ? bth_becn_bit : 0;
    store_be<1>(p + offsetof(bth_layout, opcode), static_cast<std::uint8_t>(b.op));
    store_be<1>(p + offsetof(bth_layout, flags), flags);
    store_be<2>(p + offsetof(bth_layout, pkey), b.pkey);
    store_be<1>(p + offsetof(bth_layout, resv8a), resv8a);
    store_be<3>(p + offsetof(bth_layout, dest_qp), b.dest_qp);
    store_be<1>(p + offsetof(bth_layout, ack_req), b.ack_req ? bth_ack_req_bit : 0);
    store_be<3>(p + offsetof(bth_layout, psn), b.psn);
}

void read_bth(const std::byte* p, bth_fields& b) noexcept {
    const auto flags = u8(load_be<1>(p + offsetof(bth_layout, flags)));
    const auto resv8a = u8(load_be<1>(p + offsetof(bth_layout, resv8a)));
    b.op = static_cast<opcode>(load_be<1>(p + offsetof(bth_layout, opcode)));
    b.solicited = (flags & bth_se_bit) != 0;
    b.mig_req = (flags & bth_mig_bit) != 0;
    b.pad_count = u8((flags & bth_pad_mask) >> bth_pad_shift);
    b.pkey = static_cast<std::uint16_t>(load_be<2>(p + offsetof(bth_layout, pkey)));
    b.fecn = (resv8a & bth_fecn_bit) != 0;
    b.becn = (resv8a & bth_becn_bit) != 0;
    b.dest_qp = u32(load_be<3>(p + offsetof(bth_layout, dest_qp)));
    b.ack_req = (load_be<1>(p + offsetof(bth_layout, ack_req)) & bth_ack_req_bit) != 0;
    b.psn = u32(load_be<3>(p + offsetof(bth_layout, psn)));
}

/// True when every 24-bit field the opcode carries fits in 24 bits.
bool fields_in_range(const packet_headers& h, const opcode_info& info) noexcept {
    if (h.bth.dest_qp > qpn_mask || h.bth.psn > psn_mask) {
        return false;
    }
    if (info.has(ext::deth) && h.deth.src_qp > qpn_mask) {
        return false;
    }
    return !info.has(ext::aeth) || h.aeth.msn <= msn_mask;
}

void refuse(decode_result& r, decode_error e, std::size_t size) noexcept {
    NDKSIM_TRACE("wire decode: {}-byte frame refused: {}", size, decode_error_name(e));
    (void)size;
    r.error = e;
}

}  // namespace

std::string_view encode_error_name(encode_error e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < encode_error_names.size() ? encode_error_names[i] : std::string_view{"unknown"};
}

std::string_view decode_error_name(decode_error e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < decode_error_names.size() ? decode_error_names[i] : std::string_view{"unknown"};
}

namespace {

// The layout encode_headers gives `h` with a `payload_size`-byte payload in a buffer of `room`
// bytes, or why it refuses.
encode_result layout_of(const packet_headers& h, std::size_t payload_size,
                        std::size_t room) noexcept {
    encode_result r;
    const opcode_info& info = opcode_lookup(h.bth.op);
    if (!info.valid) {
        r.error = encode_error::bad_opcode;
        return r;
    }
    if (!fields_in_range(h, info)) {
        r.error = encode_error::bad_field;
        return r;
    }
    // Only the last (or only) packet of a message carries pad (IBA 9.2: PadCnt).
    const std::size_t pad = pad_for(payload_size);
    if ((!info.has_payload && payload_size != 0) || (pad != 0 && !info.ends_message())) {
        r.error = encode_error::bad_payload;
        return r;
    }
    // Compared piecewise so that a huge payload_size cannot wrap the sum.
    const std::size_t fixed = info.header_size + icrc_size + pad;
    if (payload_size > max_frame_size - fixed || fixed + payload_size > room) {
        r.error = encode_error::no_room;
        return r;
    }
    r.header_size = info.header_size;
    r.payload_size = payload_size;
    r.pad_size = pad;
    r.frame_size = fixed + payload_size;
    return r;
}

}  // namespace

encode_result encode_headers(const packet_headers& h, std::size_t payload_size,
                             std::span<std::byte> frame) noexcept {
    const encode_result r = layout_of(h, payload_size, frame.size());
    if (!r.ok()) {
        return r;
    }
    const opcode_info& info = opcode_lookup(h.bth.op);
    write_bth(frame.data(), h.bth, r.pad_size);
    for (std::size_t e = 0; e < ext_count; ++e) {
        if ((info.headers & (1u << e)) != 0) {
            ext_writers[e](frame.data() + info.offset[e], h);
        }
    }
    return r;
}

std::size_t frame_size_of(const packet_headers& h, std::size_t payload_size) noexcept {
    const encode_result r = layout_of(h, payload_size, max_frame_size);
    return r.ok() ? r.frame_size : 0;
}

std::size_t finish_frame(std::span<std::byte> frame, const encode_result& layout, const flow& f,
                         bool with_icrc) noexcept {
    // Each part is bounded before they are added, so a forged layout cannot wrap the sum.
    if (!layout.ok() || layout.frame_size > frame.size() || layout.frame_size > max_frame_size ||
        layout.header_size < bth_size || layout.header_size > max_header_size ||
        layout.payload_size > max_frame_size || layout.pad_size >= word_size ||
        layout.header_size + layout.payload_size + layout.pad_size + icrc_size !=
            layout.frame_size) {
        return 0;
    }
    const std::size_t covered = layout.frame_size - icrc_size;
    std::fill_n(frame.data() + layout.header_size + layout.payload_size, layout.pad_size,
                std::byte{0});
    store_icrc(frame.data() + covered, with_icrc ? compute_icrc(f, frame.first(covered)) : 0);
    return layout.frame_size;
}

void write_icrc(std::byte* frame, std::size_t length, const flow& f) noexcept {
    const std::size_t covered = length - icrc_size;
    store_icrc(frame + covered, compute_icrc(f, std::span<const std::byte>(frame, covered)));
}

encode_result encode_frame(const packet_headers& h, std::span<const std::byte> payload,
                           const flow& f, std::span<std::byte> frame) noexcept {
    encode_result r = encode_headers(h, payload.size(), frame);
    if (!r.ok()) {
        return r;
    }
    std::copy(payload.begin(), payload.end(), r.payload(frame).begin());
    finish_frame(frame, r, f);
    return r;
}

decode_result decode_frame(std::span<const std::byte> frame, const flow& f,
                           bool icrc_checked) noexcept {
    // One result for every return, built in the caller's storage (a refusal returned as
    // another object made every decode copy the whole result out).
    decode_result r;
    const std::size_t n = frame.size();
    // 1. A BTH is there.
    if (n < bth_size) {
        refuse(r, decode_error::truncated, n);
        return r;
    }
    const std::byte* p = frame.data();
    const auto flags = u8(load_be<1>(p + offsetof(bth_layout, flags)));
    // 2. Transport version.
    if ((flags & bth_tver_mask) != transport_version) {
        refuse(r, decode_error::bad_version, n);
        return r;
    }
    // 3. Opcode through the table.
    const opcode_info& info = opcode_lookup(load_be<1>(p + offsetof(bth_layout, opcode)));
    if (!info.valid) {
        refuse(r, decode_error::bad_opcode, n);
        return r;
    }
    // 4. Length: the opcode's headers and the ICRC are inside, the frame is whole words, and
    //    only data-carrying opcodes have bytes between the headers and the ICRC.
    if (n < info.header_size + icrc_size || n > max_frame_size || n % word_size != 0) {
        refuse(r, decode_error::bad_length, n);
        return r;
    }
    const std::size_t body = n - info.header_size - icrc_size;
    if (!info.has_payload && body != 0) {
        refuse(r, decode_error::bad_length, n);
        return r;
    }
    // 5. Pad: only the last packet of a message is padded, and never by more than its payload.
    const std::size_t pad = (flags & bth_pad_mask) >> bth_pad_shift;
    if (pad != 0 && (!info.ends_message() || pad > body)) {
        refuse(r, decode_error::bad_pad, n);
        return r;
    }
    // 6. ICRC.
    const std::size_t covered = n - icrc_size;
    if (!icrc_checked && compute_icrc(f, frame.first(covered)) != load_icrc(p + covered)) {
        refuse(r, decode_error::bad_icrc, n);
        return r;
    }
    read_bth(p, r.packet.headers.bth);
    for (std::size_t e = 0; e < ext_count; ++e) {
        if ((info.headers & (1u << e)) != 0) {
            ext_readers[e](p + info.offset[e], r.packet.headers);
        }
    }
    r.packet.info = &info;
    r.packet.header_size = info.header_size;
    r.packet.payload = frame.subspan(info.header_size, body - pad);
    return r;
}

}  // namespace ndksim::wire
