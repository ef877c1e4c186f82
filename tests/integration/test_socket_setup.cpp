// SPDX-License-Identifier: MIT
// Creating adapters on the socket wires: the configurations they refuse and the statuses of a
// port that is taken or an address this host does not own; and the scheduler's advance_to,
// which keeps a receiver's clock from running behind a frame's sender.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ndksim/testkit/rc_pair.hpp>

#include "integration/socket_pair.hpp"
#include "timing/scheduler.hpp"

namespace ndksim::integration {
namespace {

using testkit::status_string;

class SocketSetup : public ::testing::TestWithParam<ndksim_wire> {};

TEST_P(SocketSetup, ASocketWireOnADeterministicLoopIsAnInvalidParameter) {
    ndksim_loop* loop = nullptr;
    ASSERT_NT_SUCCESS(ndksim_loop_create(&loop));
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.wire = GetParam();
    c.loop = loop;
    ndksim_adapter* nic = nullptr;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_create(&c, &nic));
    EXPECT_EQ(nullptr, nic);
    ndksim_loop_destroy(loop);
}

TEST_P(SocketSetup, APortTakenByAnotherSocketIsAddressAlreadyExists) {
    // Hold a port on 127.0.0.4 with a plain socket of the wire's kind.
    const bool udp = GetParam() == NDKSIM_WIRE_UDP;
    const int fd = ::socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(0x7F000004);
    ASSERT_EQ(0, ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a));
    if (!udp) {
        ASSERT_EQ(0, ::listen(fd, 1));
    }
    socklen_t len = sizeof a;
    ASSERT_EQ(0, ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len));
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.wire = GetParam();
    c.address = "127.0.0.4";
    c.port = ntohs(a.sin_port);
    ndksim_adapter* nic = nullptr;
    EXPECT_NT_STATUS(STATUS_ADDRESS_ALREADY_EXISTS, ndksim_adapter_create(&c, &nic));
    EXPECT_EQ(nullptr, nic);
    ::close(fd);
}

TEST_P(SocketSetup, AnAddressThisHostDoesNotOwnIsInvalidAddress) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.wire = GetParam();
    c.address = "192.0.2.77";  // TEST-NET-1 (RFC 5737): never a local address
    ndksim_adapter* nic = nullptr;
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, ndksim_adapter_create(&c, &nic));
    EXPECT_EQ(nullptr, nic);
}

INSTANTIATE_TEST_SUITE_P(Wires, SocketSetup, ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);

TEST(SchedulerAdvanceTo, ThreadedClockJumpsForwardAndNeverBack) {
    timing::scheduler s({timing::run_mode::threaded, timing::poll_policy::block, "adv"});
    const timing::sim_time target = s.now() + timing::seconds(100);
    s.advance_to(target);
    EXPECT_GE(s.now(), target);
    const timing::sim_time after = s.now();
    s.advance_to(timing::seconds(1));
    EXPECT_GE(s.now(), after) << "advance_to moved the clock back";
    // Events posted after the jump run (the pump's wall-clock limit moved with the clock).
    std::atomic<bool> ran{false};
    s.post_after(timing::microseconds(1), [&] { ran.store(true); });
    EXPECT_TRUE(s.wait_until([&] { return ran.load(); }, std::chrono::seconds(30)));
}

TEST(SchedulerAdvanceTo, DeterministicClockIsLeftToItsDriver) {
    timing::scheduler s({timing::run_mode::deterministic, timing::poll_policy::block, "adv"});
    s.advance_to(timing::seconds(5));
    EXPECT_EQ(0U, s.now());
}

}  // namespace
}  // namespace ndksim::integration
