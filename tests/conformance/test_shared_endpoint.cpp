// SPDX-License-Identifier: MIT
// NDK_SHARED_ENDPOINT conformance: NdkCreateSharedEndpoint in every completion style, its
// NdkGetLocalAddress (BUFFER_TOO_SMALL with 16 for IPv4 / 28 for IPv6), ephemeral ports for
// port 0, SHARING_VIOLATION for a second endpoint on a port, INVALID_ADDRESS for an address
// that is not the adapter's, IPv6 with family 23 and 10, NdkQueryExtension, and the port's
// release at close (REFERENCE.md 6, 8.3, rules 1, 4, 25).

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

constexpr USHORT k_endpoint_port = 6002;

class SharedEndpointCreate : public NdkStyleTest {};
class SharedEndpointClose : public NdkStyleTest {};

class SharedEndpointIpv6 : public NdkStyleTest {
  protected:
    env_options options() const override {
        env_options o = NdkStyleTest::options();
        o.address = "::1";
        return o;
    }
};

const SOCKADDR& as_sa(const SOCKADDR_INET& a) {
    return *reinterpret_cast<const SOCKADDR*>(&a);
}

TEST_P(SharedEndpointCreate, DeliversEndpointWithTypeVersionZeroedReservedAndDispatch) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_endpoint_port);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    EXPECT_EQ(sep.object->Header.ObjectType, NdkObjectTypeSharedEndpoint);
    EXPECT_EQ(sep.object->Header.Version.Major, 2);
    EXPECT_EQ(sep.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(sep.object->Header));
    EXPECT_NE(sep.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointCreate, GetterReturnsTheBoundAddressWithSize16) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_endpoint_port);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    const SOCKADDR_INET got = read_local_address(sep.object, sizeof(SOCKADDR_IN));
    EXPECT_EQ(got.si_family, WS_AF_INET);
    EXPECT_EQ(ip_of(as_sa(got)), "127.0.0.1");
    EXPECT_EQ(port_of(as_sa(got)), k_endpoint_port);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointCreate, WildcardAddressBindsTheAdaptersOwnAddress) {
    SOCKADDR_IN a = ipv4("0.0.0.0", k_endpoint_port);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    const SOCKADDR_INET got = read_local_address(sep.object, sizeof(SOCKADDR_IN));
    EXPECT_EQ(ip_of(as_sa(got)), "127.0.0.1");
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointCreate, PortZeroPicksDistinctEphemeralPorts) {
    SOCKADDR_IN any = ipv4("127.0.0.1", 0);
    auto a = create_shared_endpoint(as_sockaddr(any), sizeof any);
    auto b = create_shared_endpoint(as_sockaddr(any), sizeof any);
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    const USHORT pa = port_of(as_sa(read_local_address(a.object, sizeof(SOCKADDR_IN))));
    const USHORT pb = port_of(as_sa(read_local_address(b.object, sizeof(SOCKADDR_IN))));
    EXPECT_GE(pa, 49152);
    EXPECT_GE(pb, 49152);
    EXPECT_LE(pa, 65535);
    EXPECT_LE(pb, 65535);
    EXPECT_NE(pa, pb);
    EXPECT_NT_SUCCESS(close(a.object).status);
    EXPECT_NT_SUCCESS(close(b.object).status);
}

TEST_P(SharedEndpointCreate, SecondEndpointOnSamePortGetsSharingViolation) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_endpoint_port);
    auto first = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(first.status);
    auto second = create_shared_endpoint(as_sockaddr(a), sizeof a);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION, second.returned);
    EXPECT_EQ(second.object, nullptr);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 2u) << "the refused create made no object";
    EXPECT_NT_SUCCESS(close(first.object).status);
}

