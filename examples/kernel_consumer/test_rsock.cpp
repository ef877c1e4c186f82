// SPDX-License-Identifier: MIT
// The test that loads the rsock driver the way Windows would (DriverEntry with a driver object
// and a registry path, DriverUnload at the end) and drives its transport from two threads, one
// per side of a connection, over two simulated adapters in threaded mode. It runs once per
// completion style, so that every NDK call the driver makes is seen both completing inline and
// pending, and it fails if the driver leaves anything behind: pool, work items, timers,
// threads, device objects or NDK objects.

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <ndksim/ndksim.h>
#include <ndksim/testkit/driver_host.hpp>
#include <ndksim/testkit/ndk_fixture.hpp>

#include "rsock.h"

extern "C" NTSTATUS DriverEntry(PDRIVER_OBJECT DriverObject, PUNICODE_STRING RegistryPath);

namespace {

constexpr const char* kClientIp = "10.61.0.1";
constexpr const char* kServerIp = "10.61.0.2";
constexpr USHORT kPort = 445;
constexpr ULONG kTimeoutMs = 30000;
constexpr int kMessages = 8;
constexpr ULONG kRegionSize = 3 * PAGE_SIZE;

ULONG ipv4(const char* text) {
    in_addr a{};
    EXPECT_EQ(1, inet_pton(AF_INET, text, &a));
    return a.s_addr;
}

// Sends a string and checks the send's status.
void send_text(PRSOCK_SOCKET s, const std::string& text) {
    EXPECT_NT_SUCCESS(RsockSend(s, text.data(), static_cast<ULONG>(text.size())));
}

// The next message as a string; empty (with a failure) if none came in time.
std::string receive_text(PRSOCK_SOCKET s) {
    std::array<char, RSOCK_MAX_MESSAGE> buffer{};
    ULONG received = 0;
    const NTSTATUS status = RsockReceive(s, buffer.data(), buffer.size(), &received, kTimeoutMs);
    EXPECT_NT_SUCCESS(status);
    return std::string(buffer.data(), received);
}

// The passive side: accept, answer each message, expose a region, check what the peer wrote,
// invalidate it and wait for the peer to go.
void serve(PRSOCK_LISTENER listener) {
    PRSOCK_SOCKET s = nullptr;
    ASSERT_NT_SUCCESS(RsockAccept(listener, kTimeoutMs, &s));
    for (int i = 0; i < kMessages; ++i) {
        EXPECT_EQ("request " + std::to_string(i), receive_text(s));
        send_text(s, "reply " + std::to_string(i));
    }

    PRSOCK_REGION region = nullptr;
    RSOCK_REGION_DESCRIPTOR descriptor{};
    ASSERT_NT_SUCCESS(RsockRegisterRegion(s, kRegionSize, &region, &descriptor));
    auto* bytes = static_cast<unsigned char*>(RsockRegionBuffer(region));
    for (ULONG i = 0; i < kRegionSize; ++i) {
        bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    }
    EXPECT_NT_SUCCESS(RsockSend(s, &descriptor, static_cast<ULONG>(sizeof(descriptor))));

    EXPECT_EQ("written", receive_text(s));
    for (ULONG i = 0; i < 2 * PAGE_SIZE; ++i) {
        ASSERT_EQ(static_cast<unsigned char>(i * 3 + 2), bytes[PAGE_SIZE / 2 + i]) << "byte " << i;
    }
    EXPECT_NT_SUCCESS(RsockInvalidateRegion(s, region));
    send_text(s, "invalidated");

    // The client's write after the invalidation fails, and then the client disconnects.
    std::array<char, RSOCK_MAX_MESSAGE> buffer{};
    ULONG received = 0;
    EXPECT_NT_STATUS(STATUS_CONNECTION_DISCONNECTED,
                     RsockReceive(s, buffer.data(), buffer.size(), &received, kTimeoutMs));
    RsockFreeRegion(s, region);
    RsockClose(s);
}

// The active side.
void use(PRSOCK_ADAPTER adapter) {
    PRSOCK_SOCKET s = nullptr;
    ASSERT_NT_SUCCESS(RsockConnect(adapter, ipv4(kServerIp), kPort, &s));
    for (int i = 0; i < kMessages; ++i) {
        send_text(s, "request " + std::to_string(i));
        EXPECT_EQ("reply " + std::to_string(i), receive_text(s));
    }

    RSOCK_REGION_DESCRIPTOR remote{};
    ULONG received = 0;
    ASSERT_NT_SUCCESS(RsockReceive(s, &remote, sizeof(remote), &received, kTimeoutMs));
    ASSERT_EQ(sizeof(remote), received);
    ASSERT_EQ(kRegionSize, remote.Length);

    // Read a page that straddles two of the peer's pages, then write two pages into the middle.
    std::array<unsigned char, PAGE_SIZE> page{};
    ASSERT_NT_SUCCESS(RsockRead(s, page.data(), PAGE_SIZE, &remote, 100));
    for (ULONG i = 0; i < PAGE_SIZE; ++i) {
        ASSERT_EQ(static_cast<unsigned char>((i + 100) * 7 + 1), page[i]) << "byte " << i;
    }
    std::array<unsigned char, 2 * PAGE_SIZE> pattern{};
    for (ULONG i = 0; i < pattern.size(); ++i) {
        pattern[i] = static_cast<unsigned char>(i * 3 + 2);
    }
    ASSERT_NT_SUCCESS(
        RsockWrite(s, pattern.data(), static_cast<ULONG>(pattern.size()), &remote, PAGE_SIZE / 2));
    send_text(s, "written");
    EXPECT_EQ("invalidated", receive_text(s));

    // The token is dead now: the responder refuses the write (a remote access error).
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, RsockWrite(s, pattern.data(), 64, &remote, 0));
    RsockClose(s);
}

