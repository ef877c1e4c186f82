// SPDX-License-Identifier: MIT
#include "wire/cm_proto.hpp"

#include <algorithm>

#include "util/log.hpp"

namespace ndksim::wire {
namespace {

constexpr std::array<std::string_view, cm_error_count> cm_error_names = {
    "none",       "not_cm",   "truncated",        "bad_mad",   "bad_version",
    "bad_length", "bad_type", "bad_private_data", "bad_field", "no_room",
};

struct reject_reason_name {
    cm_reject_reason reason;
    std::string_view name;
};
constexpr std::array<reject_reason_name, 4> reject_reason_names = {{
    {cm_reject_reason::invalid_comm_id, "invalid_comm_id"},
    {cm_reject_reason::invalid_service_id, "invalid_service_id"},
    {cm_reject_reason::stale_connection, "stale_connection"},
    {cm_reject_reason::consumer, "consumer"},
}};

consteval bool check_cm_type_table() {
    for (std::size_t i = 0; i < cm_type_table.size(); ++i) {
        const cm_type_info& t = cm_type_table[i];
        if (t.name.empty() || t.valid != (i != 0) || t.valid != (t.attribute_id != 0) ||
            t.max_private_data > cm_max_private_data ||
            t.private_data_offset + t.max_private_data > cm_mad_size) {
            return false;
        }
    }
    return cm_type_lookup(cm_type_count).valid == false;
}
static_assert(check_cm_type_table());
static_assert(cm_mad_size % word_size == 0 && cm_frame_size == 280);

using H = mad_header_layout;
using REQ = cm_req_layout;
using REP = cm_rep_layout;
using RTU = cm_rtu_layout;
using REJ = cm_rej_layout;
using DREQ = cm_dreq_layout;
using IPCM = ip_cm_header_layout;

/// The hop limit a REQ's primary path names: the IP TTL an adapter's packets leave with.
constexpr std::uint8_t k_hop_limit = 64;
/// Largest values of the narrow fields.
constexpr std::uint32_t k_max8 = 0xFF;
constexpr std::uint8_t k_max3 = 0x07;
constexpr std::uint8_t k_max4 = 0x0F;
constexpr std::uint8_t k_max5 = 0x1F;
/// The IPv4-mapped IPv6 prefix (RFC 4291 2.5.5.2): a RoCE GID of an IPv4 address.
constexpr std::array<std::uint8_t, 12> k_v4_mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

// ---- addresses ------------------------------------------------------------------------------

/// Writes `a` as a GID: an IPv6 address as it is, an IPv4 one v4-mapped (::ffff:a.b.c.d).
void put_gid(std::byte* p, const ip_address& a) noexcept {
    for (std::size_t i = 0; i < 16; ++i) {
        const std::uint8_t b = a.v6 ? a.bytes[i] : i < 12 ? k_v4_mapped[i] : a.bytes[i - 12];
        p[i] = static_cast<std::byte>(b);
    }
}

/// Writes `a` as the IP CM header has it: IPv6 as it is, IPv4 after 12 zero bytes.
void put_ip_cm_address(std::byte* p, const ip_address& a) noexcept {
    for (std::size_t i = 0; i < 16; ++i) {
        const std::uint8_t b = a.v6 ? a.bytes[i] : i < 12 ? 0 : a.bytes[i - 12];
        p[i] = static_cast<std::byte>(b);
    }
}

bool all_zero(const std::byte* p, std::size_t n) noexcept {
    return std::all_of(p, p + n, [](std::byte b) { return b == std::byte{0}; });
}

/// The address of an IP CM address field and its GID, when they agree and are well formed.
bool read_address(const std::byte* ip_cm, const std::byte* gid, bool v6, ip_address& out) noexcept {
    if (v6) {
        if (!std::equal(ip_cm, ip_cm + 16, gid)) {
            return false;
        }
    } else {
        if (!all_zero(ip_cm, 12) || !std::equal(ip_cm + 12, ip_cm + 16, gid + 12)) {
            return false;
        }
        for (std::size_t i = 0; i < k_v4_mapped.size(); ++i) {
            if (std::to_integer<std::uint8_t>(gid[i]) != k_v4_mapped[i]) {
                return false;
            }
        }
    }
    out = ip_address{};
    out.v6 = v6;
    const std::size_t first = v6 ? 0 : 12;
    for (std::size_t i = first; i < 16; ++i) {
        out.bytes[i - first] = std::to_integer<std::uint8_t>(ip_cm[i]);
    }
    return true;
}

// ---- message bodies: one codec per type ------------------------------------------------------
// encode writes the body (the MAD is zeroed and its header written before); check validates
// what decode relies on, after the MAD header and the length passed; decode reads the body.

void encode_req(const cm_message& m, std::byte* p) noexcept {
    store_be<4>(p + offsetof(REQ, local_comm_id), m.local_connection_id);
    store_be<8>(p + offsetof(REQ, service_id),
                ip_cm_service_id_prefix | std::uint64_t{ip_cm_protocol_tcp} << 16 | m.dst_port);
    store_be<8>(p + offsetof(REQ, local_ca_guid), m.ca_guid);
    store_be<3>(p + offsetof(REQ, local_qpn), m.qp_number);
    store_be<1>(p + offsetof(REQ, responder_resources), m.inbound_read_limit);
    store_be<1>(p + offsetof(REQ, initiator_depth), m.outbound_read_limit);
    // The remote CM's response time is taken to be ours: both ends are ndksim adapters.
    store_be<1>(p + offsetof(REQ, remote_timeout_tst_e2e),
                m.cm_response_timeout << cm_timeout_shift | cm_req_tst_rc << cm_req_tst_shift);
    store_be<3>(p + offsetof(REQ, starting_psn), m.start_psn);
    store_be<1>(p + offsetof(REQ, local_timeout_retry),
                m.cm_response_timeout << cm_timeout_shift | m.retry_count);
    store_be<2>(p + offsetof(REQ, partition_key), default_pkey);
    store_be<1>(p + offsetof(REQ, mtu_rdc_rnr), m.path_mtu << cm_high4_shift | m.rnr_retry_count);
    store_be<1>(p + offsetof(REQ, max_cm_retries_srq),
                m.max_cm_retries << cm_high4_shift | (m.srq ? cm_req_srq_bit : 0));
    store_be<2>(p + offsetof(REQ, primary_local_lid), cm_permissive_lid);
    store_be<2>(p + offsetof(REQ, primary_remote_lid), cm_permissive_lid);
    put_gid(p + offsetof(REQ, primary_local_gid), m.src_ip);
    put_gid(p + offsetof(REQ, primary_remote_gid), m.dst_ip);
    store_be<1>(p + offsetof(REQ, primary_hop_limit), k_hop_limit);
    store_be<1>(p + offsetof(REQ, primary_local_ack_timeout),
                m.local_ack_timeout << cm_timeout_shift);
    std::byte* ip = p + cm_req_ip_cm_offset;
    store_be<1>(ip + offsetof(IPCM, ip_version), (m.src_ip.v6 ? 6 : 4) << cm_high4_shift);
    store_be<2>(ip + offsetof(IPCM, src_port), m.src_port);
    put_ip_cm_address(ip + offsetof(IPCM, src_ip), m.src_ip);
    put_ip_cm_address(ip + offsetof(IPCM, dst_ip), m.dst_ip);
}

cm_error check_req(const std::byte* p) noexcept {
    const std::uint64_t sid = load_be<8>(p + offsetof(REQ, service_id));
    const auto tst = load_be<1>(p + offsetof(REQ, remote_timeout_tst_e2e)) & cm_req_tst_mask;
    const std::byte* ip = p + cm_req_ip_cm_offset;
    const auto ip_version = load_be<1>(ip + offsetof(IPCM, ip_version)) >> cm_high4_shift;
    if ((sid & ip_cm_service_id_prefix_mask) != ip_cm_service_id_prefix ||
        ((sid >> 16) & 0xFF) != ip_cm_protocol_tcp || tst != cm_req_tst_rc << cm_req_tst_shift ||
        load_be<1>(ip + offsetof(IPCM, version)) != 0 || (ip_version != 4 && ip_version != 6)) {
        return cm_error::bad_field;
    }
    ip_address a;
    if (!read_address(ip + offsetof(IPCM, src_ip), p + offsetof(REQ, primary_local_gid),
                      ip_version == 6, a) ||
        !read_address(ip + offsetof(IPCM, dst_ip), p + offsetof(REQ, primary_remote_gid),
                      ip_version == 6, a)) {
        return cm_error::bad_field;
    }
    return cm_error::none;
}

void decode_req(const std::byte* p, cm_message& m) noexcept {
    m.local_connection_id = u32(load_be<4>(p + offsetof(REQ, local_comm_id)));
    m.dst_port = static_cast<std::uint16_t>(load_be<8>(p + offsetof(REQ, service_id)));
    m.ca_guid = load_be<8>(p + offsetof(REQ, local_ca_guid));
    m.qp_number = u32(load_be<3>(p + offsetof(REQ, local_qpn)));
    m.inbound_read_limit = u32(load_be<1>(p + offsetof(REQ, responder_resources)));
    m.outbound_read_limit = u32(load_be<1>(p + offsetof(REQ, initiator_depth)));
    m.start_psn = u32(load_be<3>(p + offsetof(REQ, starting_psn)));
    const auto timeout_retry = load_be<1>(p + offsetof(REQ, local_timeout_retry));
    m.cm_response_timeout = u8(timeout_retry >> cm_timeout_shift);
    m.retry_count = u8(timeout_retry & cm_low3_mask);
    const auto mtu_rnr = load_be<1>(p + offsetof(REQ, mtu_rdc_rnr));
    m.path_mtu = u8(mtu_rnr >> cm_high4_shift);
    m.rnr_retry_count = u8(mtu_rnr & cm_low3_mask);
    const auto retries_srq = load_be<1>(p + offsetof(REQ, max_cm_retries_srq));
    m.max_cm_retries = u8(retries_srq >> cm_high4_shift);
    m.srq = (retries_srq & cm_req_srq_bit) != 0;
    m.local_ack_timeout =
        u8(load_be<1>(p + offsetof(REQ, primary_local_ack_timeout)) >> cm_timeout_shift);
    const std::byte* ip = p + cm_req_ip_cm_offset;
    const bool v6 = load_be<1>(ip + offsetof(IPCM, ip_version)) >> cm_high4_shift == 6;
    m.src_port = static_cast<std::uint16_t>(load_be<2>(ip + offsetof(IPCM, src_port)));
    // check_req established that both succeed.
    read_address(ip + offsetof(IPCM, src_ip), p + offsetof(REQ, primary_local_gid), v6, m.src_ip);
    read_address(ip + offsetof(IPCM, dst_ip), p + offsetof(REQ, primary_remote_gid), v6, m.dst_ip);
}

/// local and remote comm ids: the first two words of every body but a REQ's.
void encode_ids(const cm_message& m, std::byte* p) noexcept {
    store_be<4>(p + offsetof(RTU, local_comm_id), m.local_connection_id);
    store_be<4>(p + offsetof(RTU, remote_comm_id), m.remote_connection_id);
}

void decode_ids(const std::byte* p, cm_message& m) noexcept {
    m.local_connection_id = u32(load_be<4>(p + offsetof(RTU, local_comm_id)));
    m.remote_connection_id = u32(load_be<4>(p + offsetof(RTU, remote_comm_id)));
}

cm_error check_nothing(const std::byte*) noexcept {
    return cm_error::none;
}

void encode_rep(const cm_message& m, std::byte* p) noexcept {
    encode_ids(m, p);
    store_be<3>(p + offsetof(REP, local_qpn), m.qp_number);
    store_be<3>(p + offsetof(REP, starting_psn), m.start_psn);
    store_be<1>(p + offsetof(REP, responder_resources), m.inbound_read_limit);
    store_be<1>(p + offsetof(REP, initiator_depth), m.outbound_read_limit);
    store_be<1>(p + offsetof(REP, rnr_retry_srq),
                m.rnr_retry_count << cm_rep_rnr_shift | (m.srq ? cm_rep_srq_bit : 0));
    store_be<8>(p + offsetof(REP, local_ca_guid), m.ca_guid);
}

void decode_rep(const std::byte* p, cm_message& m) noexcept {
    decode_ids(p, m);
    m.qp_number = u32(load_be<3>(p + offsetof(REP, local_qpn)));
    m.start_psn = u32(load_be<3>(p + offsetof(REP, starting_psn)));
    m.inbound_read_limit = u32(load_be<1>(p + offsetof(REP, responder_resources)));
    m.outbound_read_limit = u32(load_be<1>(p + offsetof(REP, initiator_depth)));
    const auto rnr_srq = load_be<1>(p + offsetof(REP, rnr_retry_srq));
    m.rnr_retry_count = u8(rnr_srq >> cm_rep_rnr_shift);
    m.srq = (rnr_srq & cm_rep_srq_bit) != 0;
    m.ca_guid = load_be<8>(p + offsetof(REP, local_ca_guid));
}

void encode_rej(const cm_message& m, std::byte* p) noexcept {
    encode_ids(m, p);
    store_be<1>(p + offsetof(REJ, message_rejected), static_cast<std::uint8_t>(m.rejected_message)
                                                         << cm_rej_message_shift);
    store_be<2>(p + offsetof(REJ, reason), m.reject_reason);
}

cm_error check_rej(const std::byte* p) noexcept {
    const auto rejected = load_be<1>(p + offsetof(REJ, message_rejected)) >> cm_rej_message_shift;
    const auto ari = load_be<1>(p + offsetof(REJ, reject_info_length)) >> cm_rej_info_shift;
    return rejected <= static_cast<std::uint8_t>(cm_rejected::other) && ari <= sizeof(REJ::ari)
               ? cm_error::none
               : cm_error::bad_field;
}

void decode_rej(const std::byte* p, cm_message& m) noexcept {
    decode_ids(p, m);
    m.rejected_message = static_cast<cm_rejected>(load_be<1>(p + offsetof(REJ, message_rejected)) >>
                                                  cm_rej_message_shift);
    m.reject_reason = static_cast<std::uint16_t>(load_be<2>(p + offsetof(REJ, reason)));
}

void encode_dreq(const cm_message& m, std::byte* p) noexcept {
    encode_ids(m, p);
    store_be<3>(p + offsetof(DREQ, remote_qpn), m.qp_number);
}

void decode_dreq(const std::byte* p, cm_message& m) noexcept {
    decode_ids(p, m);
    m.qp_number = u32(load_be<3>(p + offsetof(DREQ, remote_qpn)));
}

struct body_codec {
    void (*encode)(const cm_message&, std::byte*) noexcept;
    cm_error (*check)(const std::byte*) noexcept;
    void (*decode)(const std::byte*, cm_message&) noexcept;
};

/// Indexed by cm_type; the invalid row is never used (its type is refused first).
constexpr std::array<body_codec, cm_type_count> body_codecs = {{
    {encode_ids, check_nothing, decode_ids},    // invalid
    {encode_req, check_req, decode_req},        // request
    {encode_rep, check_nothing, decode_rep},    // reply
    {encode_ids, check_nothing, decode_ids},    // ready_to_use
    {encode_rej, check_rej, decode_rej},        // reject
    {encode_dreq, check_nothing, decode_dreq},  // disconnect_request
    {encode_ids, check_nothing, decode_ids},    // disconnect_reply
}};

/// The checks encode makes: a valid type, private data it may carry, fields in range.
cm_error check_message(const cm_message& m) noexcept {
    const cm_type_info& t = cm_type_lookup(static_cast<std::uint32_t>(m.type));
    if (!t.valid) {
        return cm_error::bad_type;
    }
    if (m.private_data_length > t.max_private_data) {
        return cm_error::bad_private_data;
    }
    const bool in_range =
        m.qp_number <= qpn_mask && m.start_psn <= psn_mask && m.inbound_read_limit <= k_max8 &&
        m.outbound_read_limit <= k_max8 && m.rnr_retry_count <= k_max3 && m.retry_count <= k_max3 &&
        m.cm_response_timeout <= k_max5 && m.local_ack_timeout <= k_max5 && m.path_mtu <= k_max4 &&
        m.max_cm_retries <= k_max4 && m.rejected_message <= cm_rejected::other &&
        (m.type != cm_type::request || m.src_ip.v6 == m.dst_ip.v6);
    return in_range ? cm_error::none : cm_error::bad_field;
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

cm_type cm_type_of_attribute(std::uint16_t attribute_id) noexcept {
    for (std::size_t i = 1; i < cm_type_table.size(); ++i) {
        if (cm_type_table[i].attribute_id == attribute_id) {
            return static_cast<cm_type>(i);
        }
    }
    return cm_type::invalid;
}

std::string_view cm_reject_reason_name(std::uint16_t reason) noexcept {
    for (const reject_reason_name& r : reject_reason_names) {
        if (static_cast<std::uint16_t>(r.reason) == reason) {
            return r.name;
        }
    }
    return "other";
}

std::uint64_t ca_guid_for(const ip_address& address) noexcept {
    const std::array<std::uint8_t, 6> mac = adapter_mac(address);
    const std::array<std::uint8_t, 8> eui64 = {mac[0], mac[1], mac[2], 0xFF,
                                               0xFE,   mac[3], mac[4], mac[5]};
    std::uint64_t guid = 0;
    for (const std::uint8_t b : eui64) {
        guid = guid << 8 | b;
    }
    return guid;
}

std::uint8_t iba_mtu_code(std::uint32_t mtu) noexcept {
    std::uint8_t code = 1;  // 256 bytes, the smallest IBA MTU
    while (code < 5 && (256U << code) <= mtu) {
        ++code;
    }
    return code;
}

std::uint8_t iba_timeout_code(timing::sim_time t) noexcept {
    if (t == 0) {
        return 0;
    }
    constexpr timing::sim_time unit = timing::nanoseconds(4096);
    std::uint8_t code = 1;  // 0 would read as "no timer" in a local ACK timeout
    while (code < k_max5 && (unit << code) < t) {
        ++code;
    }
    return code;
}

cm_encode_result encode_cm_payload(const cm_message& m, std::span<std::byte> out) noexcept {
    cm_encode_result r;
    r.error = check_message(m);
    if (!r.ok()) {
        return r;
    }
    if (out.size() < cm_mad_size) {
        r.error = cm_error::no_room;
        return r;
    }
    const auto type = static_cast<std::size_t>(m.type);
    const cm_type_info& info = cm_type_table[type];
    std::byte* p = out.data();
    std::fill_n(p, cm_mad_size, std::byte{0});
    store_be<1>(p + offsetof(H, base_version), cm_mad_base_version);
    store_be<1>(p + offsetof(H, mgmt_class), cm_mad_class);
    store_be<1>(p + offsetof(H, class_version), cm_class_version);
    store_be<1>(p + offsetof(H, method), cm_mad_method);
    store_be<8>(p + offsetof(H, transaction_id), m.transaction_id);
    store_be<2>(p + offsetof(H, attribute_id), info.attribute_id);
    store_be<4>(p + offsetof(H, attribute_modifier), m.private_data_length);
    body_codecs[type].encode(m, p);
    std::copy_n(m.private_data.begin(), m.private_data_length, p + info.private_data_offset);
    r.size = cm_mad_size;
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
    const encode_result layout = encode_headers(h, cm_mad_size, frame);
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
    if (load_be<1>(p + offsetof(H, base_version)) != cm_mad_base_version ||
        load_be<1>(p + offsetof(H, mgmt_class)) != cm_mad_class ||
        load_be<1>(p + offsetof(H, method)) != cm_mad_method) {
        return refuse(cm_error::bad_mad, n);
    }
    if (load_be<1>(p + offsetof(H, class_version)) != cm_class_version) {
        return refuse(cm_error::bad_version, n);
    }
    if (n < cm_mad_size) {
        return refuse(cm_error::truncated, n);
    }
    if (n > cm_mad_size) {
        return refuse(cm_error::bad_length, n);
    }
    const cm_type type =
        cm_type_of_attribute(static_cast<std::uint16_t>(load_be<2>(p + offsetof(H, attribute_id))));
    const auto index = static_cast<std::size_t>(type);
    const cm_type_info& info = cm_type_table[index];
    if (!info.valid) {
        return refuse(cm_error::bad_type, n);
    }
    const std::uint64_t pd_length = load_be<4>(p + offsetof(H, attribute_modifier));
    if (pd_length > info.max_private_data) {
        return refuse(cm_error::bad_private_data, n);
    }
    if (const cm_error e = body_codecs[index].check(p); e != cm_error::none) {
        return refuse(e, n);
    }
    cm_decode_result r;
    cm_message& m = r.message;
    m.type = type;
    m.transaction_id = load_be<8>(p + offsetof(H, transaction_id));
    body_codecs[index].decode(p, m);
    m.private_data_length = static_cast<std::uint16_t>(pd_length);
    std::copy_n(p + info.private_data_offset, pd_length, m.private_data.begin());
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
