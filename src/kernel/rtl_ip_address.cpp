// SPDX-License-Identifier: MIT
// IP address strings (ip2string.h): IPv4 and IPv6 text <-> IN_ADDR / IN6_ADDR, with the
// observed Windows rules for where parsing stops (the Terminator) and which inputs fail.
//
// IPv4 parsing rules, as Windows applies them (the cases are in tests/unit/kernel):
//  - a part starts with a digit; "0x"/"0X" starts a hexadecimal part, "0" followed by a digit an
//    octal one (not strict mode: strict mode fails at the second character of either form);
//    "0" directly followed by 8 or 9 fails there; parsing of a part stops at the first character
//    that is not a digit of its base;
//  - digits accumulate in 32 bits; a digit whose addition makes the value wrap below its
//    previous value fails at that digit (so some over-long hexadecimal parts wrap silently, as on
//    Windows);
//  - a '.' follows a part: an empty part before a '.' fails just after that '.', and a fifth
//    part's '.' fails at the '.'; an empty part anywhere else fails where it should have started;
//  - the range of every part (255 except the last, which fills the remaining bytes) and, in
//    strict mode, the count of four parts are checked at the end, failing at the end.
// On failure *Addr is not written; the Terminator always is.

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "wdm.h"

namespace ndksim::kernel {
namespace {

template <typename Char>
int digit_in_base(Char c, unsigned base) {
    const auto unit = static_cast<std::uint32_t>(c);
    int value = -1;
    if (unit >= '0' && unit <= '9') {
        value = static_cast<int>(unit - '0');
    } else if (unit >= 'a' && unit <= 'f') {
        value = static_cast<int>(unit - 'a' + 10);
    } else if (unit >= 'A' && unit <= 'F') {
        value = static_cast<int>(unit - 'A' + 10);
    }
    return value >= 0 && static_cast<unsigned>(value) < base ? value : -1;
}

template <typename Char>
bool is(Char c, char expected) {
    return static_cast<std::uint32_t>(c) == static_cast<unsigned char>(expected);
}

template <typename Char>
bool is_decimal(Char c) {
    return digit_in_base(c, 10) >= 0;
}

struct parse_result {
    bool ok;
    std::size_t end;      // index of the Terminator
    std::uint32_t value;  // host order
};

// Parses one number with a base prefix ("0x" hexadecimal, "0" + digit octal, else decimal) at
// s[i]; shared by the address parts and the Ex port.
template <typename Char>
parse_result parse_number(const Char* s, std::size_t i, bool strict) {
    if (!is_decimal(s[i])) {
        return {false, is(s[i], '.') ? i + 1 : i, 0};
    }
    unsigned base = 10;
    if (is(s[i], '0')) {
        if (is(s[i + 1], 'x') || is(s[i + 1], 'X')) {
            if (strict) {
                return {false, i + 2, 0};
            }
            base = 16;
            i += 2;
            if (digit_in_base(s[i], base) < 0) {
                return {false, i, 0};
            }
        } else if (is_decimal(s[i + 1])) {
            if (strict || digit_in_base(s[i + 1], 8) < 0) {
                return {false, i + 1, 0};
            }
            base = 8;
            i += 1;
        }
    }
    std::uint32_t value = 0;
    for (int digit = digit_in_base(s[i], base); digit >= 0; digit = digit_in_base(s[i], base)) {
        const std::uint32_t next = value * base + static_cast<std::uint32_t>(digit);
        if (next < value) {
            return {false, i, 0};
        }
        value = next;
        ++i;
    }
    return {true, i, value};
}

template <typename Char>
parse_result parse_ipv4(const Char* s, bool strict) {
    std::uint32_t parts[4] = {};
    std::size_t count = 0;
    std::size_t i = 0;
    for (;;) {
        const parse_result part = parse_number(s, i, strict);
        if (!part.ok) {
            return part;
        }
        parts[count++] = part.value;
        i = part.end;
        if (!is(s[i], '.')) {
            break;
        }
        if (count == 4) {
            return {false, i, 0};
        }
        ++i;
    }
    if (strict && count != 4) {
        return {false, i, 0};
    }
    for (std::size_t k = 0; k + 1 < count; ++k) {
        if (parts[k] > 0xFF) {
            return {false, i, 0};
        }
    }
    // The last part fills the bytes the others left: 32, 24, 16 or 8 bits.
    const unsigned last_bits = static_cast<unsigned>(8 * (5 - count));
    if (last_bits < 32 && parts[count - 1] >> last_bits != 0) {
        return {false, i, 0};
    }
    std::uint32_t value = parts[count - 1];
    for (std::size_t k = 0; k + 1 < count; ++k) {
        value |= parts[k] << (24 - 8 * k);
    }
    return {true, i, value};
}

void store_ipv4(IN_ADDR* address, std::uint32_t host_order) {
    address->S_un.S_un_b.s_b1 = static_cast<UCHAR>(host_order >> 24);
    address->S_un.S_un_b.s_b2 = static_cast<UCHAR>(host_order >> 16);
    address->S_un.S_un_b.s_b3 = static_cast<UCHAR>(host_order >> 8);
    address->S_un.S_un_b.s_b4 = static_cast<UCHAR>(host_order);
}

// The optional ":port" of the Ex parsers: a nonzero number (with a base prefix) that ends the
// string. Returns the port in host order, or 0 when the text is not a valid port.
template <typename Char>
std::uint32_t parse_port(const Char* s, std::size_t i) {
    const parse_result port = parse_number(s, i, false);
    if (!port.ok || s[port.end] != 0 || port.value == 0 || port.value > 0xFFFF) {
        return 0;
    }
    return port.value;
}

template <typename Char>
NTSTATUS ipv4_string_to_address(const Char* s, BOOLEAN strict, const Char** terminator,
                                IN_ADDR* address) {
    if (s == nullptr || terminator == nullptr || address == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const parse_result parsed = parse_ipv4(s, strict != FALSE);
    *terminator = s + parsed.end;
    if (!parsed.ok) {
        return STATUS_INVALID_PARAMETER;
    }
    store_ipv4(address, parsed.value);
    return STATUS_SUCCESS;
}

template <typename Char>
NTSTATUS ipv4_string_to_address_ex(const Char* s, BOOLEAN strict, IN_ADDR* address, USHORT* port) {
    if (s == nullptr || address == nullptr || port == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const parse_result parsed = parse_ipv4(s, strict != FALSE);
    if (!parsed.ok) {
        return STATUS_INVALID_PARAMETER;
    }
    // Windows stores the address before it looks at what follows it.
    store_ipv4(address, parsed.value);
    if (s[parsed.end] == 0) {
        *port = 0;
        return STATUS_SUCCESS;
    }
    if (!is(s[parsed.end], ':')) {
        return STATUS_INVALID_PARAMETER;
    }
    const std::uint32_t value = parse_port(s, parsed.end + 1);
    if (value == 0) {
        return STATUS_INVALID_PARAMETER;
    }
    *port = RtlUshortByteSwap(static_cast<USHORT>(value));
    return STATUS_SUCCESS;
}

std::string ipv4_text(const IN_ADDR* address) {
    const auto& b = address->S_un.S_un_b;
    return std::to_string(b.s_b1) + '.' + std::to_string(b.s_b2) + '.' + std::to_string(b.s_b3) +
           '.' + std::to_string(b.s_b4);
}

std::string ipv6_text(const IN6_ADDR* address) {
    char text[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, address->u.Byte, text, sizeof(text));
    return text;
}

template <typename Char>
Char* write_text(const std::string& text, Char* out) {
    for (const char c : text) {
        *out++ = static_cast<Char>(static_cast<unsigned char>(c));
    }
    *out = 0;
    return out;
}

// The Ex formatters' buffer contract: on input the size in characters, on output the characters
// written including the NUL, or the size needed when the buffer is too small.
template <typename Char>
NTSTATUS write_sized(const std::string& text, Char* out, ULONG* length) {
    const auto needed = static_cast<ULONG>(text.size() + 1);
    if (*length < needed) {
        *length = needed;
        return STATUS_INVALID_PARAMETER;
    }
    write_text(text, out);
    *length = needed;
    return STATUS_SUCCESS;
}

// The longest prefix of s (up to the first character that cannot be part of an IPv6 address)
// that parses as an address. Windows' parser also stops at the first character it cannot use.
template <typename Char>
parse_result parse_ipv6(const Char* s, IN6_ADDR* address) {
    std::string candidate;
    for (std::size_t i = 0; i < INET6_ADDRSTRLEN; ++i) {
        const auto unit = static_cast<std::uint32_t>(s[i]);
        if (unit == ':' || unit == '.' || digit_in_base(s[i], 16) >= 0) {
            candidate.push_back(static_cast<char>(unit));
        } else {
            break;
        }
    }
    for (std::size_t n = candidate.size(); n > 0; --n) {
        IN6_ADDR parsed{};
        if (inet_pton(AF_INET6, candidate.substr(0, n).c_str(), parsed.u.Byte) == 1) {
            *address = parsed;
            return {true, n, 0};
        }
    }
    return {false, 0, 0};
}

template <typename Char>
NTSTATUS ipv6_string_to_address(const Char* s, const Char** terminator, IN6_ADDR* address) {
    if (s == nullptr || terminator == nullptr || address == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const parse_result parsed = parse_ipv6(s, address);
    *terminator = s + parsed.end;
    return parsed.ok ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

template <typename Char>
NTSTATUS ipv6_string_to_address_ex(const Char* s, IN6_ADDR* address, ULONG* scope_id,
                                   USHORT* port) {
    if (s == nullptr || address == nullptr || scope_id == nullptr || port == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const bool bracketed = is(s[0], '[');
    std::size_t i = bracketed ? 1 : 0;
    IN6_ADDR parsed_address{};
    const parse_result parsed = parse_ipv6(s + i, &parsed_address);
    if (!parsed.ok) {
        return STATUS_INVALID_PARAMETER;
    }
    i += parsed.end;
    std::uint32_t scope = 0;
    if (is(s[i], '%')) {
        ++i;
        if (!is_decimal(s[i])) {
            return STATUS_INVALID_PARAMETER;
        }
        for (; is_decimal(s[i]); ++i) {
            const std::uint32_t next =
                scope * 10 + static_cast<std::uint32_t>(digit_in_base(s[i], 10));
            if (next < scope) {
                return STATUS_INVALID_PARAMETER;
            }
            scope = next;
        }
    }
    std::uint32_t port_value = 0;
    if (bracketed) {
        if (!is(s[i], ']')) {
            return STATUS_INVALID_PARAMETER;
        }
        ++i;
        if (is(s[i], ':')) {
            port_value = parse_port(s, i + 1);
            if (port_value == 0) {
                return STATUS_INVALID_PARAMETER;
            }
        } else if (s[i] != 0) {
            return STATUS_INVALID_PARAMETER;
        }
    } else if (s[i] != 0) {
        return STATUS_INVALID_PARAMETER;
    }
    *address = parsed_address;
    *scope_id = scope;
    *port = RtlUshortByteSwap(static_cast<USHORT>(port_value));
    return STATUS_SUCCESS;
}

// The Ex formatters: every pointer is required; then the sized write.
template <typename Address, typename Char, typename Text>
NTSTATUS address_to_string_ex(const Address* address, Char* out, ULONG* length, Text text) {
    if (address == nullptr || out == nullptr || length == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return write_sized(text(), out, length);
}

std::string ipv4_text_ex(const IN_ADDR* address, USHORT port) {
    std::string text = ipv4_text(address);
    if (port != 0) {
        text += ':' + std::to_string(RtlUshortByteSwap(port));
    }
    return text;
}

std::string ipv6_text_ex(const IN6_ADDR* address, ULONG scope_id, USHORT port) {
    std::string text = ipv6_text(address);
    if (scope_id != 0) {
        text += '%' + std::to_string(scope_id);
    }
    if (port != 0) {
        text = '[' + text + "]:" + std::to_string(RtlUshortByteSwap(port));
    }
    return text;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS RtlIpv4StringToAddressA(PCSTR S, BOOLEAN Strict, PCSTR* Terminator,
                                            IN_ADDR* Addr) {
    return ipv4_string_to_address(S, Strict, Terminator, Addr);
}

NDKSIM_API NTSTATUS RtlIpv4StringToAddressW(PCWSTR S, BOOLEAN Strict, PCWSTR* Terminator,
                                            IN_ADDR* Addr) {
    return ipv4_string_to_address(S, Strict, Terminator, Addr);
}

NDKSIM_API NTSTATUS RtlIpv4StringToAddressExA(PCSTR AddressString, BOOLEAN Strict, IN_ADDR* Address,
                                              PUSHORT Port) {
    return ipv4_string_to_address_ex(AddressString, Strict, Address, Port);
}

NDKSIM_API NTSTATUS RtlIpv4StringToAddressExW(PCWSTR AddressString, BOOLEAN Strict,
                                              IN_ADDR* Address, PUSHORT Port) {
    return ipv4_string_to_address_ex(AddressString, Strict, Address, Port);
}

NDKSIM_API PSTR RtlIpv4AddressToStringA(const IN_ADDR* Addr, PSTR S) {
    return write_text(ipv4_text(Addr), S);
}

NDKSIM_API PWSTR RtlIpv4AddressToStringW(const IN_ADDR* Addr, PWSTR S) {
    return write_text(ipv4_text(Addr), S);
}

NDKSIM_API NTSTATUS RtlIpv4AddressToStringExA(const IN_ADDR* Address, USHORT Port,
                                              PSTR AddressString, PULONG AddressStringLength) {
    return address_to_string_ex(Address, AddressString, AddressStringLength,
                                [&] { return ipv4_text_ex(Address, Port); });
}

NDKSIM_API NTSTATUS RtlIpv4AddressToStringExW(const IN_ADDR* Address, USHORT Port,
                                              PWSTR AddressString, PULONG AddressStringLength) {
    return address_to_string_ex(Address, AddressString, AddressStringLength,
                                [&] { return ipv4_text_ex(Address, Port); });
}

NDKSIM_API NTSTATUS RtlIpv6StringToAddressA(PCSTR S, PCSTR* Terminator, IN6_ADDR* Addr) {
    return ipv6_string_to_address(S, Terminator, Addr);
}

NDKSIM_API NTSTATUS RtlIpv6StringToAddressW(PCWSTR S, PCWSTR* Terminator, IN6_ADDR* Addr) {
    return ipv6_string_to_address(S, Terminator, Addr);
}

NDKSIM_API NTSTATUS RtlIpv6StringToAddressExA(PCSTR AddressString, IN6_ADDR* Address,
                                              PULONG ScopeId, PUSHORT Port) {
    return ipv6_string_to_address_ex(AddressString, Address, ScopeId, Port);
}

NDKSIM_API NTSTATUS RtlIpv6StringToAddressExW(PCWSTR AddressString, IN6_ADDR* Address,
                                              PULONG ScopeId, PUSHORT Port) {
    return ipv6_string_to_address_ex(AddressString, Address, ScopeId, Port);
}

NDKSIM_API PSTR RtlIpv6AddressToStringA(const IN6_ADDR* Addr, PSTR S) {
    return write_text(ipv6_text(Addr), S);
}

NDKSIM_API PWSTR RtlIpv6AddressToStringW(const IN6_ADDR* Addr, PWSTR S) {
    return write_text(ipv6_text(Addr), S);
}

NDKSIM_API NTSTATUS RtlIpv6AddressToStringExA(const IN6_ADDR* Address, ULONG ScopeId, USHORT Port,
                                              PSTR AddressString, PULONG AddressStringLength) {
    return address_to_string_ex(Address, AddressString, AddressStringLength,
                                [&] { return ipv6_text_ex(Address, ScopeId, Port); });
}

NDKSIM_API NTSTATUS RtlIpv6AddressToStringExW(const IN6_ADDR* Address, ULONG ScopeId, USHORT Port,
                                              PWSTR AddressString, PULONG AddressStringLength) {
    return address_to_string_ex(Address, AddressString, AddressStringLength,
                                [&] { return ipv6_text_ex(Address, ScopeId, Port); });
}

}  // extern "C"
