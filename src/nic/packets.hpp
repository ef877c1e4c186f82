// SPDX-License-Identifier: MIT
#pragma once
// Building and sending one packet of a connected QP: headers into a pool frame, payload
// written straight into the frame by the caller (or lent from host memory), then the ICRC.

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "nic/engine.hpp"
#include "nic/qp_context.hpp"
#include "wire/codec.hpp"

namespace ndksim::nic {

/// Builds one packet of `q`'s connection in a pool frame. `fill(std::span<std::byte> payload)`
/// writes exactly payload.size() bytes and returns true, or returns false to abandon the packet
/// (a refused SGE): the frame goes back to the pool and nullptr is returned. A fill that takes a
/// second argument, `const std::byte*& lent`, may instead leave the payload where it lies in
/// host memory and point `lent` at it: the frame is then lent (wire/lent_frames.hpp, listed in
/// the QP's context), and its ICRC is computed over the payload in place.
template <class Fill>
wire::frame* build_frame(engine& e, core::qp& q, wire::packet_headers& h, std::size_t payload_size,
                         Fill&& fill) {
    qp_context& ctx = context_of(q);
    h.bth.dest_qp = ctx.peer_qpn;
    wire::frame* f = e.frames().take();
    const std::span<std::byte> buffer(f->data, sizeof f->data);
    const wire::encode_result layout = wire::encode_headers(h, payload_size, buffer);
    const std::byte* lent = nullptr;
    bool filled = false;
    if (layout.ok()) {
        if constexpr (std::is_invocable_r_v<bool, Fill&, std::span<std::byte>, const std::byte*&>) {
            filled = fill(layout.payload(buffer), lent);
        } else {
            filled = fill(layout.payload(buffer));
        }
    }
    if (!filled) {
        wire::frame_pool::release(f);
        return nullptr;
    }
    const bool with_icrc = e.link().wants_icrc();
    f->length = static_cast<std::uint32_t>(
        wire::finish_frame(buffer, layout, ctx.flow, with_icrc && lent == nullptr));
    f->icrc_elided = !with_icrc;
    if (lent != nullptr) {
        const auto offset = static_cast<std::uint32_t>(layout.header_size);
        if (with_icrc) {
            const std::size_t covered = f->length - wire::icrc_size;
            wire::store_icrc(f->data + covered,
                             wire::compute_icrc(ctx.flow, buffer.first(covered), offset,
                                                std::span<const std::byte>(lent, payload_size)));
        }
        ctx.lent.lend(*f, lent, offset, static_cast<std::uint32_t>(payload_size), h.bth.psn);
    }
    return f;
}

/// Sends one packet on `q`'s connection: build_frame, then the port (engine::transmit).
/// Returns false when fill abandoned the packet. `ready` is the simulated time the packet is
/// ready to leave [ps].
template <class Fill>
bool send_packet(engine& e, core::qp& q, wire::packet_headers& h, std::size_t payload_size,
                 timing::sim_time ready, Fill&& fill) {
    wire::frame* f = build_frame(e, q, h, payload_size, std::forward<Fill>(fill));
    if (f == nullptr) {
        return false;
    }
    e.transmit(*context_of(q).peer, f, ready);
    return true;
}

/// Sends a packet without payload.
inline void send_packet(engine& e, core::qp& q, wire::packet_headers& h, timing::sim_time ready) {
    send_packet(e, q, h, 0, ready, [](std::span<std::byte>) { return true; });
}

}  // namespace ndksim::nic
