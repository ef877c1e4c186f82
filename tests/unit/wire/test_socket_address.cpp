// SPDX-License-Identifier: MIT
// The socket transports' address helpers: the text their log lines and errors name an endpoint
// by, and the round trip between the wire's ip_address and Boost.Asio's.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ndksim::wire
