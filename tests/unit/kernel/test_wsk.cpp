// SPDX-License-Identifier: MIT
// WSK registration, the provider NPI and its NDK extension (wsk.h, wskndk.h).

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include <ndksim/testkit/driver_host.hpp>

#include "kernel/wsk.hpp"
#include "kernel_test.hpp"
#include "wsk_test.hpp"

namespace ndksim::kernel::test {
namespace {

using Wsk = KernelTest;

// A pointer that must never be dereferenced: the entries that are not simulated leave the IRP
// alone, which this proves by handing them one that would crash.
PIRP poisoned_irp() {
    return reinterpret_cast<PIRP>(std::uintptr_t{0x10});
}

TEST_F(Wsk, CaptureReleaseAndDeregisterWithAnAdapter) {
    const sim_adapter nic("127.0.0.1");
    ASSERT_EQ(nic.status(), STATUS_SUCCESS);
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider), STATUS_SUCCESS);
    EXPECT_NE(provider.Client, nullptr);
    ASSERT_NE(provider.Dispatch, nullptr);
    EXPECT_EQ(provider.Dispatch->Version, MAKE_WSK_VERSION(1, 0));
    EXPECT_NE(provider.Dispatch->WskSocket, nullptr);
    EXPECT_NE(provider.Dispatch->WskGetNameInfo, nullptr);
    WSK_PROVIDER_CHARACTERISTICS versions{};
    EXPECT_EQ(WskQueryProviderCharacteristics(&client.registration, &versions), STATUS_SUCCESS);
    EXPECT_EQ(versions.HighestVersion, MAKE_WSK_VERSION(1, 0));
    EXPECT_EQ(versions.LowestVersion, MAKE_WSK_VERSION(1, 0));
    WskReleaseProviderNPI(&client.registration);
    WskDeregister(&client.registration);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 0U);
}

// A driver that registers with WSK in DriverEntry and forgets to deregister at unload.
WSK_REGISTRATION forgotten_registration;
const WSK_CLIENT_DISPATCH forgetful_dispatch = {MAKE_WSK_VERSION(1, 0), 0, nullptr};

NTSTATUS forgetful_entry(PDRIVER_OBJECT driver, PUNICODE_STRING) {
    driver->DriverUnload = [](PDRIVER_OBJECT) {};
    WSK_CLIENT_NPI npi{nullptr, &forgetful_dispatch};
    return WskRegister(&npi, &forgotten_registration);
}

TEST_F(Wsk, TheDriverUnloadReportCountsARegistrationLeftBehind) {
    ndksim::testkit::driver_host host(&forgetful_entry, "forgetful");
    ASSERT_EQ(host.load(), STATUS_SUCCESS);
    const ndksim::testkit::leak_summary leaks = host.unload();
    EXPECT_EQ(leaks.reporter_leaks, 1U) << leaks;
    WskDeregister(&forgotten_registration);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 0U);
}

TEST_F(Wsk, CaptureWithoutAnyAdapterTimesOutWithDeviceNotReady) {
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    EXPECT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider),
              STATUS_DEVICE_NOT_READY);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(WskCaptureProviderNPI(&client.registration, 50, &provider), STATUS_DEVICE_NOT_READY);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
    WSK_PROVIDER_CHARACTERISTICS versions{};
    EXPECT_EQ(WskQueryProviderCharacteristics(&client.registration, &versions),
              STATUS_DEVICE_NOT_READY);
    WskDeregister(&client.registration);
}

// Captures blocked in another thread, released by an adapter created later (infinite and
// finite waits).
void capture_released_by_a_later_adapter(ULONG timeout) {
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    NTSTATUS captured = STATUS_PENDING;
    WSK_PROVIDER_NPI provider{};
    std::thread waiter(
        [&] { captured = WskCaptureProviderNPI(&client.registration, timeout, &provider); });
    ASSERT_TRUE(eventually([] { return wsk::waiting_captures() == 1; }));
    {
        const sim_adapter nic("127.0.0.1");
        ASSERT_EQ(nic.status(), STATUS_SUCCESS);
        waiter.join();
        EXPECT_EQ(captured, STATUS_SUCCESS);
        EXPECT_EQ(provider.Dispatch, &wsk::k_provider_dispatch);
        WskReleaseProviderNPI(&client.registration);
    }
    WskDeregister(&client.registration);
}

