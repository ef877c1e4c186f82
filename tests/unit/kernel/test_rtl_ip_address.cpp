// SPDX-License-Identifier: MIT
// IP address strings. The IPv4 cases are Windows' observed results (status, where parsing stops,
// the address), in non-strict and strict mode, including the odd ones (a wrapping hexadecimal
// part, "08" failing where "008" stops).

#include <gtest/gtest.h>

#include <string>

#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

constexpr ULONG k_untouched = 0xabababab;

struct ipv4_case {
    const char* text;
    bool strict;
    NTSTATUS status;
    int terminator;
    ULONG address;  // a.b.c.d as 0xaabbccdd, or k_untouched
};

ULONG host_order(const IN_ADDR& a) {
    const auto& b = a.S_un.S_un_b;
    return static_cast<ULONG>(b.s_b1) << 24 | static_cast<ULONG>(b.s_b2) << 16 |
           static_cast<ULONG>(b.s_b3) << 8 | b.s_b4;
}

const ipv4_case k_ipv4_cases[] = {
    {"", false, STATUS_INVALID_PARAMETER, 0, k_untouched},
    {"1.1.1.1", false, STATUS_SUCCESS, 7, 0x01010101},
    {"255.255.255.255:123", false, STATUS_SUCCESS, 15, 0xffffffff},
    {"255.255.255.256", false, STATUS_INVALID_PARAMETER, 15, k_untouched},
    {"255.255.255.4294967295", false, STATUS_INVALID_PARAMETER, 22, k_untouched},
    {"255.255.255.4294967296", false, STATUS_INVALID_PARAMETER, 21, k_untouched},
    {"1.1.1.0xaA", false, STATUS_SUCCESS, 10, 0x010101aa},
    {"1.1.1.0xaA", true, STATUS_INVALID_PARAMETER, 8, k_untouched},
    {"1.1.1.0x", false, STATUS_INVALID_PARAMETER, 8, k_untouched},
    {"1.1.1.0x100", false, STATUS_INVALID_PARAMETER, 11, k_untouched},
    {"1.1.1.0x100000000", false, STATUS_INVALID_PARAMETER, 16, k_untouched},
    {"1.1.1.010", false, STATUS_SUCCESS, 9, 0x01010108},
    {"1.1.1.010", true, STATUS_INVALID_PARAMETER, 7, k_untouched},
    {"1.1.1.08", false, STATUS_INVALID_PARAMETER, 7, k_untouched},
    {"1.1.1.008", false, STATUS_SUCCESS, 8, 0x01010100},
    {"1.1.1.0a", true, STATUS_SUCCESS, 7, 0x01010100},
    {"1.1.1.-2", false, STATUS_INVALID_PARAMETER, 6, k_untouched},
    {"1", false, STATUS_SUCCESS, 1, 0x00000001},
    {"1", true, STATUS_INVALID_PARAMETER, 1, k_untouched},
    {"1.2", false, STATUS_SUCCESS, 3, 0x01000002},
    {"1.2.3", false, STATUS_SUCCESS, 5, 0x01020003},
    {"1000.2000", false, STATUS_INVALID_PARAMETER, 9, k_untouched},
    {"1.2.", false, STATUS_INVALID_PARAMETER, 4, k_untouched},
    {"1..2", false, STATUS_INVALID_PARAMETER, 3, k_untouched},
    {".1", false, STATUS_INVALID_PARAMETER, 1, k_untouched},
    {"203569230", false, STATUS_SUCCESS, 9, 0x0c22384e},
    {"1.223756", false, STATUS_SUCCESS, 8, 0x01036a0c},
    {"3.4.65536", false, STATUS_INVALID_PARAMETER, 9, k_untouched},
    {"3.4.5.6.7", false, STATUS_INVALID_PARAMETER, 7, k_untouched},
    {"3. 4.5.6", false, STATUS_INVALID_PARAMETER, 2, k_untouched},
    {" 3.4.5.6", false, STATUS_INVALID_PARAMETER, 0, k_untouched},
    {"3.4.5.6 ", true, STATUS_SUCCESS, 7, 0x03040506},
    {"0x123456789", false, STATUS_SUCCESS, 11, 0x23456789},
    {"0x00010Q03", false, STATUS_SUCCESS, 7, 0x00000010},
    {"0x00010203", true, STATUS_INVALID_PARAMETER, 2, k_untouched},
    {"1234BEEF", false, STATUS_SUCCESS, 4, 0x000004d2},
    {"017700000001", false, STATUS_SUCCESS, 12, 0x7f000001},
    {"017700000001", true, STATUS_INVALID_PARAMETER, 1, k_untouched},
    {"::1", false, STATUS_INVALID_PARAMETER, 0, k_untouched},
};

TEST(RtlIpv4, StringToAddressMatchesWindows) {
    for (const auto& c : k_ipv4_cases) {
        IN_ADDR address;
        address.S_un.S_addr = k_untouched;
        PCSTR terminator = nullptr;
        EXPECT_EQ(RtlIpv4StringToAddressA(c.text, c.strict, &terminator, &address), c.status)
            << c.text << " strict=" << c.strict;
        EXPECT_EQ(terminator - c.text, c.terminator) << c.text << " strict=" << c.strict;
        EXPECT_EQ(c.address == k_untouched ? address.S_un.S_addr : host_order(address), c.address)
            << c.text;
        // The wide form stops at the same offsets.
        const std::u16string wide(c.text, c.text + std::char_traits<char>::length(c.text));
        PCWSTR wide_terminator = nullptr;
        EXPECT_EQ(RtlIpv4StringToAddressW(wide.c_str(), c.strict, &wide_terminator, &address),
                  c.status);
        EXPECT_EQ(wide_terminator - wide.c_str(), c.terminator);
    }
}

