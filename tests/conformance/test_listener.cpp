// SPDX-License-Identifier: MIT
// NDK_LISTENER conformance: NdkCreateListener in every completion style, NdkListen and the
// listener's NdkGetLocalAddress (BUFFER_TOO_SMALL with the required size: 16 for IPv4, 28 for
// IPv6), ephemeral ports for port 0, SHARING_VIOLATION for a second endpoint on a port,
// INVALID_ADDRESS for an address that is not the adapter's, IPv6 with the Windows (23) and the
// Linux (10) family value, and the close rules (REFERENCE.md 6, 8.3, rules 1, 4, 25).

#include <string>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

constexpr USHORT k_listen_port = 5001;

class ListenerCreate : public NdkStyleTest {};
class ListenerListen : public NdkStyleTest {};
class ListenerClose : public NdkStyleTest {};
class ListenerCloseWithPendingListen : public NdkStyleTest {};

class ListenerIpv6 : public NdkStyleTest {
  protected:
    env_options options() const override {
        env_options o = NdkStyleTest::options();
        o.address = "::1";
        return o;
    }
};

TEST_P(ListenerCreate, DeliversListenerWithTypeVersionZeroedReservedAndDispatch) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    EXPECT_EQ(l.object->Header.ObjectType, NdkObjectTypeListener);
    EXPECT_EQ(l.object->Header.Version.Major, 2);
    EXPECT_EQ(l.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(l.object->Header));
    EXPECT_NE(l.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerCreate, RejectsMissingConnectEventCallbackWithInvalidParameter) {
    NDK_ADAPTER* h = adapter();
    auto l = create<NDK_LISTENER>("NdkCreateListener(ConnectEvent NULL)",
                                  [&](NDK_FN_CREATE_COMPLETION cb, PVOID ctx, NDK_LISTENER** out) {
                                      return h->Dispatch->NdkCreateListener(h, nullptr, nullptr, cb,
                                                                            ctx, out);
                                  });
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, l.returned);
}

TEST_P(ListenerCreate, QueryExtensionReturnsNotSupported) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    GUID id{6, 6, 6, {6, 6, 6, 6, 6, 6, 6, 6}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, l.object->Dispatch->NdkQueryExtension(
                                               &l.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerListen, OnOwnAddressSucceedsAndGetterReturnsItWithSize16) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    const SOCKADDR_INET got = read_local_address(l.object, sizeof(SOCKADDR_IN));
    EXPECT_EQ(got.si_family, WS_AF_INET);
    EXPECT_EQ(port_of(*reinterpret_cast<const SOCKADDR*>(&got)), k_listen_port);
    EXPECT_EQ(ip_of(*reinterpret_cast<const SOCKADDR*>(&got)), "127.0.0.1");
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerListen, WildcardAddressBindsTheAdaptersOwnAddress) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("0.0.0.0", k_listen_port);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    const SOCKADDR_INET got = read_local_address(l.object, sizeof(SOCKADDR_IN));
    EXPECT_EQ(ip_of(*reinterpret_cast<const SOCKADDR*>(&got)), "127.0.0.1");
    EXPECT_EQ(port_of(*reinterpret_cast<const SOCKADDR*>(&got)), k_listen_port);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerListen, PortZeroPicksDistinctEphemeralPorts) {
    auto a = create_listener();
    auto b = create_listener();
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    SOCKADDR_IN any = ipv4("127.0.0.1", 0);
    EXPECT_NT_SUCCESS(listen(a.object, as_sockaddr(any), sizeof any).status);
    EXPECT_NT_SUCCESS(listen(b.object, as_sockaddr(any), sizeof any).status);
    const SOCKADDR_INET ga = read_local_address(a.object, sizeof(SOCKADDR_IN));
    const SOCKADDR_INET gb = read_local_address(b.object, sizeof(SOCKADDR_IN));
    const USHORT pa = port_of(*reinterpret_cast<const SOCKADDR*>(&ga));
    const USHORT pb = port_of(*reinterpret_cast<const SOCKADDR*>(&gb));
    EXPECT_GE(pa, 49152);
    EXPECT_GE(pb, 49152);
    EXPECT_LE(pa, 65535);
    EXPECT_LE(pb, 65535);
    EXPECT_NE(pa, pb);
    EXPECT_NT_SUCCESS(close(a.object).status);
    EXPECT_NT_SUCCESS(close(b.object).status);
}