TEST_F(Wsk, AnInfiniteCaptureReturnsOnceAnAdapterIsCreated) {
    capture_released_by_a_later_adapter(WSK_INFINITE_WAIT);
}

TEST_F(Wsk, ATimedCaptureReturnsOnceAnAdapterIsCreatedWithinTheWait) {
    capture_released_by_a_later_adapter(static_cast<ULONG>(
        std::chrono::duration_cast<std::chrono::milliseconds>(k_patience).count()));
}

TEST_F(Wsk, DeregisterWakesABlockedCaptureWithDeviceNotReady) {
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    NTSTATUS captured = STATUS_PENDING;
    WSK_PROVIDER_NPI provider{};
    std::thread waiter([&] {
        captured = WskCaptureProviderNPI(&client.registration, WSK_INFINITE_WAIT, &provider);
    });
    ASSERT_TRUE(eventually([] { return wsk::waiting_captures() == 1; }));
    WskDeregister(&client.registration);
    waiter.join();
    EXPECT_EQ(captured, STATUS_DEVICE_NOT_READY);
    // "After WskDeregister is called, any further calls to WskCaptureProviderNPI will fail with
    // STATUS_DEVICE_NOT_READY", as long as the block is intact.
    const sim_adapter nic("127.0.0.1");
    EXPECT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider),
              STATUS_DEVICE_NOT_READY);
}

TEST_F(Wsk, DeregisterWaitsUntilEveryCaptureIsReleased) {
    const sim_adapter nic("127.0.0.1");
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider), STATUS_SUCCESS);
    ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider), STATUS_SUCCESS);
    std::atomic<bool> returned{false};
    Tally done;
    std::thread deregister([&] {
        WskDeregister(&client.registration);
        returned = true;
        done.bump();
    });
    // Once deregistration has begun, new captures fail; it cannot have returned while two
    // captures are outstanding.
    ASSERT_TRUE(eventually([&] {
        WSK_PROVIDER_NPI again{};
        const NTSTATUS s = WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &again);
        if (s == STATUS_SUCCESS) {
            WskReleaseProviderNPI(&client.registration);  // not yet deregistering
        }
        return s == STATUS_DEVICE_NOT_READY;
    }));
    // The provider NPI stays usable until released.
    EXPECT_NE(ndk_dispatch(provider).WskOpenNdkAdapter, nullptr);
    WskReleaseProviderNPI(&client.registration);
    EXPECT_FALSE(returned.load());
    WskReleaseProviderNPI(&client.registration);
    EXPECT_TRUE(done.reaches(1));
    deregister.join();
    EXPECT_EQ(client.registration.ReservedRegistrationContext, nullptr);
}

TEST_F(Wsk, AClientAskingForAnotherWskVersionGetsNoInterface) {
    const sim_adapter nic("127.0.0.1");
    for (const USHORT version :
         {MAKE_WSK_VERSION(2, 0), MAKE_WSK_VERSION(1, 1), MAKE_WSK_VERSION(0, 9)}) {
        wsk_client client(version);
        ASSERT_EQ(client.register_(), STATUS_SUCCESS);
        WSK_PROVIDER_NPI provider{};
        EXPECT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider),
                  STATUS_NOINTERFACE)
            << "version 0x" << std::hex << version;
        WSK_PROVIDER_CHARACTERISTICS versions{};
        EXPECT_EQ(WskQueryProviderCharacteristics(&client.registration, &versions), STATUS_SUCCESS);
        WskDeregister(&client.registration);
    }
}

