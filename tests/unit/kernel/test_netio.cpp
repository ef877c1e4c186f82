// SPDX-License-Identifier: MIT
// Interface identity (ndksim_adapter_config's interface_index and interface_alias) and the IP
// Helper routines of netioapi.h over it.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "kernel_test.hpp"
#include "wsk_test.hpp"

namespace ndksim::kernel::test {
namespace {

using InterfaceIdentity = KernelTest;
using Netio = KernelTest;

// The pool tag GetUnicastIpAddressTable allocates under ('MibT').
constexpr ULONG k_table_tag = 0x5462694D;

std::u16string alias_of(const NET_LUID& luid) {
    WCHAR buffer[IF_MAX_STRING_SIZE + 1] = {};
    EXPECT_EQ(ConvertInterfaceLuidToAlias(&luid, buffer, IF_MAX_STRING_SIZE + 1), STATUS_SUCCESS);
    return std::u16string(reinterpret_cast<const char16_t*>(buffer));
}

TEST_F(InterfaceIdentity, EveryAdapterGetsAUniqueNonzeroIndexAndAnEthernetLuid) {
    const sim_adapter a("127.0.0.1");
    const sim_adapter b("127.0.0.2");
    ASSERT_EQ(a.status(), STATUS_SUCCESS);
    ASSERT_EQ(b.status(), STATUS_SUCCESS);
    EXPECT_NE(a.index(), 0U);
    EXPECT_NE(b.index(), 0U);
    EXPECT_NE(a.index(), b.index());
    EXPECT_NE(a.luid().Value, b.luid().Value);
    EXPECT_EQ(a.luid().Info.IfType, IF_TYPE_ETHERNET_CSMACD);
    EXPECT_NE(a.luid().Info.NetLuidIndex, 0U);
}

TEST_F(InterfaceIdentity, AnAutomaticIndexIsNeverGivenTwice) {
    NET_IFINDEX first = 0;
    {
        const sim_adapter a("127.0.0.1");
        first = a.index();
    }
    const sim_adapter b("127.0.0.1");
    EXPECT_NE(b.index(), first);
}

TEST_F(InterfaceIdentity, AConfiguredIndexAndAliasAreUsedAndMustBeUnique) {
    const sim_adapter a("127.0.0.1", 77, "rdma-a");
    ASSERT_EQ(a.status(), STATUS_SUCCESS);
    EXPECT_EQ(a.index(), 77U);
    EXPECT_EQ(alias_of(a.luid()), u"rdma-a");
    const sim_adapter same_index("127.0.0.2", 77, "rdma-b");
    EXPECT_EQ(same_index.status(), STATUS_INVALID_PARAMETER);
    const sim_adapter same_alias("127.0.0.3", 78, "rdma-a");
    EXPECT_EQ(same_alias.status(), STATUS_INVALID_PARAMETER);
    const sim_adapter not_utf8("127.0.0.4", 0, "bad\xff");
    EXPECT_EQ(not_utf8.status(), STATUS_INVALID_PARAMETER);
    const std::string too_long(IF_MAX_STRING_SIZE + 1, 'x');
    const sim_adapter long_alias("127.0.0.5", 0, too_long.c_str());
    EXPECT_EQ(long_alias.status(), STATUS_INVALID_PARAMETER);
    // Refused creates hold on to nothing: the index and the addresses are free again.
    const sim_adapter retry("127.0.0.2", 79, "rdma-b");
    EXPECT_EQ(retry.status(), STATUS_SUCCESS);
}

TEST_F(InterfaceIdentity, TheAliasDefaultsToTheNameAndStaysUniqueForSharedNames) {
    const sim_adapter a("127.0.0.1", 0, nullptr, "fabric");
    const sim_adapter b("127.0.0.2", 0, nullptr, "fabric");
    ASSERT_EQ(a.status(), STATUS_SUCCESS);
    ASSERT_EQ(b.status(), STATUS_SUCCESS);
    EXPECT_EQ(alias_of(a.luid()), u"fabric");
    const std::u16string second = alias_of(b.luid());
    EXPECT_NE(second, u"fabric");
    EXPECT_EQ(second.rfind(u"fabric", 0), 0U);
}

TEST_F(InterfaceIdentity, AUtf8AliasComesBackAsUtf16) {
    const sim_adapter a("127.0.0.1", 0, "Ethernet \xc3\xa9\xf0\x9f\x94\x97");  // é, U+1F517
    ASSERT_EQ(a.status(), STATUS_SUCCESS);
    EXPECT_EQ(alias_of(a.luid()), u"Ethernet \u00e9\U0001F517");
}

TEST_F(InterfaceIdentity, AConfigOfTheSizeBeforeTheIdentityFieldsGetsTheirDefaults) {
    ndksim_loop* loop = nullptr;
    ASSERT_EQ(ndksim_loop_create(&loop), STATUS_SUCCESS);
    ndksim_adapter_config config;
    ndksim_adapter_config_init(&config);
    config.loop = loop;
    config.interface_index = 99;  // beyond the older size: ignored
    config.size = static_cast<ULONG>(offsetof(ndksim_adapter_config, interface_alias));
    ndksim_adapter* adapter = nullptr;
    ASSERT_EQ(ndksim_adapter_create(&config, &adapter), STATUS_SUCCESS);
    EXPECT_NE(ndksim_adapter_interface_index(adapter), 99U);
    EXPECT_NE(ndksim_adapter_interface_index(adapter), 0U);
    ndksim_adapter_destroy(adapter);
    config.size -= 1;
    EXPECT_EQ(ndksim_adapter_create(&config, &adapter), STATUS_INVALID_PARAMETER);
    config.size = sizeof(ndksim_adapter_config) + 8;
    EXPECT_EQ(ndksim_adapter_create(&config, &adapter), STATUS_INVALID_PARAMETER);
    ndksim_loop_destroy(loop);
}

TEST_F(Netio, IndexAndLuidConvertBothWays) {
    const sim_adapter a("127.0.0.1");
    NET_LUID luid{};
    ASSERT_EQ(ConvertInterfaceIndexToLuid(a.index(), &luid), STATUS_SUCCESS);
    EXPECT_EQ(luid.Value, a.luid().Value);
    NET_IFINDEX index = 0;
    ASSERT_EQ(ConvertInterfaceLuidToIndex(&luid, &index), STATUS_SUCCESS);
    EXPECT_EQ(index, a.index());
}

TEST_F(Netio, UnknownOrNullArgumentsAreInvalidParameters) {
    const sim_adapter a("127.0.0.1");
    NET_LUID luid{};
    luid.Value = 0x1234;
    EXPECT_EQ(ConvertInterfaceIndexToLuid(a.index() + 1000, &luid), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(luid.Value, 0U) << "a failed lookup zeroes the LUID";
    EXPECT_EQ(ConvertInterfaceIndexToLuid(a.index(), nullptr), STATUS_INVALID_PARAMETER);
    NET_LUID unknown{};
    unknown.Value = a.luid().Value + (ULONG64{1} << 24);
    NET_IFINDEX index = 55;
    EXPECT_EQ(ConvertInterfaceLuidToIndex(&unknown, &index), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(index, NET_IFINDEX_UNSPECIFIED);
    EXPECT_EQ(ConvertInterfaceLuidToIndex(nullptr, &index), STATUS_INVALID_PARAMETER);
    const NET_LUID known = a.luid();
    EXPECT_EQ(ConvertInterfaceLuidToIndex(&known, nullptr), STATUS_INVALID_PARAMETER);
    WCHAR buffer[8] = {};
    EXPECT_EQ(ConvertInterfaceLuidToAlias(&unknown, buffer, 8), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(ConvertInterfaceLuidToAlias(nullptr, buffer, 8), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(ConvertInterfaceLuidToAlias(&known, nullptr, 8), STATUS_INVALID_PARAMETER);
    NET_LUID out{};
    out.Value = 7;
    const WCHAR missing[] = {'n', 'o', 'p', 'e', 0};
    EXPECT_EQ(ConvertInterfaceAliasToLuid(missing, &out), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(out.Value, 0U);
    EXPECT_EQ(ConvertInterfaceAliasToLuid(nullptr, &out), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(ConvertInterfaceAliasToLuid(missing, nullptr), STATUS_INVALID_PARAMETER);
}

TEST_F(Netio, AliasAndLuidConvertBothWaysAndAShortBufferIsNoMemory) {
    const sim_adapter a("127.0.0.1", 0, "rdma0");
    const NET_LUID luid = a.luid();
    WCHAR exact[6];
    std::memset(exact, 0xEE, sizeof exact);
    ASSERT_EQ(ConvertInterfaceLuidToAlias(&luid, exact, 6), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(reinterpret_cast<const char16_t*>(exact)), u"rdma0");
    WCHAR short_buffer[5];
    std::memset(short_buffer, 0xEE, sizeof short_buffer);
    // Documented as STATUS_NOT_ENOUGH_MEMORY, which is no NTSTATUS; see netioapi.h.
    EXPECT_EQ(ConvertInterfaceLuidToAlias(&luid, short_buffer, 5), STATUS_NO_MEMORY);
    EXPECT_EQ(short_buffer[0], static_cast<WCHAR>(0xEEEE)) << "nothing is written";
    NET_LUID back{};
    ASSERT_EQ(ConvertInterfaceAliasToLuid(exact, &back), STATUS_SUCCESS);
    EXPECT_EQ(back.Value, luid.Value);
}

// The address lookup a kernel consumer makes: the row whose Address is the local IP it wants
// names the interface index to open with WskOpenNdkAdapter.
TEST_F(Netio, TheUnicastTableListsEachAdaptersAddressWithItsInterface) {
    const sim_adapter v4("127.0.0.1", 31, "v4");
    const sim_adapter v6("::1", 32, "v6");
    ASSERT_EQ(v4.status(), STATUS_SUCCESS);
    ASSERT_EQ(v6.status(), STATUS_SUCCESS);
    PMIB_UNICASTIPADDRESS_TABLE table = nullptr;
    ASSERT_EQ(GetUnicastIpAddressTable(AF_UNSPEC, &table), STATUS_SUCCESS);
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->NumEntries, 2U);
    const MIB_UNICASTIPADDRESS_ROW& r4 = table->Table[0];
    EXPECT_EQ(r4.Address.si_family, AF_INET);
    EXPECT_EQ(r4.Address.Ipv4.sin_addr.S_un.S_un_b.s_b1, 127);
    EXPECT_EQ(r4.Address.Ipv4.sin_addr.S_un.S_un_b.s_b4, 1);
    EXPECT_EQ(r4.Address.Ipv4.sin_port, 0);
    EXPECT_EQ(r4.InterfaceIndex, 31U);
    EXPECT_EQ(r4.InterfaceLuid.Value, v4.luid().Value);
    EXPECT_EQ(r4.PrefixOrigin, IpPrefixOriginManual);
    EXPECT_EQ(r4.SuffixOrigin, IpSuffixOriginManual);
    EXPECT_EQ(r4.ValidLifetime, 0xFFFFFFFFU);
    EXPECT_EQ(r4.OnLinkPrefixLength, 24);
    EXPECT_EQ(r4.DadState, IpDadStatePreferred);
    EXPECT_FALSE(r4.SkipAsSource);
    LARGE_INTEGER now{};
    KeQuerySystemTime(&now);
    EXPECT_GT(r4.CreationTimeStamp.QuadPart, 0);
    EXPECT_LE(r4.CreationTimeStamp.QuadPart, now.QuadPart);
    const MIB_UNICASTIPADDRESS_ROW& r6 = table->Table[1];
    EXPECT_EQ(r6.Address.si_family, WS_AF_INET6) << "AF_UNSPEC: the Windows IPv6 family value";
    EXPECT_EQ(r6.Address.Ipv6.sin6_addr.u.Byte[15], 1);
    EXPECT_EQ(r6.InterfaceIndex, 32U);
    EXPECT_EQ(r6.OnLinkPrefixLength, 64);
    EXPECT_EQ(ndksim_kernel_pool_live(k_table_tag), 1U);
    FreeMibTable(table);
    EXPECT_EQ(ndksim_kernel_pool_live(k_table_tag), 0U);
}

TEST_F(Netio, TheUnicastTableFiltersByFamily) {
    const sim_adapter v4("127.0.0.1");
    const sim_adapter v6("::1");
    PMIB_UNICASTIPADDRESS_TABLE table = nullptr;
    ASSERT_EQ(GetUnicastIpAddressTable(AF_INET, &table), STATUS_SUCCESS);
    ASSERT_EQ(table->NumEntries, 1U);
    EXPECT_EQ(table->Table[0].InterfaceIndex, v4.index());
    FreeMibTable(table);
    for (const ADDRESS_FAMILY family : {ADDRESS_FAMILY{AF_INET6}, ADDRESS_FAMILY{WS_AF_INET6}}) {
        ASSERT_EQ(GetUnicastIpAddressTable(family, &table), STATUS_SUCCESS);
        ASSERT_EQ(table->NumEntries, 1U);
        EXPECT_EQ(table->Table[0].InterfaceIndex, v6.index());
        EXPECT_EQ(table->Table[0].Address.si_family, family) << "the family the caller used";
        FreeMibTable(table);
    }
    table = reinterpret_cast<PMIB_UNICASTIPADDRESS_TABLE>(std::uintptr_t{1});
    EXPECT_EQ(GetUnicastIpAddressTable(99, &table), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(GetUnicastIpAddressTable(AF_INET, nullptr), STATUS_INVALID_PARAMETER);
    FreeMibTable(nullptr);
}

TEST_F(Netio, NoAddressOfTheFamilyIsNotFound) {
    PMIB_UNICASTIPADDRESS_TABLE table =
        reinterpret_cast<PMIB_UNICASTIPADDRESS_TABLE>(std::uintptr_t{1});
    EXPECT_EQ(GetUnicastIpAddressTable(AF_UNSPEC, &table), STATUS_NOT_FOUND);
    EXPECT_EQ(table, nullptr);
    const sim_adapter v4("127.0.0.1");
    EXPECT_EQ(GetUnicastIpAddressTable(AF_INET6, &table), STATUS_NOT_FOUND);
    EXPECT_EQ(table, nullptr);
}

TEST_F(Netio, TheRoutinesArePassiveLevelOnly) {
    const sim_adapter a("127.0.0.1");
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    NET_LUID luid{};
    NET_IFINDEX index = 0;
    WCHAR alias[IF_MAX_STRING_SIZE + 1];
    PMIB_UNICASTIPADDRESS_TABLE table = nullptr;
    EXPECT_EQ(violations_of([&] { (void)ConvertInterfaceIndexToLuid(a.index(), &luid); }), 1U);
    EXPECT_EQ(violations_of([&] { (void)ConvertInterfaceLuidToIndex(&luid, &index); }), 1U);
    EXPECT_EQ(violations_of(
                  [&] { (void)ConvertInterfaceLuidToAlias(&luid, alias, IF_MAX_STRING_SIZE + 1); }),
              1U);
    EXPECT_EQ(violations_of([&] { (void)ConvertInterfaceAliasToLuid(alias, &luid); }), 1U);
    EXPECT_EQ(violations_of([&] { (void)GetUnicastIpAddressTable(AF_INET, &table); }), 1U);
    EXPECT_EQ(violations_of([&] { FreeMibTable(table); }), 1U);
    KeLowerIrql(old);
}

// The whole path of a consumer driver: find the interface that owns an address, register with
// WSK, get the NDK extension and open the adapter on that interface.
TEST_F(Netio, FromAnAddressToAnOpenNdkAdapter) {
    const sim_adapter decoy("127.0.0.1");
    const sim_adapter wanted("127.0.0.2");
    PMIB_UNICASTIPADDRESS_TABLE table = nullptr;
    ASSERT_EQ(GetUnicastIpAddressTable(AF_INET, &table), STATUS_SUCCESS);
    NET_IFINDEX index = NET_IFINDEX_UNSPECIFIED;
    for (ULONG i = 0; i < table->NumEntries; ++i) {
        if (table->Table[i].Address.Ipv4.sin_addr.S_un.S_un_b.s_b4 == 2) {
            index = table->Table[i].InterfaceIndex;
        }
    }
    FreeMibTable(table);
    ASSERT_EQ(index, wanted.index());
    wsk_client client;
    ASSERT_EQ(client.register_(), STATUS_SUCCESS);
    WSK_PROVIDER_NPI provider{};
    ASSERT_EQ(WskCaptureProviderNPI(&client.registration, WSK_INFINITE_WAIT, &provider),
              STATUS_SUCCESS);
    const WSK_PROVIDER_NDK_DISPATCH ndk = ndk_dispatch(provider);
    NDK_ADAPTER* adapter = nullptr;
    ASSERT_EQ(ndk.WskOpenNdkAdapter(provider.Client, NDK_VERSION{2, 0}, index, &adapter),
              STATUS_SUCCESS);
    EXPECT_EQ(ndksim_adapter_live_objects(wanted.get()), 1U);
    EXPECT_EQ(ndksim_adapter_live_objects(decoy.get()), 0U);
    ndk.WskCloseNdkAdapter(provider.Client, adapter);
    WskReleaseProviderNPI(&client.registration);
    WskDeregister(&client.registration);
}

}  // namespace
}  // namespace ndksim::kernel::test
