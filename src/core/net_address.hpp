// SPDX-License-Identifier: MIT
#pragma once
// An IP endpoint in host terms (core does not see SOCKADDR). src/api converts to and from the
// Windows SOCKADDR_IN / SOCKADDR_IN6 the consumer passes, remembering the family value the
// consumer used (23 on Windows, 10 on Linux for IPv6) so addresses it returns match.

#include <array>
#include <cstdint>
#include <string>

namespace ndksim::core {

struct net_address {
    bool v6 = false;
    std::array<std::uint8_t, 16> bytes{};  ///< IPv4 in bytes[0..3], network order
    std::uint16_t port = 0;                ///< ND port, host order
    std::uint16_t family_value = 2;        ///< the sa_family value the consumer used

    /// True for 0.0.0.0 or ::.
    bool is_wildcard() const noexcept;

    /// Same IP (ports ignored).
    bool same_ip(const net_address& other) const noexcept;

    /// "192.0.2.1:445" or "[2001:db8::1]:445".
    std::string to_string() const;

    /// Parses an IPv4 or IPv6 literal (no port); returns false on a malformed literal.
    static bool parse_ip(const std::string& text, net_address& out);
};

}  // namespace ndksim::core