TEST_F(Wsk, RegistrationRefusesNullsAndASecondRegisterOfTheSameBlock) {
    wsk_client client;
    EXPECT_EQ(WskRegister(nullptr, &client.registration), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(WskRegister(&client.npi, nullptr), STATUS_INVALID_PARAMETER);
    WSK_CLIENT_NPI no_dispatch{nullptr, nullptr};
    EXPECT_EQ(WskRegister(&no_dispatch, &client.registration), STATUS_INVALID_PARAMETER);
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    EXPECT_EQ(client.register_(), STATUS_INVALID_PARAMETER);
    WSK_PROVIDER_NPI provider{};
    EXPECT_EQ(WskCaptureProviderNPI(nullptr, WSK_NO_WAIT, &provider), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, nullptr),
              STATUS_INVALID_PARAMETER);
    WSK_REGISTRATION never_registered{};
    EXPECT_EQ(WskCaptureProviderNPI(&never_registered, WSK_NO_WAIT, &provider),
              STATUS_INVALID_PARAMETER);
    WskDeregister(&client.registration);
}

class WskCaptured : public KernelTest {
  protected:
    void SetUp() override {
        KernelTest::SetUp();
        ASSERT_EQ(nic_.status(), STATUS_SUCCESS);
        ASSERT_EQ(client_.register_(), STATUS_SUCCESS);
        ASSERT_EQ(WskCaptureProviderNPI(&client_.registration, WSK_NO_WAIT, &provider_),
                  STATUS_SUCCESS);
    }
    void TearDown() override {
        WskReleaseProviderNPI(&client_.registration);
        WskDeregister(&client_.registration);
        KernelTest::TearDown();
    }

    NTSTATUS control(ULONG code, SIZE_T input_size, SIZE_T output_size, PVOID output,
                     SIZE_T* returned, PIRP irp = nullptr) {
        return provider_.Dispatch->WskControlClient(provider_.Client, code, input_size, nullptr,
                                                    output_size, output, returned, irp);
    }

    // Opens nic_ through the NDK extension; NULL (after a failure) when it cannot.
    NDK_ADAPTER* open_nic(const WSK_PROVIDER_NDK_DISPATCH& ndk) {
        NDK_ADAPTER* handle = nullptr;
        EXPECT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, nic_.index(), &handle),
                  STATUS_SUCCESS);
        return handle;
    }

    sim_adapter nic_{"127.0.0.1"};
    wsk_client client_;
    WSK_PROVIDER_NPI provider_{};
};

TEST_F(WskCaptured, ControlClientHandsOutTheNdkExtension) {
    WSK_PROVIDER_NDK_DISPATCH table{};
    SIZE_T returned = 0;
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, sizeof table, &table, &returned),
              STATUS_SUCCESS);
    EXPECT_EQ(returned, sizeof(WSK_PROVIDER_NDK_DISPATCH));
    EXPECT_NE(table.WskOpenNdkAdapter, nullptr);
    EXPECT_NE(table.WskCloseNdkAdapter, nullptr);
    WSK_PROVIDER_NDK_DISPATCH again{};
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, sizeof again, &again, nullptr),
              STATUS_SUCCESS);
    EXPECT_EQ(again.WskOpenNdkAdapter, table.WskOpenNdkAdapter);
}

TEST_F(WskCaptured, ControlClientChecksTheNdkExtensionsBuffers) {
    WSK_PROVIDER_NDK_DISPATCH table{};
    SIZE_T returned = 0;
    // A pointer-sized buffer is the classic mistake: the table is two pointers.
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, sizeof(PVOID), &table, &returned),
              STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(returned, sizeof(WSK_PROVIDER_NDK_DISPATCH));
    EXPECT_EQ(table.WskOpenNdkAdapter, nullptr) << "a short buffer was written";
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, sizeof table, nullptr, nullptr),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 4, sizeof table, &table, nullptr),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(control(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, sizeof table, &table, nullptr,
                      poisoned_irp()),
              STATUS_NOT_SUPPORTED);
    EXPECT_EQ(control(0x12345678, 0, 0, nullptr, nullptr), STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(ndksim_thread_last_refusal()).find("0x12345678"), std::string::npos);
    int not_a_client = 0;
    EXPECT_EQ(
        provider_.Dispatch->WskControlClient(&not_a_client, WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0,
                                             nullptr, sizeof table, &table, nullptr, nullptr),
        STATUS_INVALID_PARAMETER);
}

