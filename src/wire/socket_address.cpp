// SPDX-License-Identifier: MIT
#include "wire/socket_address.hpp"

#include <algorithm>

#include "wire/transport.hpp"

namespace ndksim::wire {

boost::asio::ip::address to_asio(const ip_address& a) {
    if (a.v6) {
        boost::asio::ip::address_v6::bytes_type b{};
        std::copy(a.bytes.begin(), a.bytes.end(), b.begin());
        return boost::asio::ip::address_v6(b);
    }
    boost::asio::ip::address_v4::bytes_type b{};
    std::copy_n(a.bytes.begin(), b.size(), b.begin());
    return boost::asio::ip::address_v4(b);
}

ip_address from_asio(const boost::asio::ip::address& a) {
    ip_address r;
    if (a.is_v6() && a.to_v6().is_v4_mapped()) {
        const auto b =
            boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6()).to_bytes();
        std::copy(b.begin(), b.end(), r.bytes.begin());
    } else if (a.is_v6()) {
        r.v6 = true;
        const auto b = a.to_v6().to_bytes();
        std::copy(b.begin(), b.end(), r.bytes.begin());
    } else {
        const auto b = a.to_v4().to_bytes();
        std::copy(b.begin(), b.end(), r.bytes.begin());
    }
    return r;
}

std::string endpoint_text(const ip_address& a, std::uint16_t port) {
    // Built front to back by appending: `"[" + to_string(a)` would insert at the front of a
    // temporary string, a path GCC 12 at -O3 misreads as a memcpy of up to SIZE_MAX bytes
    // (-Wstringop-overflow). Appends copy sizes the compiler can bound.
    const std::string host = to_string(a);
    const std::string number = std::to_string(port);
    std::string text;
    text.reserve(host.size() + number.size() + 3);
    if (a.v6) {
        text += '[';
    }
    text += host;
    if (a.v6) {
        text += ']';
    }
    text += ':';
    text += number;
    return text;
}

}  // namespace ndksim::wire
