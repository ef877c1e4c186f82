// SPDX-License-Identifier: MIT
// The kernel IP Helper routines of netioapi.h, over api's registry of simulated adapters.

#include <cstring>
#include <string>

#include "api/interface_registry.hpp"
#include "kernel/irql.hpp"
#include "netioapi.h"
#include "util/log.hpp"

namespace ndksim::kernel {
namespace {

// 'MibT' as a pool tag (the characters in memory order).
constexpr ULONG k_mib_table_tag = 0x5462694D;

// The documented prefix lengths the simulator reports (netioapi.h, MIB_UNICASTIPADDRESS_ROW).
constexpr UINT8 k_ipv4_prefix = 24;
constexpr UINT8 k_ipv6_prefix = 64;

void require_passive(const char* function) {
    // Every IP Helper kernel routine: "IRQL: PASSIVE_LEVEL".
    require_irql_at_most(function, PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
}

NET_LUID to_luid(std::uint64_t value) {
    NET_LUID luid{};
    luid.Value = value;
    return luid;
}

void fill_row(const api::interface_identity& id, ADDRESS_FAMILY ipv6_family,
              MIB_UNICASTIPADDRESS_ROW& row) {
    std::memset(&row, 0, sizeof row);
    if (id.address.v6) {
        row.Address.Ipv6.sin6_family = ipv6_family;
        std::memcpy(row.Address.Ipv6.sin6_addr.u.Byte, id.address.bytes.data(), 16);
        row.OnLinkPrefixLength = k_ipv6_prefix;
    } else {
        row.Address.Ipv4.sin_family = AF_INET;
        std::memcpy(&row.Address.Ipv4.sin_addr, id.address.bytes.data(), 4);
        row.OnLinkPrefixLength = k_ipv4_prefix;
    }
    row.InterfaceLuid = to_luid(id.luid);
    row.InterfaceIndex = id.index;
    row.PrefixOrigin = IpPrefixOriginManual;
    row.SuffixOrigin = IpSuffixOriginManual;
    row.ValidLifetime = 0xFFFFFFFFu;
    row.PreferredLifetime = 0xFFFFFFFFu;
    row.SkipAsSource = FALSE;
    row.DadState = IpDadStatePreferred;
    row.CreationTimeStamp.QuadPart = id.created;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim;
using kernel::require_passive;

extern "C" {

NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceIndexToLuid(NET_IFINDEX InterfaceIndex,
                                                                  PNET_LUID InterfaceLuid) {
    require_passive("ConvertInterfaceIndexToLuid");
    if (InterfaceLuid == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const auto id = api::interfaces::by_index(InterfaceIndex);
    InterfaceLuid->Value = id ? id->luid : 0;
    return id ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceLuidToIndex(const NET_LUID* InterfaceLuid,
                                                                  PNET_IFINDEX InterfaceIndex) {
    require_passive("ConvertInterfaceLuidToIndex");
    if (InterfaceIndex == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    *InterfaceIndex = NET_IFINDEX_UNSPECIFIED;
    if (InterfaceLuid == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const auto id = api::interfaces::by_luid(InterfaceLuid->Value);
    if (!id) {
        return STATUS_INVALID_PARAMETER;
    }
    *InterfaceIndex = id->index;
    return STATUS_SUCCESS;
}

NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceLuidToAlias(const NET_LUID* InterfaceLuid,
                                                                  PWSTR InterfaceAlias,
                                                                  SIZE_T Length) {
    require_passive("ConvertInterfaceLuidToAlias");
    if (InterfaceLuid == nullptr || InterfaceAlias == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const auto id = api::interfaces::by_luid(InterfaceLuid->Value);
    if (!id) {
        return STATUS_INVALID_PARAMETER;
    }
    if (Length < id->alias.size() + 1) {
        return STATUS_NO_MEMORY;
    }
    static_assert(sizeof(WCHAR) == sizeof(char16_t));
    std::memcpy(InterfaceAlias, id->alias.data(), id->alias.size() * sizeof(WCHAR));
    InterfaceAlias[id->alias.size()] = 0;
    return STATUS_SUCCESS;
}

NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceAliasToLuid(const WCHAR* InterfaceAlias,
                                                                  PNET_LUID InterfaceLuid) {
    require_passive("ConvertInterfaceAliasToLuid");
    if (InterfaceLuid == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    InterfaceLuid->Value = 0;
    if (InterfaceAlias == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    std::u16string alias;
    for (const WCHAR* p = InterfaceAlias; *p != 0 && alias.size() <= IF_MAX_STRING_SIZE; ++p) {
        alias.push_back(static_cast<char16_t>(*p));
    }
    const auto id = api::interfaces::by_alias(alias);
    if (!id) {
        return STATUS_INVALID_PARAMETER;
    }
    InterfaceLuid->Value = id->luid;
    return STATUS_SUCCESS;
}

NDKSIM_API NETIO_STATUS NETIOAPI_API_ GetUnicastIpAddressTable(ADDRESS_FAMILY Family,
                                                               PMIB_UNICASTIPADDRESS_TABLE* Table) {
    require_passive("GetUnicastIpAddressTable");
    const bool v4 = Family == AF_INET || Family == AF_UNSPEC;
    const bool v6 = NDKSIM_IS_AF_INET6(Family) || Family == AF_UNSPEC;
    if (Table == nullptr || (!v4 && !v6)) {
        return STATUS_INVALID_PARAMETER;
    }
    *Table = nullptr;
    // Rows carry the IPv6 family value the consumer asked with (wdm.h's rule).
    const ADDRESS_FAMILY ipv6_family = Family == AF_UNSPEC ? WS_AF_INET6 : Family;
    std::vector<api::interface_identity> rows = api::interfaces::snapshot();
    std::erase_if(rows,
                  [&](const api::interface_identity& id) { return id.address.v6 ? !v6 : !v4; });
    if (rows.empty()) {
        return STATUS_NOT_FOUND;
    }
    const SIZE_T bytes = offsetof(MIB_UNICASTIPADDRESS_TABLE, Table) +
                         rows.size() * sizeof(MIB_UNICASTIPADDRESS_ROW);
    auto* table = static_cast<PMIB_UNICASTIPADDRESS_TABLE>(
        ExAllocatePool2(POOL_FLAG_NON_PAGED, bytes, kernel::k_mib_table_tag));
    if (table == nullptr) {
        return STATUS_NO_MEMORY;
    }
    table->NumEntries = static_cast<ULONG>(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        kernel::fill_row(rows[i], ipv6_family, table->Table[i]);
    }
    *Table = table;
    return STATUS_SUCCESS;
}

NDKSIM_API VOID NETIOAPI_API_ FreeMibTable(PVOID Memory) {
    require_passive("FreeMibTable");
    if (Memory != nullptr) {
        ExFreePoolWithTag(Memory, kernel::k_mib_table_tag);
    }
}

}  // extern "C"