TEST_F(WskCaptured, SocketAndNameEntriesRefuseWithNotSupportedAndLeaveTheIrpAlone) {
    const WSK_PROVIDER_DISPATCH& d = *provider_.Dispatch;
    SOCKADDR_IN address{};
    address.sin_family = AF_INET;
    const auto refused_by = [](const char* name) {
        return std::string(ndksim_thread_last_refusal()).find(name) != std::string::npos;
    };
    EXPECT_EQ(d.WskSocket(provider_.Client, AF_INET, 1, 6, 0, nullptr, nullptr, nullptr, nullptr,
                          nullptr, poisoned_irp()),
              STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(refused_by("WskSocket"));
    EXPECT_EQ(d.WskSocketConnect(provider_.Client, 1, 6, reinterpret_cast<PSOCKADDR>(&address),
                                 reinterpret_cast<PSOCKADDR>(&address), 0, nullptr, nullptr,
                                 nullptr, nullptr, nullptr, poisoned_irp()),
              STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(refused_by("WskSocketConnect"));
    PADDRINFOEXW result = nullptr;
    EXPECT_EQ(d.WskGetAddressInfo(provider_.Client, nullptr, nullptr, 0, nullptr, nullptr, &result,
                                  nullptr, nullptr, poisoned_irp()),
              STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(refused_by("WskGetAddressInfo"));
    EXPECT_EQ(result, nullptr);
    d.WskFreeAddressInfo(provider_.Client, nullptr);
    EXPECT_TRUE(refused_by("WskFreeAddressInfo"));
    EXPECT_EQ(
        d.WskGetNameInfo(provider_.Client, reinterpret_cast<PSOCKADDR>(&address), sizeof address,
                         nullptr, nullptr, 0, nullptr, nullptr, poisoned_irp()),
        STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(refused_by("WskGetNameInfo"));
}

TEST_F(WskCaptured, OpenNdkAdapterByIndexOnTwoAdapters) {
    const sim_adapter other("127.0.0.2", 42, "second");
    ASSERT_EQ(other.status(), STATUS_SUCCESS);
    ASSERT_EQ(other.index(), 42U);
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    NDK_ADAPTER* first = nullptr;
    NDK_ADAPTER* second = nullptr;
    ASSERT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, nic_.index(), &first),
              STATUS_SUCCESS);
    ASSERT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{1, 0}, 42, &second),
              STATUS_SUCCESS);
    ASSERT_NE(first, second);
    // Each handle lives on the adapter its index names, at the highest minor of its major.
    EXPECT_EQ(ndksim_adapter_live_objects(nic_.get()), 1U);
    EXPECT_EQ(ndksim_adapter_live_objects(other.get()), 1U);
    NDK_ADAPTER_INFO info{};
    ULONG size = sizeof info;
    ASSERT_EQ(first->Dispatch->NdkQueryAdapterInfo(first, &info, &size), STATUS_SUCCESS);
    EXPECT_EQ(info.Version.Major, 2);
    EXPECT_EQ(info.Version.Minor, 1);
    size = sizeof info;
    ASSERT_EQ(second->Dispatch->NdkQueryAdapterInfo(second, &info, &size), STATUS_SUCCESS);
    EXPECT_EQ(info.Version.Major, 1);
    EXPECT_EQ(info.Version.Minor, 2);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 3U) << "the live registration and two open adapters";
    ndk.WskCloseNdkAdapter(provider_.Client, first);
    ndk.WskCloseNdkAdapter(provider_.Client, second);
    EXPECT_EQ(ndksim_adapter_live_objects(nic_.get()), 0U);
    EXPECT_EQ(ndksim_adapter_live_objects(other.get()), 0U);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 1U) << "the live registration";
}

