// SPDX-License-Identifier: MIT
#pragma once
// The threaded adapter pair (threaded_pair/adapter_pair.hpp) on a UDP or TCP wire: a at
// 127.0.0.1 and b at 127.0.0.2, connected with private data both ways, plus the helpers the
// socket tests share.
//
// Ports: ctest runs the tests of one executable in parallel processes, and other suites may run
// at the same time, so the pair starts from a port derived from the process id and moves on
// while adapter creation answers STATUS_ADDRESS_ALREADY_EXISTS.

#include <cstddef>
#include <string>

#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/adapter_pair.hpp"
#include "threaded_pair/pattern.hpp"

namespace ndksim::integration {

using testkit::buffer;
using threaded::board;
using threaded::fill;
using threaded::pair_side;

class SocketPair : public ::testing::TestWithParam<ndksim_wire>, protected threaded::adapter_pair {
  protected:
    SocketPair();

    void SetUp() override;
    void TearDown() override;

    /// Creates the two adapters on a free port (see above); false after a reported failure.
    bool create_adapters();

    /// a writes `length` bytes of a_.buf[src] to (address, token) at b; the completion status.
    NTSTATUS write_from_a(std::size_t src, ULONG length, UINT64 address, UINT32 token,
                          ULONG flags = 0);

    /// Creates an MW on b and binds it over b_.buf[offset, offset + length); its token.
    UINT32 bind_window_on_b(std::size_t offset, SIZE_T length, NDK_MW*& mw);

    USHORT port_ = 0;
};

/// "Udp" / "Tcp" for test names.
std::string wire_name(const ::testing::TestParamInfo<ndksim_wire>& info);

}  // namespace ndksim::integration