TEST_P(SharedEndpointCreate, ListenerOnTheEndpointsPortGetsSharingViolation) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_endpoint_port);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION, listen(l.object, as_sockaddr(a), sizeof a).returned);
    EXPECT_NT_SUCCESS(close(l.object).status);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointCreate, AddressOfAnotherHostGetsInvalidAddress) {
    SOCKADDR_IN other = ipv4("192.0.2.1", k_endpoint_port);
    auto sep = create_shared_endpoint(as_sockaddr(other), sizeof other);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, sep.returned);
    EXPECT_EQ(sep.object, nullptr);
    SOCKADDR_IN6 v6 = ipv6("::1", k_endpoint_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     create_shared_endpoint(as_sockaddr(v6), sizeof v6).returned)
        << "an IPv6 address on an IPv4 adapter";
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, create_shared_endpoint(nullptr, 0).returned)
        << "no address at all";
    // Nothing was reserved by the refusals.
    SOCKADDR_IN own = ipv4("127.0.0.1", k_endpoint_port);
    auto ok = create_shared_endpoint(as_sockaddr(own), sizeof own);
    ASSERT_NT_SUCCESS(ok.status);
    EXPECT_NT_SUCCESS(close(ok.object).status);
}

TEST_P(SharedEndpointCreate, QueryExtensionReturnsNotSupported) {
    SOCKADDR_IN a = ipv4("127.0.0.1", 0);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    GUID id{8, 8, 8, {8, 8, 8, 8, 8, 8, 8, 8}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, sep.object->Dispatch->NdkQueryExtension(
                                               &sep.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointClose, ReleasesThePortForTheNextEndpoint) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_endpoint_port);
    for (int round = 0; round < 3; ++round) {
        auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
        ASSERT_NT_SUCCESS(sep.status) << "round " << round;
        const call_result c = close(sep.object);
        EXPECT_NT_SUCCESS(c.status);
        drain();
    }
}

TEST_P(SharedEndpointClose, ReturnsSuccessOrPendingAndCompletesAtMostOnce) {
    SOCKADDR_IN a = ipv4("127.0.0.1", 0);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    const call_result c = close(sep.object);
    if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
        EXPECT_NT_SUCCESS(c.returned);
    }
    if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
        EXPECT_NT_STATUS(STATUS_PENDING, c.returned);
    }
    drain();
    EXPECT_EQ(c.rec->calls(), c.returned == STATUS_PENDING ? 1 : 0);
}

TEST_P(SharedEndpointIpv6, WindowsFamily23IsAcceptedAndReturnedWithSize28) {
    SOCKADDR_IN6 a = ipv6("::1", k_endpoint_port, WS_AF_INET6);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    const SOCKADDR_INET got = read_local_address(sep.object, sizeof(SOCKADDR_IN6));
    EXPECT_EQ(got.si_family, WS_AF_INET6);
    EXPECT_EQ(ip_of(as_sa(got)), "::1");
    EXPECT_EQ(port_of(as_sa(got)), k_endpoint_port);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointIpv6, LinuxFamily10IsAcceptedAndReturned) {
    SOCKADDR_IN6 a = ipv6("::1", k_endpoint_port, 10);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    const SOCKADDR_INET got = read_local_address(sep.object, sizeof(SOCKADDR_IN6));
    EXPECT_EQ(got.si_family, 10);
    EXPECT_EQ(ip_of(as_sa(got)), "::1");
    EXPECT_EQ(port_of(as_sa(got)), k_endpoint_port);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

TEST_P(SharedEndpointIpv6, Ipv4AddressGetsInvalidAddressAndSamePortGetsSharingViolation) {
    SOCKADDR_IN v4 = ipv4("127.0.0.1", k_endpoint_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     create_shared_endpoint(as_sockaddr(v4), sizeof v4).returned);
    SOCKADDR_IN6 a = ipv6("::1", k_endpoint_port, 10);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    ASSERT_NT_SUCCESS(sep.status);
    SOCKADDR_IN6 b = ipv6("::", k_endpoint_port, WS_AF_INET6);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     create_shared_endpoint(as_sockaddr(b), sizeof b).returned);
    EXPECT_NT_SUCCESS(close(sep.object).status);
}

NDKSIM_TEST_INSTANTIATE_STYLES(SharedEndpointCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(SharedEndpointClose);
NDKSIM_TEST_INSTANTIATE_THREADED_STYLES(SharedEndpointClose);
NDKSIM_TEST_INSTANTIATE_STYLES(SharedEndpointIpv6);

}  // namespace