TEST_F(WskCaptured, AnUnknownInterfaceIndexIsAnInvalidParameter) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    NDK_ADAPTER* handle = nullptr;
    EXPECT_EQ(
        ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, nic_.index() + 1000, &handle),
        STATUS_INVALID_PARAMETER);
    EXPECT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, NET_IFINDEX_UNSPECIFIED,
                                    &handle),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(handle, nullptr);
    EXPECT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, nic_.index(), nullptr),
              STATUS_INVALID_PARAMETER);
}

TEST_F(WskCaptured, AVersionTheAdapterDoesNotImplementIsNotSupported) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    for (const NDK_VERSION v :
         {NDK_VERSION{2, 2}, NDK_VERSION{3, 0}, NDK_VERSION{1, 3}, NDK_VERSION{0, 1}}) {
        NDK_ADAPTER* handle = nullptr;
        EXPECT_EQ(ndk.WskOpenNdkAdapter(provider_.Client, v, nic_.index(), &handle),
                  STATUS_NOT_SUPPORTED)
            << v.Major << "." << v.Minor;
        EXPECT_EQ(handle, nullptr);
    }
    EXPECT_EQ(ndksim_adapter_live_objects(nic_.get()), 0U);
}

TEST_F(WskCaptured, ClosingAnAdapterTheClientDidNotOpenIsLoggedAndIgnored) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    NDK_ADAPTER* handle = open_nic(ndk);
    ASSERT_NE(handle, nullptr);
    wsk_client other;
    ASSERT_EQ(other.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI other_provider{};
    ASSERT_EQ(WskCaptureProviderNPI(&other.registration, WSK_NO_WAIT, &other_provider),
              STATUS_SUCCESS);
    ndk.WskCloseNdkAdapter(other_provider.Client, handle);
    EXPECT_EQ(ndksim_adapter_live_objects(nic_.get()), 1U) << "closed through another client";
    ndk.WskCloseNdkAdapter(provider_.Client, handle);
    EXPECT_EQ(ndksim_adapter_live_objects(nic_.get()), 0U);
    ndk.WskCloseNdkAdapter(provider_.Client, handle);  // twice: logged
    WskReleaseProviderNPI(&other.registration);
    WskDeregister(&other.registration);
}

TEST_F(WskCaptured, TheLeakReportCountsOpenAdaptersAndLiveRegistrations) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    NDK_ADAPTER* handle = open_nic(ndk);
    ASSERT_NE(handle, nullptr);
    wsk_client forgotten;
    ASSERT_EQ(forgotten.register_(), STATUS_SUCCESS);
    // This fixture's registration, the forgotten one and the open adapter.
    EXPECT_EQ(ndksim_kernel_wsk_report(), 3U);
    WskDeregister(&forgotten.registration);
    ndk.WskCloseNdkAdapter(provider_.Client, handle);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 1U);
}

TEST_F(WskCaptured, ObjectsLeftOpenAtWskCloseNdkAdapterAreReportedOnce) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    NDK_ADAPTER* handle = open_nic(ndk);
    ASSERT_NE(handle, nullptr);
    // A PD the consumer never closes (the deterministic adapter completes its creation inline).
    NDK_PD* pd = nullptr;
    ASSERT_EQ(handle->Dispatch->NdkCreatePd(
                  handle, [](PVOID, NTSTATUS, NDK_OBJECT_HEADER*) {}, nullptr, &pd),
              STATUS_SUCCESS);
    ASSERT_NE(pd, nullptr);
    // Leaked on purpose; kept reachable so that LeakSanitizer does not report it as well.
    [[maybe_unused]] static NDK_PD* leaked_on_purpose = nullptr;
    leaked_on_purpose = pd;
    ndk.WskCloseNdkAdapter(provider_.Client, handle);
    // This fixture's registration and the PD; the next report has only the registration.
    EXPECT_EQ(ndksim_kernel_wsk_report(), 2U);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 1U);
}

