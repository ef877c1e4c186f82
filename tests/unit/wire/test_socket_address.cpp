// SPDX-License-Identifier: MIT
// The socket transports' address helpers: the text their log lines and errors name an endpoint
// by, and the round trip between the wire's ip_address and Boost.Asio's; and ip_address
// equality, by which the engine matches a frame's source to its QP's peer.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include <boost/asio/ip/address.hpp>

#include "wire/socket_address.hpp"

namespace ndksim::wire {
namespace {

TEST(SocketAddress, Ipv4EndpointIsAddressColonPort) {
    EXPECT_EQ("127.0.0.1:4791", endpoint_text(ip_address::v4(127, 0, 0, 1), 4791));
    EXPECT_EQ("0.0.0.0:0", endpoint_text(ip_address::v4(0, 0, 0, 0), 0));
    EXPECT_EQ("255.255.255.255:65535", endpoint_text(ip_address::v4(255, 255, 255, 255), 65535));
}

TEST(SocketAddress, Ipv6EndpointIsBracketed) {
    std::array<std::uint8_t, 16> loopback{};
    loopback[15] = 1;
    EXPECT_EQ("[::1]:4791", endpoint_text(ip_address::v6_from(loopback), 4791));
    const std::array<std::uint8_t, 16> doc = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                              0,    0,    0,    0,    0, 0, 0, 0x2a};
    EXPECT_EQ("[2001:db8::2a]:65535", endpoint_text(ip_address::v6_from(doc), 65535));
}

TEST(SocketAddress, AsioRoundTripKeepsTheFamily) {
    const ip_address v4 = ip_address::v4(192, 0, 2, 7);
    EXPECT_EQ("192.0.2.7", to_asio(v4).to_string());
    EXPECT_EQ(v4, from_asio(to_asio(v4)));
    std::array<std::uint8_t, 16> bytes{};
    bytes[0] = 0xfe;
    bytes[1] = 0x80;
    bytes[15] = 9;
    const ip_address v6 = ip_address::v6_from(bytes);
    EXPECT_TRUE(to_asio(v6).is_v6());
    EXPECT_EQ(v6, from_asio(to_asio(v6)));
}

TEST(SocketAddress, V4MappedIpv6BecomesIpv4) {
    // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d; the wire names it a.b.c.d.
    const auto mapped = boost::asio::ip::make_address("::ffff:127.0.0.2");
    EXPECT_EQ(ip_address::v4(127, 0, 0, 2), from_asio(mapped));
}

// The engine takes a frame as its QP's peer's only when family and all 16 bytes are equal
// (ip_address == compares them as two words): a sender differing in any one byte, or only in
// the family, is a stranger.
static_assert(ip_address::v4(10, 0, 0, 1) == ip_address::v4(10, 0, 0, 1));
static_assert(!(ip_address::v4(10, 0, 0, 1) == ip_address::v4(10, 0, 0, 2)));

TEST(IpAddress, EqualOnlyWithTheSameFamilyAndEveryByte) {
    std::array<std::uint8_t, 16> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<std::uint8_t>(0x20 + i);
    }
    const ip_address peer = ip_address::v6_from(bytes);
    EXPECT_EQ(peer, ip_address::v6_from(bytes));
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::array<std::uint8_t, 16> other = bytes;
        other[i] ^= 0x01;
        EXPECT_FALSE(peer == ip_address::v6_from(other)) << "byte " << i;
    }
    ip_address same_bytes_v4 = peer;
    same_bytes_v4.v6 = false;
    EXPECT_FALSE(peer == same_bytes_v4) << "the family alone differs";
    EXPECT_FALSE(ip_address::v4(127, 0, 0, 1) == ip_address::v4(127, 0, 0, 2));
}

}  // namespace
}  // namespace ndksim::wire
