#include "wire/cm_proto.hpp"

#include <algorithm>

#include "util/log.hpp"

namespace ndksim::wire {
namespace {

constexpr std::array<std::string_view, cm_error_count> cm_error_names = {
    "none",     "not_cm",           "truncated",  "bad_mad",   "bad_version", "bad_header_size",
    "bad_type", "bad_private_data", "bad_length", "bad_field", "no_room",
};

constexpr std::uint8_t cm_flag_v6 = 0x01;

consteval bool check_cm_type_table() {
    for (std::size_t i = 0; i < cm_type_table.size(); ++i) {
        const cm_type_info& t = cm_type_table[i];
        if (t.name.empty() || t.valid != (i != 0) || (!t.valid && t.carries_private_data)) {
            return false;
        }
    }
    return cm_type_lookup(cm_type_count).valid == false;
}
static_assert(check_cm_type_table());
static_assert(cm_header_size_v1 % word_size == 0 && cm_max_frame_size == 320);

using L = cm_layout;

void put_ip(std::byte* p, const ip_address& a) noexcept {
    for (std::size_t i = 0; i < a.bytes.size(); ++i) {
        p[i] = static_cast<std::byte>(a.v6 || i < 4 ? a.bytes[i] : 0);
    }
}

ip_address get_ip(const std::byte* p, bool v6) noexcept {
    ip_address a;
    a.v6 = v6;
    const std::size_t n = v6 ? 16 : 4;
    for (std::size_t i = 0; i < n; ++i) {
        a.bytes[i] = std::to_integer<std::uint8_t>(p[i]);
    }
    return a;
}

/// The checks encode and decode share: type, private data, field ranges.
cm_error check_message(const cm_message& m) noexcept {
    const cm_type_info& t = cm_type_lookup(static_cast<std::uint32_t>(m.type));
    if (!t.valid) {
        return cm_error::bad_type;
    }
    if (m.private_data_length > cm_max_private_data ||
        (m.private_data_length != 0 && !t.carries_private_data)) {
        return cm_error::bad_private_data;
    }
    if (m.qp_number > qpn_mask || m.start_psn > psn_mask || m.src_ip.v6 != m.dst_ip.v6) {
        return cm_error::bad_field;
    }
    return cm_error::none;
}

cm_decode_result refuse(cm_error e, std::size_t size) noexcept {
    NDKSIM_TRACE("wire cm decode: {}-byte payload refused: {}", size, cm_error_name(e));
    (void)size;
    cm_decode_result r;
    r.error = e;
    return r;
}

}  // namespace

bool cm_message::set_private_data(std::span<const std::byte> data) noexcept {
    if (data.size() > private_data.size()) {
        return false;
    }
    std::copy(data.begin(), data.end(), private_data.begin());
    std::fill(private_data.begin() + static_cast<std::ptrdiff_t>(data.size()), private_data.end(),
              std::byte{0});
    private_data_length = static_cast<std::uint16_t>(data.size());
    return true;
}

std::string_view cm_error_name(cm_error e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < cm_error_names.size() ? cm_error_names[i] : std::string_view{"unknown"};
}

cm_encode_result encode_cm_payload(const cm_message& m, std::span<std::byte> out) noexcept {
    cm_encode_result r;
    r.error = check_message(m);
    if (!r.ok()) {
        return r;
    }
    const std::size_t size = cm_header_size_v1 + m.private_data_length;
    if (out.size() < size) {
        r.error = cm_error::no_room;
        return r;
    }
    std::byte* p = out.data();
    std::fill_n(p, cm_header_size_v1, std::byte{0});
    store_be<1>(p + offsetof(L, base_version), cm_mad_base_version);
    store_be<1>(p + offsetof(L, mgmt_class), cm_mad_class);
    store_be<1>(p + offsetof(L, class_version), cm_version);
    store_be<1>(p + offsetof(L, method), cm_mad_method);
    store_be<8>(p + offsetof(L, transaction_id), m.local_connection_id);
    store_be<2>(p + offsetof(L, attribute_id), static_cast<std::uint16_t>(m.type));
    store_be<4>(p + offsetof(L, magic), cm_magic);
    store_be<2>(p + offsetof(L, header_size), cm_header_size_v1);
    store_be<1>(p + offsetof(L, flags), m.src_ip.v6 ? cm_flag_v6 : 0);
    store_be<4>(p + offsetof(L, local_connection_id), m.local_connection_id);
    store_be<4>(p + offsetof(L, remote_connection_id), m.remote_connection_id);
    put_ip(p + offsetof(L, src_ip), m.src_ip);
    put_ip(p + offsetof(L, dst_ip), m.dst_ip);
    store_be<2>(p + offsetof(L, src_port), m.src_port);
    store_be<2>(p + offsetof(L, dst_port), m.dst_port);
    store_be<4>(p + offsetof(L, qp_number), m.qp_number);
    store_be<4>(p + offsetof(L, start_psn), m.start_psn);
    store_be<4>(p + offsetof(L, inbound_read_limit), m.inbound_read_limit);
    store_be<4>(p + offsetof(L, outbound_read_limit), m.outbound_read_limit);
    store_be<4>(p + offsetof(L, reject_reason), m.reject_reason);
    store_be<2>(p + offsetof(L, private_data_length), m.private_data_length);
    std::copy_n(m.private_data.begin(), m.private_data_length, p + cm_header_size_v1);
    r.size = size;
    return r;
}

cm_encode_result encode_cm_frame(const cm_message& m, std::uint32_t psn, const flow& f,
                                 std::span<std::byte> frame) noexcept {
    cm_encode_result r;
    r.error = check_message(m);
    if (!r.ok()) {
        return r;
    }
    packet_headers h;
    h.bth.op = opcode::ud_send_only;
    h.bth.dest_qp = gsi_qp;
    h.bth.psn = psn & psn_mask;
    h.deth.qkey = gsi_qkey;
    h.deth.src_qp = gsi_qp;
    const encode_result layout =
        encode_headers(h, cm_header_size_v1 + m.private_data_length, frame);
    if (!layout.ok()) {
        r.error = cm_error::no_room;
        return r;
    }
    r = encode_cm_payload(m, layout.payload(frame));
    if (!r.ok()) {
        return r;
    }
    r.size = finish_frame(frame, layout, f);
    return r;
}

cm_decode_result decode_cm_payload(std::span<const std::byte> payload) noexcept {
    const std::size_t n = payload.size();
    const std::byte* p = payload.data();
    if (n < cm_mad_header_size) {
        return refuse(cm_error::truncated, n);
    }
    if (load_be<1>(p + offsetof(L, base_version)) != cm_mad_base_version ||
        load_be<1>(p + offsetof(L, mgmt_class)) != cm_mad_class ||
        load_be<1>(p + offsetof(L, method)) != cm_mad_method) {
        return refuse(cm_error::bad_mad, n);
    }
    if (load_be<1>(p + offsetof(L, class_version)) != cm_version) {
        return refuse(cm_error::bad_version, n);
    }
    if (n < cm_header_size_v1) {
        return refuse(cm_error::truncated, n);
    }
    if (load_be<4>(p + offsetof(L, magic)) != cm_magic) {
        return refuse(cm_error::bad_mad, n);
    }
    const std::size_t header_size = load_be<2>(p + offsetof(L, header_size));
    if (header_size < cm_header_size_v1 || header_size > cm_max_header_size ||
        header_size % word_size != 0 || header_size > n) {
        return refuse(cm_error::bad_header_size, n);
    }
    const auto raw_type = static_cast<std::uint32_t>(load_be<2>(p + offsetof(L, attribute_id)));
    const cm_type_info& type = cm_type_lookup(raw_type);
    if (!type.valid) {
        return refuse(cm_error::bad_type, n);
    }
    const std::size_t pd_length = load_be<2>(p + offsetof(L, private_data_length));
    if (pd_length > cm_max_private_data || (pd_length != 0 && !type.carries_private_data)) {
        return refuse(cm_error::bad_private_data, n);
    }
    if (n != header_size + pd_length) {
        return refuse(cm_error::bad_length, n);
    }
    const auto flags = static_cast<std::uint8_t>(load_be<1>(p + offsetof(L, flags)));
    const auto qp_number = static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, qp_number)));
    const auto start_psn = static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, start_psn)));
    if ((flags & ~cm_flag_v6) != 0 || qp_number > qpn_mask || start_psn > psn_mask) {
        return refuse(cm_error::bad_field, n);
    }
    cm_decode_result r;
    cm_message& m = r.message;
    const bool v6 = (flags & cm_flag_v6) != 0;
    m.type = static_cast<cm_type>(raw_type);
    m.local_connection_id =
        static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, local_connection_id)));
    m.remote_connection_id =
        static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, remote_connection_id)));
    m.src_ip = get_ip(p + offsetof(L, src_ip), v6);
    m.dst_ip = get_ip(p + offsetof(L, dst_ip), v6);
    m.src_port = static_cast<std::uint16_t>(load_be<2>(p + offsetof(L, src_port)));
    m.dst_port = static_cast<std::uint16_t>(load_be<2>(p + offsetof(L, dst_port)));
    m.qp_number = qp_number;
    m.start_psn = start_psn;
    m.inbound_read_limit =
        static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, inbound_read_limit)));
    m.outbound_read_limit =
        static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, outbound_read_limit)));
    m.reject_reason = static_cast<std::uint32_t>(load_be<4>(p + offsetof(L, reject_reason)));
    m.private_data_length = static_cast<std::uint16_t>(pd_length);
    std::copy_n(p + header_size, pd_length, m.private_data.begin());
    return r;
}

bool is_cm_packet(const decoded_packet& p) noexcept {
    return p.headers.bth.op == opcode::ud_send_only && p.headers.bth.dest_qp == gsi_qp &&
           p.headers.deth.qkey == gsi_qkey;
}

cm_decode_result decode_cm(const decoded_packet& p) noexcept {
    if (!is_cm_packet(p)) {
        return refuse(cm_error::not_cm, p.payload.size());
    }
    return decode_cm_payload(p.payload);
}

}  // namespace ndksim::wire
