// SPDX-License-Identifier: MIT
#pragma once
// The IPv4 socket address a test passes to NdkListen, NdkConnect and NdkBind, written from a
// dotted literal (header-only, so every fixture of the testkit shares one definition).

#include <arpa/inet.h>

#include <gtest/gtest.h>
#include <ndkpi.h>

namespace ndksim::testkit {

/// An IPv4 socket address ("10.0.0.2", port in host order); a literal that is not IPv4 fails
/// the running test and gives the address 0.0.0.0.
inline SOCKADDR_IN ipv4(const char* ip, USHORT port) {
    SOCKADDR_IN a{};
    a.sin_family = WS_AF_INET;
    a.sin_port = htons(port);
    EXPECT_EQ(inet_pton(AF_INET, ip, &a.sin_addr), 1) << ip << " is not an IPv4 literal";
    return a;
}

}  // namespace ndksim::testkit
