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
    return a.v6 ? "[" + to_string(a) + "]:" + std::to_string(port)
                : to_string(a) + ":" + std::to_string(port);
}

}  // namespace ndksim::wire
