// SPDX-License-Identifier: MIT
#pragma once
// Conversions between the wire's ip_address and Boost.Asio addresses, for the socket
// transports only (so the rest of the wire does not compile Asio).

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <string>

#include "wire/proto.hpp"

namespace ndksim::wire {

/// The Asio form of `a`.
boost::asio::ip::address to_asio(const ip_address& a);

/// The wire form of `a`; a v4-mapped IPv6 address becomes the IPv4 address it maps.
ip_address from_asio(const boost::asio::ip::address& a);

/// "127.0.0.1:4791" or "[::1]:4791", for log lines and errors.
std::string endpoint_text(const ip_address& a, std::uint16_t port);

}  // namespace ndksim::wire