class KernelConsumer : public testing::TestWithParam<ndksim_completion_style> {
  protected:
    void SetUp() override {
        for (int i = 0; i < 2; ++i) {
            ndksim_adapter_config config;
            ndksim_adapter_config_init(&config);
            config.name = i == 0 ? "client" : "server";
            config.address = i == 0 ? kClientIp : kServerIp;
            config.completion_style = GetParam();
            config.seed = 11 + static_cast<ULONG64>(i);
            config.cm_timeout_ms = 10000;
            ASSERT_NT_SUCCESS(ndksim_adapter_create(&config, &nics_[i]));
        }
    }
    void TearDown() override {
        for (ndksim_adapter* nic : nics_) {
            if (nic != nullptr) {
                ndksim_adapter_destroy(nic);
            }
        }
    }
    std::array<ndksim_adapter*, 2> nics_{};
};

TEST_P(KernelConsumer, RdmaSocketsRunToCompletionAndLeaveNothingBehind) {
    ndksim::testkit::driver_host driver(DriverEntry, "rsock");
    ASSERT_NT_SUCCESS(driver.load());

    PRSOCK_ADAPTER client = nullptr;
    PRSOCK_ADAPTER server = nullptr;
    ASSERT_NT_SUCCESS(RsockOpenAdapter(ipv4(kClientIp), &client));
    ASSERT_NT_SUCCESS(RsockOpenAdapter(ipv4(kServerIp), &server));
    PRSOCK_LISTENER listener = nullptr;
    ASSERT_NT_SUCCESS(RsockListen(server, kPort, &listener));

    std::thread passive([&] { serve(listener); });
    use(client);
    passive.join();

    RsockCloseListener(listener);
    RsockCloseAdapter(client);
    RsockCloseAdapter(server);
    const ndksim::testkit::leak_summary leaks = driver.unload();
    EXPECT_TRUE(leaks.clean()) << leaks;
}

INSTANTIATE_TEST_SUITE_P(Styles, KernelConsumer,
                         testing::Values(NDKSIM_COMPLETE_INLINE, NDKSIM_COMPLETE_PENDING,
                                         NDKSIM_COMPLETE_RANDOM),
                         [](const testing::TestParamInfo<ndksim_completion_style>& style) {
                             switch (style.param) {
                                 case NDKSIM_COMPLETE_INLINE:
                                     return std::string("Inline");
                                 case NDKSIM_COMPLETE_PENDING:
                                     return std::string("Pending");
                                 default:
                                     return std::string("Random");
                             }
                         });

}  // namespace