TEST(RtlIpv4, StringToAddressExParsesThePort) {
    IN_ADDR address;
    USHORT port = 0xdead;
    EXPECT_EQ(RtlIpv4StringToAddressExA("1.2.3.4:65535", TRUE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(host_order(address), 0x01020304U);
    EXPECT_EQ(port, 0xffff);
    EXPECT_EQ(RtlIpv4StringToAddressExA("1.1.1.1:1", FALSE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(port, 0x100);  // network byte order
    EXPECT_EQ(RtlIpv4StringToAddressExA("1.2.3.4:011064", FALSE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(port, 0x3412);
    EXPECT_EQ(RtlIpv4StringToAddressExA("1.2.3.4:0XfFfF", FALSE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(port, 0xffff);
    EXPECT_EQ(RtlIpv4StringToAddressExA("9.8.7.6", FALSE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(port, 0);
    for (const char* bad : {"1.1.1.1:", "1.1.1.1+", "0.0.0.0:0", "1.2.3.4:65536", "1.2.3.4:1234a",
                            "1.2.3.4: 1234", "3.4.5.6 ", "1.1.1.0a"}) {
        port = 0xdead;
        EXPECT_EQ(RtlIpv4StringToAddressExA(bad, FALSE, &address, &port), STATUS_INVALID_PARAMETER)
            << bad;
        EXPECT_EQ(port, 0xdead) << bad;
    }
    EXPECT_EQ(RtlIpv4StringToAddressExA(nullptr, FALSE, &address, &port), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlIpv4StringToAddressExW(u"10.0.0.1:80", TRUE, &address, &port), STATUS_SUCCESS);
    EXPECT_EQ(port, RtlUshortByteSwap(80));
}

TEST(RtlIpv4, AddressToStringWithAndWithoutPort) {
    IN_ADDR address;
    address.S_un.S_un_b = {192, 168, 0, 1};
    char text[32];
    EXPECT_EQ(RtlIpv4AddressToStringA(&address, text), text + 11);
    EXPECT_STREQ(text, "192.168.0.1");
    WCHAR wide[32];
    EXPECT_EQ(RtlIpv4AddressToStringW(&address, wide) - wide, 11);
    EXPECT_EQ(std::u16string(wide), u"192.168.0.1");

    ULONG length = sizeof(text);
    EXPECT_EQ(RtlIpv4AddressToStringExA(&address, RtlUshortByteSwap(8080), text, &length),
              STATUS_SUCCESS);
    EXPECT_STREQ(text, "192.168.0.1:8080");
    EXPECT_EQ(length, 17U);
    length = 16;
    EXPECT_EQ(RtlIpv4AddressToStringExA(&address, RtlUshortByteSwap(8080), text, &length),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(length, 17U);
    length = 12;
    EXPECT_EQ(RtlIpv4AddressToStringExW(&address, 0, wide, &length), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(wide), u"192.168.0.1");
    EXPECT_EQ(RtlIpv4AddressToStringExA(&address, 0, text, nullptr), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlIpv4AddressToStringExA(nullptr, 0, text, &length), STATUS_INVALID_PARAMETER);
}

TEST(RtlIpv6, StringToAddressAndBack) {
    IN6_ADDR address{};
    PCSTR terminator = nullptr;
    const char* text = "fe80::1%5";
    ASSERT_EQ(RtlIpv6StringToAddressA(text, &terminator, &address), STATUS_SUCCESS);
    EXPECT_EQ(terminator - text, 7);
    EXPECT_EQ(address.u.Byte[0], 0xfe);
    EXPECT_EQ(address.u.Byte[15], 0x01);
    char out[64];
    EXPECT_EQ(RtlIpv6AddressToStringA(&address, out) - out, 7);
    EXPECT_STREQ(out, "fe80::1");
    EXPECT_EQ(RtlIpv6StringToAddressA("xyz", &terminator, &address), STATUS_INVALID_PARAMETER);

    ULONG scope = 0;
    USHORT port = 0;
    ASSERT_EQ(RtlIpv6StringToAddressExA("[2001:db8::7%3]:443", &address, &scope, &port),
              STATUS_SUCCESS);
    EXPECT_EQ(scope, 3U);
    EXPECT_EQ(port, RtlUshortByteSwap(443));
    ULONG length = sizeof(out);
    EXPECT_EQ(RtlIpv6AddressToStringExA(&address, scope, port, out, &length), STATUS_SUCCESS);
    EXPECT_STREQ(out, "[2001:db8::7%3]:443");
    EXPECT_EQ(length, 20U);
    length = 5;
    EXPECT_EQ(RtlIpv6AddressToStringExA(&address, 0, 0, out, &length), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(length, 12U);
    ASSERT_EQ(RtlIpv6StringToAddressExW(u"::ffff:1.2.3.4", &address, &scope, &port),
              STATUS_SUCCESS);
    EXPECT_EQ(scope, 0U);
    EXPECT_EQ(port, 0);
    WCHAR wide[64];
    EXPECT_EQ(std::u16string(wide, RtlIpv6AddressToStringW(&address, wide)), u"::ffff:1.2.3.4");
    for (const char* bad : {"[::1", "[::1]:", "::1]", "[::1]:0", "::1%", "::1 "}) {
        EXPECT_EQ(RtlIpv6StringToAddressExA(bad, &address, &scope, &port), STATUS_INVALID_PARAMETER)
            << bad;
    }
}

}  // namespace
}  // namespace ndksim::kernel::test