TEST_F(WskCaptured, RoutinesCalledAboveTheirIrqlAreViolations) {
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider_);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    NDK_ADAPTER* handle = nullptr;
    WSK_PROVIDER_NPI again{};
    wsk_client late;
    EXPECT_EQ(violations_of([&] { (void)late.register_(); }), 1U);
    EXPECT_EQ(
        violations_of([&] { (void)WskCaptureProviderNPI(&client_.registration, 10, &again); }), 1U);
    EXPECT_EQ(violations_of([&] {
                  EXPECT_EQ(WskCaptureProviderNPI(&client_.registration, WSK_NO_WAIT, &again),
                            STATUS_SUCCESS);
              }),
              0U)
        << "WSK_NO_WAIT is allowed up to DISPATCH_LEVEL";
    EXPECT_EQ(violations_of([&] { WskReleaseProviderNPI(&client_.registration); }), 0U);
    EXPECT_EQ(
        violations_of([&] {
            (void)ndk.WskOpenNdkAdapter(provider_.Client, NDK_VERSION{2, 0}, nic_.index(), &handle);
        }),
        2U)
        << "WskOpenNdkAdapter and the OPEN_NDK_ADAPTER_HANDLER it calls";
    KeLowerIrql(old);
    WskReleaseProviderNPI(&client_.registration);
    if (handle != nullptr) {
        ndk.WskCloseNdkAdapter(provider_.Client, handle);
    }
    WskDeregister(&late.registration);
}

TEST_F(Wsk, AnAdapterDestroyedWhileOpenThroughWskIsClosedAndStillReported) {
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    WSK_PROVIDER_NDK_DISPATCH ndk{};
    NDK_ADAPTER* handle = nullptr;
    {
        const sim_adapter nic("127.0.0.1");
        ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider),
                  STATUS_SUCCESS);
        ndk = ndk_dispatch(provider);
        ASSERT_EQ(ndk.WskOpenNdkAdapter(provider.Client, NDK_VERSION{2, 0}, nic.index(), &handle),
                  STATUS_SUCCESS);
    }
    EXPECT_EQ(ndksim_kernel_wsk_report(), 2U);
    ndk.WskCloseNdkAdapter(provider.Client, handle);  // its adapter is gone: logged
    EXPECT_EQ(ndksim_kernel_wsk_report(), 1U);
    WskReleaseProviderNPI(&client.registration);
    WskDeregister(&client.registration);
    EXPECT_EQ(ndksim_kernel_wsk_report(), 0U);
}

// Adapters created and destroyed under one index while another thread keeps opening and
// closing it through WSK: every open either fails cleanly or succeeds, and no lookup or close
// reaches an adapter after it is destroyed, nor a later adapter given the same index (TSan and
// ASan check the latter).
TEST_F(Wsk, ConcurrentDestroyAndOpenByIndex) {
    const sim_adapter anchor("127.0.0.1");  // keeps the subsystem available throughout
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_NO_WAIT, &provider), STATUS_SUCCESS);
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider);
    constexpr NET_IFINDEX k_index = 4242;
    std::atomic<bool> stop{false};
    std::atomic<int> opened{0};
    std::thread opener([&] {
        while (!stop.load()) {
            NDK_ADAPTER* handle = nullptr;
            const NTSTATUS s =
                ndk.WskOpenNdkAdapter(provider.Client, NDK_VERSION{2, 0}, k_index, &handle);
            if (s == STATUS_SUCCESS) {
                // Not used in between: the harness may destroy its adapter at any moment,
                // which closes the handle. The close must then only be logged.
                ndk.WskCloseNdkAdapter(provider.Client, handle);
                opened.fetch_add(1);
            } else {
                EXPECT_EQ(s, STATUS_INVALID_PARAMETER);
            }
        }
    });
    for (int round = 0; round < 50; ++round) {
        const sim_adapter nic("127.0.0.2", k_index);
        ASSERT_EQ(nic.status(), STATUS_SUCCESS);
    }
    {
        const sim_adapter nic("127.0.0.2", k_index);
        EXPECT_TRUE(eventually([&] { return opened.load() > 0; }));
    }
    stop = true;
    opener.join();
    EXPECT_GT(opened.load(), 0);
    WskReleaseProviderNPI(&client.registration);
    WskDeregister(&client.registration);
}

}  // namespace
}  // namespace ndksim::kernel::test