TEST_P(ListenerListen, SecondListenerOnSamePortGetsSharingViolation) {
    auto first = create_listener();
    auto second = create_listener();
    ASSERT_NT_SUCCESS(first.status);
    ASSERT_NT_SUCCESS(second.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    ASSERT_NT_SUCCESS(listen(first.object, as_sockaddr(a), sizeof a).status);
    const call_result r = listen(second.object, as_sockaddr(a), sizeof a);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION, r.returned);
    SOCKADDR_IN wildcard = ipv4("0.0.0.0", k_listen_port);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     listen(second.object, as_sockaddr(wildcard), sizeof wildcard).returned)
        << "the wildcard binds the same address and port";
    EXPECT_NT_SUCCESS(close(first.object).status);
    EXPECT_NT_SUCCESS(close(second.object).status);
}

TEST_P(ListenerListen, SharedEndpointOnTheListenersPortGetsSharingViolation) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    ASSERT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    auto sep = create_shared_endpoint(as_sockaddr(a), sizeof a);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION, sep.returned);
    EXPECT_EQ(sep.object, nullptr);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerListen, AddressOfAnotherHostGetsInvalidAddress) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN other = ipv4("10.9.8.7", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     listen(l.object, as_sockaddr(other), sizeof other).returned);
    SOCKADDR_IN6 v6 = ipv6("::1", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, listen(l.object, as_sockaddr(v6), sizeof v6).returned)
        << "an IPv6 address on an IPv4 adapter";
    // The refused listens reserved nothing: the port is still free.
    SOCKADDR_IN own = ipv4("127.0.0.1", k_listen_port);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(own), sizeof own).status);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerListen, UnknownFamilyOrShortLengthGetsInvalidAddress) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    a.sin_family = 99;
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, listen(l.object, as_sockaddr(a), sizeof a).returned);
    SOCKADDR_IN b = ipv4("127.0.0.1", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     listen(l.object, as_sockaddr(b), sizeof b - 1).returned);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerClose, ReleasesThePortForTheNextListener) {
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    for (int round = 0; round < 3; ++round) {
        auto l = create_listener();
        ASSERT_NT_SUCCESS(l.status);
        EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status) << "round " << round;
        EXPECT_NT_SUCCESS(close(l.object).status);
        drain();
    }
}

TEST_P(ListenerClose, PortIsFreeOnceTheCloseCompletionRuns) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    ASSERT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    // From inside the close completion the listener is closed (rule 4: it is the last callback),
    // so its port must be free to reuse - with no further event needed.
    NDK_ADAPTER* h = adapter();
    NTSTATUS inside = STATUS_PENDING;
    NDK_SHARED_ENDPOINT* sep = nullptr;
    recorder& sep_create = make_recorder("sep.create(in close completion)");
    recorder& closing = make_recorder("listener.close");
    closing.set_hook([&](recorder&) {
        inside = h->Dispatch->NdkCreateSharedEndpoint(h, as_sockaddr(a), sizeof a,
                                                      &recorder::on_create, &sep_create, &sep);
        sep_create.expect_calls(inside == STATUS_PENDING ? 1 : 0);
    });
    const call_result c = close(l.object, &closing);
    if (c.returned != STATUS_PENDING) {
        // Inline close: the port is free as soon as the close returns.
        auto again = create_shared_endpoint(as_sockaddr(a), sizeof a);
        EXPECT_NT_SUCCESS(again.status);
        if (again.object != nullptr) {
            EXPECT_NT_SUCCESS(close(again.object).status);
        }
        return;
    }
    ASSERT_EQ(closing.calls(), 1);
    if (inside == STATUS_PENDING) {
        ASSERT_TRUE(await(sep_create, 1, "NdkCreateSharedEndpoint (from a close completion)"));
        EXPECT_NT_SUCCESS(sep_create.status());
        sep = reinterpret_cast<NDK_SHARED_ENDPOINT*>(sep_create.object());
    } else {
        EXPECT_NT_SUCCESS(inside)
            << "NdkCreateSharedEndpoint on the closed listener's port from inside its close "
               "completion";
    }
    if (sep != nullptr) {
        EXPECT_NT_SUCCESS(close(sep).status);
    }
}

