// SPDX-License-Identifier: MIT
#include "core/net_address.hpp"

#include <arpa/inet.h>

#include <algorithm>

#include <fmt/format.h>

namespace ndksim::core {

bool net_address::is_wildcard() const noexcept {
    const std::size_t n = v6 ? 16 : 4;
    return std::all_of(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n),
                       [](std::uint8_t b) { return b == 0; });
}

bool net_address::same_ip(const net_address& other) const noexcept {
    return v6 == other.v6 && bytes == other.bytes;
}

std::string net_address::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), text, sizeof text);
    return v6 ? fmt::format("[{}]:{}", text, port) : fmt::format("{}:{}", text, port);
}

bool net_address::parse_ip(const std::string& text, net_address& out) {
    net_address a;
    if (inet_pton(AF_INET, text.c_str(), a.bytes.data()) == 1) {
        a.v6 = false;
        a.family_value = 2;
    } else if (inet_pton(AF_INET6, text.c_str(), a.bytes.data()) == 1) {
        a.v6 = true;
        a.family_value = 23;
    } else {
        return false;
    }
    out = a;
    return true;
}

}  // namespace ndksim::core
