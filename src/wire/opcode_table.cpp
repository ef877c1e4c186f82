// SPDX-License-Identifier: MIT
#include "wire/opcode_table.hpp"

namespace ndksim::wire {
namespace {

constexpr bool has(ext_mask m, ext e) {
    return (m & ext_bit(e)) != 0;
}

/// The rules the table must follow (IBA vol. 1, 9.2 and table "OpCode field"): which
/// extension headers each kind of packet carries, in wire order, and the sizes they add up to.
consteval bool row_is_consistent(const opcode_info& r) {
    const bool single = r.position == op_position::only;
    const bool ends = r.position == op_position::last || single;
    const bool starts = r.position == op_position::first || single;
    // DETH on every UD packet and on nothing else.
    if (has(r.headers, ext::deth) != (r.svc == service::ud)) {
        return false;
    }
    // RETH on the first packet of an RDMA WRITE and on an RDMA READ request.
    if (has(r.headers, ext::reth) !=
        ((r.cls == op_class::write && starts) || r.cls == op_class::read_request)) {
        return false;
    }
    // AtomicETH on atomic requests, AtomicAckETH on the atomic response.
    if (has(r.headers, ext::atomic_eth) != (r.cls == op_class::atomic && r.is_request())) {
        return false;
    }
    if (has(r.headers, ext::atomic_ack_eth) != (r.cls == op_class::atomic && !r.is_request())) {
        return false;
    }
    // AETH on ACKs, atomic ACKs and the first and last packet of a read response.
    const bool wants_aeth = r.cls == op_class::ack ||
                            (r.cls == op_class::atomic && !r.is_request()) ||
                            (r.cls == op_class::read_response && r.position != op_position::middle);
    if (has(r.headers, ext::aeth) != wants_aeth) {
        return false;
    }
    // Immediate data and invalidate only end a SEND (or, for ImmDt, an RDMA WRITE); never both.
    if (has(r.headers, ext::immdt) &&
        (!ends || (r.cls != op_class::send && r.cls != op_class::write))) {
        return false;
    }
    if (has(r.headers, ext::ieth) &&
        (!ends || r.cls != op_class::send || has(r.headers, ext::immdt))) {
        return false;
    }
    // Payload on data-carrying packets only; single-packet operations are 'only'.
    const bool wants_payload =
        r.cls == op_class::send || r.cls == op_class::write || r.cls == op_class::read_response;
    if (r.has_payload != wants_payload) {
        return false;
    }
    if (!wants_payload && !single) {
        return false;
    }
    // Requests come from the requester; ACKs and responses from the responder.
    const bool wants_request = r.cls == op_class::send || r.cls == op_class::write ||
                               r.cls == op_class::read_request ||
                               (r.cls == op_class::atomic && r.direction == op_direction::request);
    if (r.is_request() != wants_request || r.direction == op_direction::none) {
        return false;
    }
    // UD carries single-packet SENDs only.
    if (r.svc == service::ud && (r.cls != op_class::send || !single)) {
        return false;
    }
    return true;
}

consteval bool check_opcode_table() {
    std::size_t valid_rows = 0;
    for (std::size_t op = 0; op < opcode_table.size(); ++op) {
        const opcode_info& r = opcode_table[op];
        if (!r.valid) {
            if (r.name != "invalid" || r.header_size != 0 || r.headers != 0 || r.has_payload ||
                r.cls != op_class::invalid || r.svc != service::none) {
                return false;
            }
            continue;
        }
        ++valid_rows;
        // Service from the opcode's top three bits.
        const service from_bits = (op >> 5) == 0   ? service::rc
                                  : (op >> 5) == 3 ? service::ud
                                                   : service::none;
        if (r.svc != from_bits || r.name.empty()) {
            return false;
        }
        // Offsets follow wire order without gaps and add up to header_size.
        std::size_t at = bth_size;
        for (std::size_t e = 0; e < ext_count; ++e) {
            if ((r.headers & (1u << e)) == 0) {
                if (r.offset[e] != 0) {
                    return false;
                }
                continue;
            }
            if (r.offset[e] != at) {
                return false;
            }
            at += ext_size[e];
        }
        if (r.header_size != at || at > max_header_size || at % word_size != 0) {
            return false;
        }
        if (!row_is_consistent(r)) {
            return false;
        }
    }
    // Each row landed in its own slot.
    return valid_rows == valid_opcode_count && !opcode_table[0xFF].valid &&
           opcode_lookup(0x100u).valid == false;
}

static_assert(check_opcode_table(), "opcode table violates the transport header rules");
static_assert(opcode_lookup(opcode::rc_cmp_swap).header_size == max_header_size);

constexpr std::array<std::string_view, ext_count> ext_names = {
    "deth", "reth", "atomic_eth", "aeth", "atomic_ack_eth", "immdt", "ieth",
};
constexpr std::array<std::string_view, 7> class_names = {
    "invalid", "send", "write", "read_request", "read_response", "ack", "atomic",
};
constexpr std::array<std::string_view, 5> position_names = {"none", "first", "middle", "last",
                                                            "only"};
constexpr std::array<std::string_view, 3> direction_names = {"none", "request", "response"};
constexpr std::array<std::string_view, 3> service_names = {"none", "rc", "ud"};

template <class Names, class E>
std::string_view name_of(const Names& names, E value) noexcept {
    const auto i = static_cast<std::size_t>(value);
    return i < names.size() ? names[i] : std::string_view{"unknown"};
}

}  // namespace

std::string_view ext_name(ext e) noexcept {
    return name_of(ext_names, e);
}
std::string_view op_class_name(op_class c) noexcept {
    return name_of(class_names, c);
}
std::string_view op_position_name(op_position p) noexcept {
    return name_of(position_names, p);
}
std::string_view op_direction_name(op_direction d) noexcept {
    return name_of(direction_names, d);
}
std::string_view service_name(service s) noexcept {
    return name_of(service_names, s);
}

}  // namespace ndksim::wire