TEST_P(ListenerCloseWithPendingListen, CloseCompletionComesAfterListenCompletion) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN a = ipv4("127.0.0.1", k_listen_port);
    log().clear();
    recorder& listening = make_recorder("listener.listen");
    const NTSTATUS r = l.object->Dispatch->NdkListen(l.object, as_sockaddr(a), sizeof a,
                                                     &recorder::on_request, &listening);
    ASSERT_NT_STATUS(STATUS_PENDING, r);
    listening.expect_calls(1);
    recorder& closing = make_recorder("listener.close");
    const call_result c = start_close(&l.object->Header, closing);
    EXPECT_NT_STATUS(STATUS_PENDING, c.returned);
    ASSERT_TRUE(finish(c, "NdkCloseListener"));
    drain();
    EXPECT_NT_SUCCESS(listening.status());
    const std::vector<std::string> expected{"listener.listen", "~listener.listen", "listener.close",
                                            "~listener.close"};
    EXPECT_EQ(log().entries(), expected) << "the close completion is the last callback";
}

TEST_P(ListenerIpv6, WindowsFamily23IsAcceptedAndReturned) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN6 a = ipv6("::1", k_listen_port, WS_AF_INET6);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    const SOCKADDR_INET got = read_local_address(l.object, sizeof(SOCKADDR_IN6));
    EXPECT_EQ(got.si_family, WS_AF_INET6);
    EXPECT_EQ(port_of(*reinterpret_cast<const SOCKADDR*>(&got)), k_listen_port);
    EXPECT_EQ(ip_of(*reinterpret_cast<const SOCKADDR*>(&got)), "::1");
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerIpv6, LinuxFamily10IsAcceptedAndReturned) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN6 a = ipv6("::1", k_listen_port, 10);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    const SOCKADDR_INET got = read_local_address(l.object, sizeof(SOCKADDR_IN6));
    EXPECT_EQ(got.si_family, 10);
    EXPECT_EQ(port_of(*reinterpret_cast<const SOCKADDR*>(&got)), k_listen_port);
    EXPECT_EQ(ip_of(*reinterpret_cast<const SOCKADDR*>(&got)), "::1");
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerIpv6, WildcardBindsTheAdaptersOwnIpv6Address) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN6 a = ipv6("::", 0);
    EXPECT_NT_SUCCESS(listen(l.object, as_sockaddr(a), sizeof a).status);
    const SOCKADDR_INET got = read_local_address(l.object, sizeof(SOCKADDR_IN6));
    EXPECT_EQ(ip_of(*reinterpret_cast<const SOCKADDR*>(&got)), "::1");
    EXPECT_GE(port_of(*reinterpret_cast<const SOCKADDR*>(&got)), 49152);
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerIpv6, Ipv4AddressOrForeignIpv6AddressGetsInvalidAddress) {
    auto l = create_listener();
    ASSERT_NT_SUCCESS(l.status);
    SOCKADDR_IN v4 = ipv4("127.0.0.1", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS, listen(l.object, as_sockaddr(v4), sizeof v4).returned);
    SOCKADDR_IN6 other = ipv6("2001:db8::7", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     listen(l.object, as_sockaddr(other), sizeof other).returned);
    SOCKADDR_IN6 own = ipv6("::1", k_listen_port);
    EXPECT_NT_STATUS(STATUS_INVALID_ADDRESS,
                     listen(l.object, as_sockaddr(own), sizeof(SOCKADDR_IN)).returned)
        << "an IPv6 address needs a SOCKADDR_IN6-sized length";
    EXPECT_NT_SUCCESS(close(l.object).status);
}

TEST_P(ListenerIpv6, SecondListenerOnSamePortGetsSharingViolationWhateverTheFamilyValue) {
    auto first = create_listener();
    auto second = create_listener();
    ASSERT_NT_SUCCESS(first.status);
    ASSERT_NT_SUCCESS(second.status);
    SOCKADDR_IN6 a = ipv6("::1", k_listen_port, WS_AF_INET6);
    SOCKADDR_IN6 b = ipv6("::1", k_listen_port, 10);
    ASSERT_NT_SUCCESS(listen(first.object, as_sockaddr(a), sizeof a).status);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     listen(second.object, as_sockaddr(b), sizeof b).returned);
    EXPECT_NT_SUCCESS(close(first.object).status);
    EXPECT_NT_SUCCESS(close(second.object).status);
}

NDKSIM_TEST_INSTANTIATE_STYLES(ListenerCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(ListenerListen);
NDKSIM_TEST_INSTANTIATE_STYLES(ListenerClose);
NDKSIM_TEST_INSTANTIATE_THREADED_STYLES(ListenerClose);
NDKSIM_TEST_INSTANTIATE_PENDING_STYLES(ListenerCloseWithPendingListen);
NDKSIM_TEST_INSTANTIATE_STYLES(ListenerIpv6);

}  // namespace
