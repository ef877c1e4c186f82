// SPDX-License-Identifier: MIT
#include "api/address.hpp"

#include <sys/socket.h>

#include <cstring>

namespace ndksim::api {
namespace {

bool is_ipv6_family(ADDRESS_FAMILY f) noexcept {
    return f == WS_AF_INET6 || f == AF_INET6;
}

}  // namespace

status from_sockaddr(const SOCKADDR* address, ULONG length, core::net_address& out) {
    if (address == nullptr || length < sizeof(SOCKADDR_IN)) {
        return status::invalid_address;
    }
    const ADDRESS_FAMILY family = address->sa_family;
    core::net_address a;
    a.family_value = family;
    if (family == WS_AF_INET) {
        const auto* in = reinterpret_cast<const SOCKADDR_IN*>(address);
        a.v6 = false;
        std::memcpy(a.bytes.data(), &in->sin_addr, 4);
        a.port = static_cast<std::uint16_t>((in->sin_port >> 8) | ((in->sin_port & 0xFF) << 8));
    } else if (is_ipv6_family(family)) {
        if (length < sizeof(SOCKADDR_IN6)) {
            return status::invalid_address;
        }
        const auto* in6 = reinterpret_cast<const SOCKADDR_IN6*>(address);
        a.v6 = true;
        std::memcpy(a.bytes.data(), &in6->sin6_addr, 16);
        a.port = static_cast<std::uint16_t>((in6->sin6_port >> 8) | ((in6->sin6_port & 0xFF) << 8));
    } else {
        return status::invalid_address;
    }
    out = a;
    return status::success;
}

NTSTATUS to_sockaddr(const core::net_address& a, SOCKADDR* out, ULONG* length) noexcept {
    if (length == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const ULONG needed = a.v6 ? sizeof(SOCKADDR_IN6) : sizeof(SOCKADDR_IN);
    const ULONG given = *length;
    *length = needed;
    if (out == nullptr || given < needed) {
        return STATUS_BUFFER_TOO_SMALL;
    }
    const auto port_be = static_cast<USHORT>((a.port >> 8) | ((a.port & 0xFF) << 8));
    if (a.v6) {
        SOCKADDR_IN6 in6{};
        in6.sin6_family = a.family_value;
        in6.sin6_port = port_be;
        std::memcpy(&in6.sin6_addr, a.bytes.data(), 16);
        std::memcpy(out, &in6, sizeof in6);
    } else {
        SOCKADDR_IN in{};
        in.sin_family = WS_AF_INET;
        in.sin_port = port_be;
        std::memcpy(&in.sin_addr, a.bytes.data(), 4);
        std::memcpy(out, &in, sizeof in);
    }
    return STATUS_SUCCESS;
}

}  // namespace ndksim::api
