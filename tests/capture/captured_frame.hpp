// SPDX-License-Identifier: MIT
#pragma once
// The RoCEv2 frame of a captured IPv4 record and the flow its IP and UDP headers name: what a
// test needs to decode a record with the codec and check its ICRC against the headers as
// captured (what Wireshark would check).

#include <cstddef>
#include <cstdint>
#include <span>

#include "capture/pcap_reader.hpp"
#include "wire/icrc.hpp"

namespace ndksim::capture_test {

/// Ethernet, IPv4 and UDP headers in front of a captured frame [bytes].
inline constexpr std::size_t ipv4_headers_size = 14 + 20 + 8;

/// The flow of an IPv4 record (addresses, ports and identification as captured); the record
/// holds at least ipv4_headers_size bytes.
inline wire::flow ipv4_flow(const pcap_record& r) {
    const std::byte* ip = r.bytes.data() + 14;
    const std::byte* udp = ip + 20;
    const auto byte_at = [](const std::byte* p) { return static_cast<std::uint8_t>(be_at(p, 1)); };
    wire::flow f;
    f.src = wire::ip_address::v4(byte_at(ip + 12), byte_at(ip + 13), byte_at(ip + 14),
                                 byte_at(ip + 15));
    f.dst = wire::ip_address::v4(byte_at(ip + 16), byte_at(ip + 17), byte_at(ip + 18),
                                 byte_at(ip + 19));
    f.src_port = static_cast<std::uint16_t>(be_at(udp, 2));
    f.dst_port = static_cast<std::uint16_t>(be_at(udp + 2, 2));
    f.ipv4_id = static_cast<std::uint16_t>(be_at(ip + 4, 2));
    return f;
}

/// The frame (BTH through ICRC) of an IPv4 record.
inline std::span<const std::byte> ipv4_frame(const pcap_record& r) {
    return std::span<const std::byte>(r.bytes).subspan(ipv4_headers_size);
}

}  // namespace ndksim::capture_test
