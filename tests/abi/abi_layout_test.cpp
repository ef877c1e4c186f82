// SPDX-License-Identifier: MIT
// Run-time checks of the public C ABI headers: constant values against REFERENCE.md tables, the
// MDL and status macros on hand-computed cases, and the socket-address aliasing rules. Sizes and
// offsets are compile-time checks inside the headers themselves; compiling this file runs them.
//
// The headers are included the way Windows consumer code spells them (plain <ndkpi.h>), twice to
// prove the include guards, and before <netinet/in.h> to prove the two coexist (abi_c11.c checks
// the opposite order).
#include <ndisndk.h>
#include <ndkpi.h>
#include <netioapi.h>
#include <wskndk.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <gtest/gtest.h>

extern "C" int ndksim_abi_c11_check(void);

namespace {

// One row of a constant table: the header's value and the value REFERENCE.md prints.
struct ConstantCase {
    std::string_view name;
    std::uint64_t value;
    std::uint64_t expected;
};

#define NDKSIM_CASE(name, expected)                                                       \
    ConstantCase {                                                                        \
#name, static_cast < std::uint64_t>(name), static_cast < std::uint64_t>(expected) \
    }

template <std::size_t N>
void ExpectTable(const std::array<ConstantCase, N>& table) {
    for (const ConstantCase& row : table) {
        EXPECT_EQ(row.value, row.expected) << row.name;
    }
}

// NTSTATUS values are compared as their 32-bit pattern, which is how REFERENCE.md 7 prints them.
struct StatusCase {
    std::string_view name;
    NTSTATUS value;
    std::uint32_t expected_bits;
};

#define NDKSIM_STATUS(name, bits) \
    StatusCase {                  \
#name, name, bits         \
    }

constexpr std::array kNtStatusTable = {
    NDKSIM_STATUS(STATUS_SUCCESS, 0x00000000u),
    NDKSIM_STATUS(STATUS_TIMEOUT, 0x00000102u),
    NDKSIM_STATUS(STATUS_PENDING, 0x00000103u),
    NDKSIM_STATUS(STATUS_BUFFER_OVERFLOW, 0x80000005u),
    NDKSIM_STATUS(STATUS_DEVICE_BUSY, 0x80000011u),
    NDKSIM_STATUS(STATUS_UNSUCCESSFUL, 0xC0000001u),
    NDKSIM_STATUS(STATUS_NOT_IMPLEMENTED, 0xC0000002u),
    NDKSIM_STATUS(STATUS_ACCESS_VIOLATION, 0xC0000005u),
    NDKSIM_STATUS(STATUS_INVALID_HANDLE, 0xC0000008u),
    NDKSIM_STATUS(STATUS_INVALID_PARAMETER, 0xC000000Du),
    NDKSIM_STATUS(STATUS_INVALID_DEVICE_REQUEST, 0xC0000010u),
    NDKSIM_STATUS(STATUS_NO_MEMORY, 0xC0000017u),
    NDKSIM_STATUS(STATUS_BUFFER_TOO_SMALL, 0xC0000023u),
    NDKSIM_STATUS(STATUS_INVALID_PARAMETER_MIX, 0xC0000030u),
    NDKSIM_STATUS(STATUS_DATA_OVERRUN, 0xC000003Cu),
    NDKSIM_STATUS(STATUS_DATA_ERROR, 0xC000003Eu),
    NDKSIM_STATUS(STATUS_SHARING_VIOLATION, 0xC0000043u),
    NDKSIM_STATUS(STATUS_INSUFFICIENT_RESOURCES, 0xC000009Au),
    NDKSIM_STATUS(STATUS_DEVICE_DATA_ERROR, 0xC000009Cu),
    NDKSIM_STATUS(STATUS_DEVICE_NOT_READY, 0xC00000A3u),
    NDKSIM_STATUS(STATUS_IO_TIMEOUT, 0xC00000B5u),
    NDKSIM_STATUS(STATUS_NOT_SUPPORTED, 0xC00000BBu),
    NDKSIM_STATUS(STATUS_INTERNAL_ERROR, 0xC00000E5u),
    NDKSIM_STATUS(STATUS_CANCELLED, 0xC0000120u),
    NDKSIM_STATUS(STATUS_INVALID_CONNECTION, 0xC0000140u),
    NDKSIM_STATUS(STATUS_LOCAL_DISCONNECT, 0xC000013Bu),
    NDKSIM_STATUS(STATUS_REMOTE_DISCONNECT, 0xC000013Cu),
    NDKSIM_STATUS(STATUS_REMOTE_RESOURCES, 0xC000013Du),
    NDKSIM_STATUS(STATUS_INVALID_ADDRESS, 0xC0000141u),
    NDKSIM_STATUS(STATUS_INVALID_DEVICE_STATE, 0xC0000184u),
    NDKSIM_STATUS(STATUS_INVALID_BUFFER_SIZE, 0xC0000206u),
    NDKSIM_STATUS(STATUS_TOO_MANY_ADDRESSES, 0xC0000209u),
    NDKSIM_STATUS(STATUS_ADDRESS_ALREADY_EXISTS, 0xC000020Au),
    NDKSIM_STATUS(STATUS_ADDRESS_CLOSED, 0xC000020Bu),
    NDKSIM_STATUS(STATUS_CONNECTION_DISCONNECTED, 0xC000020Cu),
    NDKSIM_STATUS(STATUS_CONNECTION_RESET, 0xC000020Du),
    NDKSIM_STATUS(STATUS_CONNECTION_REFUSED, 0xC0000236u),
    NDKSIM_STATUS(STATUS_GRACEFUL_DISCONNECT, 0xC0000237u),
    NDKSIM_STATUS(STATUS_CONNECTION_INVALID, 0xC000023Au),
    NDKSIM_STATUS(STATUS_CONNECTION_ACTIVE, 0xC000023Bu),
    NDKSIM_STATUS(STATUS_NETWORK_UNREACHABLE, 0xC000023Cu),
    NDKSIM_STATUS(STATUS_HOST_UNREACHABLE, 0xC000023Du),
    NDKSIM_STATUS(STATUS_PORT_UNREACHABLE, 0xC000023Fu),
    NDKSIM_STATUS(STATUS_REQUEST_ABORTED, 0xC0000240u),
    NDKSIM_STATUS(STATUS_CONNECTION_ABORTED, 0xC0000241u),
    NDKSIM_STATUS(STATUS_IMPLEMENTATION_LIMIT, 0xC000042Bu),
};

struct NdisStatusCase {
    std::string_view name;
    NDIS_STATUS value;
    std::uint32_t expected_bits;
};

#define NDKSIM_NDIS_STATUS(name, bits) \
    NdisStatusCase {                   \
#name, name, bits              \
    }

constexpr std::array kNdisStatusTable = {
    NDKSIM_NDIS_STATUS(NDIS_STATUS_SUCCESS, 0x00000000u),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_PENDING, 0x00000103u),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_FAILURE, 0xC0000001u),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_RESOURCES, 0xC000009Au),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_NOT_SUPPORTED, 0xC00000BBu),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_BAD_VERSION, 0xC0010004u),
    NDKSIM_NDIS_STATUS(NDIS_STATUS_ADAPTER_NOT_READY, 0xC0010011u),
};

// Anchors the address arithmetic of the MDL tests; never dereferenced, like an NDK MDL address.
constexpr std::uintptr_t kFakeVa = 0x00007F0012345234u;

PVOID FakeVa(std::uintptr_t va) {
    return reinterpret_cast<PVOID>(va);
}

std::uintptr_t AsInt(const volatile void* p) {
    return reinterpret_cast<std::uintptr_t>(p);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Status codes (REFERENCE.md 7)

TEST(NtStatus, ValuesMatchReferenceTable) {
    for (const StatusCase& row : kNtStatusTable) {
        EXPECT_EQ(static_cast<std::uint32_t>(row.value), row.expected_bits) << row.name;
    }
}

TEST(NtStatus, CodesAreThirtyTwoBitSignedSoErrorsStayNegativeWhenWidened) {
    static_assert(std::is_same_v<NTSTATUS, std::int32_t>);
    static_assert(std::is_same_v<std::remove_cv_t<decltype(STATUS_CANCELLED)>, NTSTATUS>);
    const long long widened_error = STATUS_INSUFFICIENT_RESOURCES;
    const long long widened_warning = STATUS_BUFFER_OVERFLOW;
    EXPECT_EQ(widened_error, -1073741670LL);  // 0xC000009A as a signed 32-bit value
    EXPECT_LT(widened_warning, 0);
    EXPECT_EQ(static_cast<std::int64_t>(STATUS_PENDING), 0x103);
}

TEST(NtStatus, NtSuccessAcceptsSuccessAndPendingButNotWarningsOrErrors) {
    EXPECT_TRUE(NT_SUCCESS(STATUS_SUCCESS));
    EXPECT_TRUE(NT_SUCCESS(STATUS_PENDING));
    EXPECT_TRUE(NT_SUCCESS(STATUS_TIMEOUT));
    EXPECT_FALSE(NT_SUCCESS(STATUS_BUFFER_OVERFLOW));
    EXPECT_FALSE(NT_SUCCESS(STATUS_DEVICE_BUSY));
    EXPECT_FALSE(NT_SUCCESS(STATUS_CANCELLED));
    EXPECT_FALSE(NT_SUCCESS(STATUS_CONNECTION_ABORTED));
    EXPECT_FALSE(NT_SUCCESS(STATUS_IMPLEMENTATION_LIMIT));
}

TEST(NtStatus, SeverityMacrosReadTheTopTwoBits) {
    EXPECT_FALSE(NT_INFORMATION(STATUS_SUCCESS));
    EXPECT_FALSE(NT_WARNING(STATUS_SUCCESS));
    EXPECT_FALSE(NT_ERROR(STATUS_SUCCESS));
    EXPECT_TRUE(NT_INFORMATION(NDKSIM_SCAST(NTSTATUS, 0x40000000L)));
    EXPECT_TRUE(NT_WARNING(STATUS_BUFFER_OVERFLOW));
    EXPECT_FALSE(NT_ERROR(STATUS_BUFFER_OVERFLOW));
    EXPECT_TRUE(NT_ERROR(STATUS_INVALID_PARAMETER));
    EXPECT_FALSE(NT_WARNING(STATUS_INVALID_PARAMETER));
}

TEST(NdisStatus, ValuesMatchReferenceTable) {
    static_assert(std::is_same_v<NDIS_STATUS, int>);
    for (const NdisStatusCase& row : kNdisStatusTable) {
        EXPECT_EQ(static_cast<std::uint32_t>(row.value), row.expected_bits) << row.name;
    }
}

TEST(NdisStatus, SharedCodesEqualTheirNtStatusCounterparts) {
    EXPECT_EQ(NDIS_STATUS_SUCCESS, STATUS_SUCCESS);
    EXPECT_EQ(NDIS_STATUS_PENDING, STATUS_PENDING);
    EXPECT_EQ(NDIS_STATUS_RESOURCES, STATUS_INSUFFICIENT_RESOURCES);
    EXPECT_EQ(NDIS_STATUS_NOT_SUPPORTED, STATUS_NOT_SUPPORTED);
}

// ---------------------------------------------------------------------------------------------
// NDK constants (REFERENCE.md 2)

TEST(NdkObjectType, ValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NdkObjectTypeUndefined, 0),
        NDKSIM_CASE(NdkObjectTypeAdapter, 1),
        NDKSIM_CASE(NdkObjectTypeQp, 2),
        NDKSIM_CASE(NdkObjectTypeCq, 3),
        NDKSIM_CASE(NdkObjectTypeMr, 4),
        NDKSIM_CASE(NdkObjectTypeMw, 5),
        NDKSIM_CASE(NdkObjectTypePd, 6),
        NDKSIM_CASE(NdkObjectTypeSharedEndpoint, 7),
        NDKSIM_CASE(NdkObjectTypeConnector, 8),
        NDKSIM_CASE(NdkObjectTypeListener, 9),
        NDKSIM_CASE(NdkObjectTypeSrq, 10),
        NDKSIM_CASE(NdkObjectTypeMax, 11),
    });
}

TEST(NdkOperationType, ValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NdkOperationTypeReceive, 0x0001),
        NDKSIM_CASE(NdkOperationTypeSend, 0x0002),
        NDKSIM_CASE(NdkOperationTypeFastRegister, 0x0004),
        NDKSIM_CASE(NdkOperationTypeBind, 0x0008),
        NDKSIM_CASE(NdkOperationTypeInvalidate, 0x0010),
        NDKSIM_CASE(NdkOperationTypeRead, 0x0020),
        NDKSIM_CASE(NdkOperationTypeWrite, 0x0040),
        NDKSIM_CASE(NdkOperationTypeReceiveAndInvalidate, 32769),
    });
}

TEST(NdkOperationType, ReceiveAndInvalidateIsReceiveBitPlus0x8000AndPositive) {
    EXPECT_EQ(static_cast<int>(NdkOperationTypeReceiveAndInvalidate),
              static_cast<int>(NdkOperationTypeReceive) + 0x8000);
    // Stored in a 4-byte enum, so it must not read back as the sign-extended 0xffff8001.
    NDK_RESULT_EX result{};
    result.Type = NdkOperationTypeReceiveAndInvalidate;
    EXPECT_GT(static_cast<long long>(result.Type), 0);
}

TEST(NdkFlags, OpFlagValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NDK_OP_FLAG_SILENT_SUCCESS, 0x00000001),
        NDKSIM_CASE(NDK_OP_FLAG_READ_FENCE, 0x00000002),
        NDKSIM_CASE(NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, 0x00000004),
        NDKSIM_CASE(NDK_OP_FLAG_ALLOW_REMOTE_READ, 0x00000008),
        NDKSIM_CASE(NDK_OP_FLAG_ALLOW_LOCAL_WRITE, 0x00000010),
        NDKSIM_CASE(NDK_OP_FLAG_ALLOW_REMOTE_WRITE, 0x00000030),
        NDKSIM_CASE(NDK_OP_FLAG_INLINE, 0x00000040),
        NDKSIM_CASE(NDK_OP_FLAG_RDMA_READ_SINK, 0x00000080),
        NDKSIM_CASE(NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, 0x00000100),
        NDKSIM_CASE(NDK_OP_FLAG_DEFER, 0x00000200),
    });
}

TEST(NdkFlags, RemoteWriteIncludesLocalWriteBit) {
    EXPECT_EQ(NDK_OP_FLAG_ALLOW_REMOTE_WRITE & NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
              NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
    EXPECT_EQ(NDK_MR_FLAG_ALLOW_REMOTE_WRITE & NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
              NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
    // The bit that is distinct to remote write.
    EXPECT_EQ(NDK_MR_FLAG_ALLOW_REMOTE_WRITE & ~NDK_MR_FLAG_ALLOW_LOCAL_WRITE, 0x4);
    EXPECT_EQ(NDK_OP_FLAG_ALLOW_REMOTE_WRITE & ~NDK_OP_FLAG_ALLOW_LOCAL_WRITE, 0x20);
}

TEST(NdkFlags, ReadLocalInvalidateDoesNotAliasDefer) {
    EXPECT_NE(NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, NDK_OP_FLAG_DEFER);
    EXPECT_EQ(NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE & NDK_OP_FLAG_DEFER, 0);
}

TEST(NdkFlags, MrFlagValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NDK_MR_FLAG_ALLOW_LOCAL_READ, 0x00000000),
        NDKSIM_CASE(NDK_MR_FLAG_ALLOW_LOCAL_WRITE, 0x00000001),
        NDKSIM_CASE(NDK_MR_FLAG_ALLOW_REMOTE_READ, 0x00000002),
        NDKSIM_CASE(NDK_MR_FLAG_ALLOW_REMOTE_WRITE, 0x00000005),
        NDKSIM_CASE(NDK_MR_FLAG_RDMA_READ_SINK, 0x00000008),
    });
}

TEST(NdkFlags, CqNotifyValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NDK_CQ_NOTIFY_ERRORS, 0),
        NDKSIM_CASE(NDK_CQ_NOTIFY_ANY, 1),
        NDKSIM_CASE(NDK_CQ_NOTIFY_SOLICITED, 2),
    });
}

TEST(NdkFlags, AdapterFlagValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED, 0x00000001),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED, 0x00000002),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, 0x00000004),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED, 0x00000008),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED, 0x00000010),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED, 0x00000100),
        NDKSIM_CASE(NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED, 0x00010000),
    });
}

TEST(NdkRdmaTechnology, ValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NdkUndefined, 0),
        NDKSIM_CASE(NdkiWarp, 1),
        NDKSIM_CASE(NdkInfiniBand, 2),
        NDKSIM_CASE(NdkRoCE, 3),
        NDKSIM_CASE(NdkRoCEv2, 4),
        NDKSIM_CASE(NdkMaxTechnology, 5),
    });
}

TEST(NdisNdk, ConstantsMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(NDIS_OBJECT_TYPE_DEFAULT, 0x80),
        NDKSIM_CASE(NDIS_OBJECT_TYPE_NDK_PROVIDER_CHARACTERISTICS, 0xB2),
        NDKSIM_CASE(NDIS_OBJECT_TYPE_MINIPORT_ADAPTER_NDK_ATTRIBUTES, 0xB3),
        NDKSIM_CASE(NDIS_NDK_PROVIDER_CHARACTERISTICS_REVISION_1, 1),
        NDKSIM_CASE(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES_REVISION_1, 1),
        NDKSIM_CASE(NDIS_NDK_CAPABILITIES_REVISION_1, 1),
        NDKSIM_CASE(NDIS_NDK_STATISTICS_INFO_REVISION_1, 1),
        NDKSIM_CASE(NDIS_NDK_CONNECTIONS_REVISION_1, 1),
        NDKSIM_CASE(NDIS_NDK_LOCAL_ENDPOINTS_REVISION_1, 1),
        NDKSIM_CASE(OID_NDK_SET_STATE, 0xFC040201u),
        NDKSIM_CASE(OID_NDK_STATISTICS, 0xFC040202u),
        NDKSIM_CASE(OID_NDK_CONNECTIONS, 0xFC040203u),
        NDKSIM_CASE(OID_NDK_LOCAL_ENDPOINTS, 0xFC040204u),
        NDKSIM_CASE(NETWORK_DIRECT_GLOBAL_FLAGS_ALLOW_REMOTE_IP_SUBNET, 0x00000001),
    });
    EXPECT_STREQ(NETWORK_DIRECT_KEYWORD, "*NetworkDirect");
    EXPECT_STREQ(NETWORK_DIRECT_GLOBAL_FLAGS_KEYWORD, "*NetworkDirectGlobalFlags");
}

TEST(NdisNdk, GuidsMatchReferenceTable) {
    const GUID capabilities = {
        0x7969ba4d, 0xdd80, 0x4bc7, {0xb3, 0xe6, 0x68, 0x04, 0x39, 0x97, 0xe5, 0x19}};
    const GUID state = {
        0x530c69c9, 0x2f51, 0x49de, {0xa1, 0xaf, 0x08, 0x8d, 0x54, 0xff, 0xa4, 0x74}};
    EXPECT_TRUE(RtlEqualMemory(&GUID_NDIS_NDK_CAPABILITIES, &capabilities, sizeof(GUID)));
    EXPECT_TRUE(RtlEqualMemory(&GUID_NDIS_NDK_STATE, &state, sizeof(GUID)));
}

TEST(NdisNdk, SizeofMacrosCoverTheVariableArrays) {
    EXPECT_EQ(NDIS_SIZEOF_NDK_CONNECTIONS_REVISION_1(0), std::size_t{16});
    EXPECT_EQ(NDIS_SIZEOF_NDK_CONNECTIONS_REVISION_1(3),
              16 + 3 * sizeof(NDIS_NDK_CONNECTION_ENTRY));
    EXPECT_EQ(NDIS_SIZEOF_NDK_CONNECTIONS_REVISION_1(1), sizeof(NDIS_NDK_CONNECTIONS));
    EXPECT_EQ(NDIS_SIZEOF_NDK_ENDPOINTS_REVISION_1(1), sizeof(NDIS_NDK_LOCAL_ENDPOINTS));
    EXPECT_EQ(NDIS_SIZEOF_NDK_LOCAL_ENDPOINTS_REVISION_1(2),
              16 + 2 * sizeof(NDIS_NDK_LOCAL_ENDPOINT_ENTRY));
    EXPECT_EQ(NDIS_SIZEOF_NDK_CAPABILITIES_REVISION_1, sizeof(NDIS_NDK_CAPABILITIES));
    EXPECT_EQ(NDIS_SIZEOF_NDK_STATISTICS_INFO_REVISION_1, sizeof(NDIS_NDK_STATISTICS_INFO));
    EXPECT_EQ(NDIS_SIZEOF_NDK_PROVIDER_CHARACTERISTICS_REVISION_1,
              sizeof(NDIS_NDK_PROVIDER_CHARACTERISTICS));
    EXPECT_EQ(NDIS_SIZEOF_MINIPORT_ADAPTER_NDK_ATTRIBUTES_REVISION_1,
              sizeof(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES));
}

// ---------------------------------------------------------------------------------------------
// Structures (REFERENCE.md 3 and 4)

TEST(NdkLam, ByteSizeIsSixteenPlusEightPerPage) {
    for (std::size_t pages : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{513}}) {
        const std::size_t bytes =
            static_cast<std::size_t>(FIELD_OFFSET(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray)) +
            sizeof(NDK_LOGICAL_ADDRESS) * pages;
        EXPECT_EQ(bytes, 16 + 8 * pages) << pages << " pages";
    }
}

TEST(NdkSge, VirtualAndLogicalAddressShareTheFirstEightBytes) {
    NDK_SGE sge{};
    sge.LogicalAddress.QuadPart = 0x0000123456789000LL;
    EXPECT_EQ(AsInt(sge.VirtualAddress), std::uintptr_t{0x0000123456789000u});
    sge.VirtualAddress = FakeVa(0x1000);
    EXPECT_EQ(sge.LogicalAddress.QuadPart, 0x1000);
}

TEST(NdkDispatch, EveryTableIsOnlyFunctionPointersInReferenceOrder) {
    EXPECT_EQ(sizeof(NDK_ADAPTER_DISPATCH) / sizeof(void*), 9u);
    EXPECT_EQ(sizeof(NDK_CQ_DISPATCH) / sizeof(void*), 7u);
    EXPECT_EQ(sizeof(NDK_PD_DISPATCH) / sizeof(void*), 8u);
    EXPECT_EQ(sizeof(NDK_MR_DISPATCH) / sizeof(void*), 7u);
    EXPECT_EQ(sizeof(NDK_MW_DISPATCH) / sizeof(void*), 3u);
    EXPECT_EQ(sizeof(NDK_SRQ_DISPATCH) / sizeof(void*), 4u);
    EXPECT_EQ(sizeof(NDK_QP_DISPATCH) / sizeof(void*), 11u);
    EXPECT_EQ(sizeof(NDK_SHARED_ENDPOINT_DISPATCH) / sizeof(void*), 3u);
    EXPECT_EQ(sizeof(NDK_CONNECTOR_DISPATCH) / sizeof(void*), 13u);
    EXPECT_EQ(sizeof(NDK_LISTENER_DISPATCH) / sizeof(void*), 5u);
    // The 2.1 connector entries follow the eleven of NDKPI 1.2.
    EXPECT_EQ(offsetof(NDK_CONNECTOR_DISPATCH, NdkCompleteConnectEx), 11 * sizeof(void*));
    EXPECT_EQ(offsetof(NDK_CONNECTOR_DISPATCH, NdkAcceptEx), 12 * sizeof(void*));
}

TEST(NdkObject, ProviderRecoversItsObjectFromTheHeaderAddress) {
    struct ProviderQp {
        NDK_QP Public;
        int private_state;
    };
    ProviderQp qp{};
    qp.private_state = 42;
    NDK_OBJECT_HEADER* header = &qp.Public.Header;
    NDK_QP* recovered = CONTAINING_RECORD(header, NDK_QP, Header);
    EXPECT_EQ(recovered, &qp.Public);
    const NDK_OBJECT_HEADER* const_header = header;
    EXPECT_EQ(CONTAINING_RECORD(const_header, NDK_QP, Header), &qp.Public);
}

TEST(LargeInteger, HalvesAliasQuadPartLittleEndian) {
    LARGE_INTEGER value{};
    value.QuadPart = -2;  // 0xFFFFFFFF'FFFFFFFE
    EXPECT_EQ(value.LowPart, 0xFFFFFFFEu);
    EXPECT_EQ(value.HighPart, -1);
    EXPECT_EQ(value.u.LowPart, value.LowPart);
    EXPECT_EQ(value.u.HighPart, value.HighPart);
    PHYSICAL_ADDRESS physical{};
    physical.HighPart = 1;
    EXPECT_EQ(physical.QuadPart, 0x100000000LL);
}

// ---------------------------------------------------------------------------------------------
// Socket addresses (REFERENCE.md 8.3)

TEST(SockAddr, WindowsFamilyValuesAndPlatformInet) {
    EXPECT_EQ(WS_AF_INET, 2);
    EXPECT_EQ(WS_AF_INET6, 23);
    EXPECT_EQ(WS_AF_INET, AF_INET);
    EXPECT_TRUE(NDKSIM_IS_AF_INET6(WS_AF_INET6));
    EXPECT_TRUE(NDKSIM_IS_AF_INET6(AF_INET6));
    EXPECT_FALSE(NDKSIM_IS_AF_INET6(AF_INET));
}

TEST(SockAddr, InAddrShortAndLongSpellingsAlias) {
    IN_ADDR address{};
    address.S_un.S_un_b.s_b1 = 192;
    address.S_un.S_un_b.s_b2 = 0;
    address.S_un.S_un_b.s_b3 = 2;
    address.S_un.S_un_b.s_b4 = 1;
    EXPECT_EQ(address.s_addr, address.S_un.S_addr);
    // Network byte order: the first octet is the lowest-addressed byte, as in struct in_addr.
    struct in_addr linux_address {};
    linux_address.s_addr = htonl(0xC0000201u);
    EXPECT_EQ(address.s_addr, linux_address.s_addr);
    address.s_addr = 0;
    EXPECT_EQ(address.S_un.S_un_w.s_w1, 0);
}

TEST(SockAddr, SockaddrInetFamilyOverlaysBothFamilies) {
    SOCKADDR_INET inet{};
    inet.Ipv6.sin6_family = WS_AF_INET6;
    EXPECT_EQ(inet.si_family, WS_AF_INET6);
    inet.Ipv4.sin_family = AF_INET;
    EXPECT_EQ(inet.si_family, AF_INET);
}

TEST(SockAddr, Ipv4LayoutMatchesLinuxSockaddrIn) {
    // Same offsets as Linux's struct sockaddr_in, so an IPv4 address can be copied bytewise.
    EXPECT_EQ(sizeof(SOCKADDR_IN), sizeof(struct sockaddr_in));
    EXPECT_EQ(offsetof(SOCKADDR_IN, sin_port), offsetof(struct sockaddr_in, sin_port));
    EXPECT_EQ(offsetof(SOCKADDR_IN, sin_addr), offsetof(struct sockaddr_in, sin_addr));
    // Linux's sockaddr_in6 has the same 28-byte shape; only the AF_INET6 value differs.
    EXPECT_EQ(sizeof(SOCKADDR_IN6), sizeof(struct sockaddr_in6));
    EXPECT_EQ(offsetof(SOCKADDR_IN6, sin6_scope_id), offsetof(struct sockaddr_in6, sin6_scope_id));
    EXPECT_EQ(sizeof(SOCKADDR_STORAGE), sizeof(struct sockaddr_storage));
}

TEST(SockAddr, ScopeIdPartsShareTheScopeIdWord) {
    SOCKADDR_IN6 address{};
    address.sin6_scope_id = 0x30000005u;
    EXPECT_EQ(address.sin6_scope_struct.Zone, 5u);
    EXPECT_EQ(address.sin6_scope_struct.Level, 3u);
    EXPECT_EQ(address.sin6_scope_struct.Value, 0x30000005u);
}

// ---------------------------------------------------------------------------------------------
// MDL macros (REFERENCE.md 8.1)

TEST(MdlMacros, PageAlignAndByteOffsetSplitAnAddressAtTwelveBits) {
    EXPECT_EQ(PAGE_SIZE, 4096);
    EXPECT_EQ(PAGE_SHIFT, 12);
    EXPECT_EQ(AsInt(PAGE_ALIGN(FakeVa(kFakeVa))), std::uintptr_t{0x00007F0012345000u});
    EXPECT_EQ(BYTE_OFFSET(FakeVa(kFakeVa)), 0x234u);
    EXPECT_EQ(BYTE_OFFSET(FakeVa(0x5000)), 0u);
    EXPECT_EQ(AsInt(PAGE_ALIGN(FakeVa(0x5FFF))), std::uintptr_t{0x5000});
}

TEST(MdlMacros, SpanPagesCountsEveryTouchedPage) {
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x1000), 0x1000), 1u);
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x1001), 0x1000), 2u);
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x1FFF), 2), 2u);
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x1FFF), 1), 1u);
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x1234), 0x3000), 4u);  // 0x234+0x3000+0xFFF
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x2000), 0), 0u);
    EXPECT_EQ(ADDRESS_AND_SIZE_TO_SPAN_PAGES(FakeVa(0x2010), 0), 1u);
}

TEST(MdlMacros, RoundAndBytesToPagesRoundUp) {
    EXPECT_EQ(ROUND_TO_PAGES(0), 0u);
    EXPECT_EQ(ROUND_TO_PAGES(1), 0x1000u);
    EXPECT_EQ(ROUND_TO_PAGES(0x1000), 0x1000u);
    EXPECT_EQ(ROUND_TO_PAGES(0x1001), 0x2000u);
    EXPECT_EQ(BYTES_TO_PAGES(0), 0u);
    EXPECT_EQ(BYTES_TO_PAGES(1), 1u);
    EXPECT_EQ(BYTES_TO_PAGES(0x2000), 2u);
    EXPECT_EQ(BYTES_TO_PAGES(0x2001), 3u);
}

TEST(MdlMacros, InitializeMdlDescribesTheRangeAndPlacesPfnArrayAfterHeader) {
    // An MDL for 0x3000 bytes at offset 0x234 spans 4 pages.
    alignas(MDL) unsigned char storage[sizeof(MDL) + 4 * sizeof(PFN_NUMBER)];
    std::memset(storage, 0xA5, sizeof(storage));
    PMDL mdl = reinterpret_cast<PMDL>(storage);
    MmInitializeMdl(mdl, FakeVa(kFakeVa), 0x3000);

    EXPECT_EQ(mdl->Next, nullptr);
    EXPECT_EQ(mdl->MdlFlags, 0);
    EXPECT_EQ(mdl->Size, static_cast<CSHORT>(sizeof(MDL) + 4 * sizeof(PFN_NUMBER)));
    EXPECT_EQ(AsInt(MmGetMdlBaseVa(mdl)), std::uintptr_t{0x00007F0012345000u});
    EXPECT_EQ(MmGetMdlByteOffset(mdl), 0x234u);
    EXPECT_EQ(MmGetMdlByteCount(mdl), 0x3000u);
    EXPECT_EQ(AsInt(MmGetMdlVirtualAddress(mdl)), kFakeVa);
    EXPECT_EQ(AsInt(MmGetMdlPfnArray(mdl)), AsInt(storage) + 0x30);
}

TEST(MdlMacros, SystemAddressIsMappedSystemVaOnceMapped) {
    alignas(MDL) unsigned char storage[sizeof(MDL) + 2 * sizeof(PFN_NUMBER)];
    PMDL mdl = reinterpret_cast<PMDL>(storage);
    MmInitializeMdl(mdl, FakeVa(0x10010), 0x1000);

    // Not mapped yet: the simulator's mapping is the buffer's own address.
    PVOID system = MmGetSystemAddressForMdlSafe(mdl, NormalPagePriority | MdlMappingNoExecute);
    EXPECT_EQ(AsInt(system), std::uintptr_t{0x10010});
    EXPECT_NE(mdl->MdlFlags & MDL_MAPPED_TO_SYSTEM_VA, 0);

    // Already mapped (or nonpaged pool): MappedSystemVa is returned untouched.
    mdl->MappedSystemVa = FakeVa(0xABC000);
    EXPECT_EQ(AsInt(MmGetSystemAddressForMdlSafe(mdl, HighPagePriority)), std::uintptr_t{0xABC000});
    mdl->MdlFlags = MDL_SOURCE_IS_NONPAGED_POOL;
    EXPECT_EQ(AsInt(MmGetSystemAddressForMdlSafe(mdl, LowPagePriority)), std::uintptr_t{0xABC000});
}

TEST(MdlFlags, ValuesMatchReferenceTable) {
    ExpectTable(std::array{
        NDKSIM_CASE(MDL_MAPPED_TO_SYSTEM_VA, 0x0001),
        NDKSIM_CASE(MDL_PAGES_LOCKED, 0x0002),
        NDKSIM_CASE(MDL_SOURCE_IS_NONPAGED_POOL, 0x0004),
        NDKSIM_CASE(MDL_ALLOCATED_FIXED_SIZE, 0x0008),
        NDKSIM_CASE(MDL_PARTIAL, 0x0010),
        NDKSIM_CASE(MDL_PARTIAL_HAS_BEEN_MAPPED, 0x0020),
        NDKSIM_CASE(MDL_IO_PAGE_READ, 0x0040),
        NDKSIM_CASE(MDL_WRITE_OPERATION, 0x0080),
        NDKSIM_CASE(MDL_LOCKED_PAGE_TABLES, 0x0100),
        NDKSIM_CASE(MDL_PARENT_MAPPED_SYSTEM_VA, 0x0100),
        NDKSIM_CASE(MDL_FREE_EXTRA_PTES, 0x0200),
        NDKSIM_CASE(MDL_DESCRIBES_AWE, 0x0400),
        NDKSIM_CASE(MDL_IO_SPACE, 0x0800),
        NDKSIM_CASE(MDL_NETWORK_HEADER, 0x1000),
        NDKSIM_CASE(MDL_MAPPING_CAN_FAIL, 0x2000),
        NDKSIM_CASE(MDL_PAGE_CONTENTS_INVARIANT, 0x4000),
        NDKSIM_CASE(MDL_ALLOCATED_MUST_SUCCEED, 0x4000),
        NDKSIM_CASE(MDL_INTERNAL, 0x8000),
        NDKSIM_CASE(MdlMappingNoExecute, 0x40000000),
        NDKSIM_CASE(NormalPagePriority, 16),
        NDKSIM_CASE(HighPagePriority, 32),
        NDKSIM_CASE(IoModifyAccess, 2),
        NDKSIM_CASE(UserMode, 1),
    });
}

// ---------------------------------------------------------------------------------------------
// Miscellaneous kernel helpers

TEST(KernelHelpers, RtlCompareMemoryReturnsLengthOfEqualPrefix) {
    const char left[] = "abcdef";
    const char right[] = "abcxef";
    EXPECT_EQ(RtlCompareMemory(left, right, 6), 3u);
    EXPECT_EQ(RtlCompareMemory(left, left, 6), 6u);
    EXPECT_EQ(RtlCompareMemory(left, right, 0), 0u);
}

TEST(KernelHelpers, MemoryMacrosMapToTheCLibrary) {
    unsigned char buffer[8];
    RtlFillMemory(buffer, sizeof(buffer), 0x5A);
    EXPECT_EQ(buffer[7], 0x5A);
    RtlZeroMemory(buffer, 4);
    EXPECT_EQ(buffer[3], 0);
    EXPECT_EQ(buffer[4], 0x5A);
    RtlMoveMemory(buffer + 1, buffer + 3, 3);
    EXPECT_EQ(buffer[1], 0);
    EXPECT_EQ(buffer[2], 0x5A);
    unsigned char copy[8];
    RtlCopyMemory(copy, buffer, sizeof(buffer));
    EXPECT_TRUE(RtlEqualMemory(copy, buffer, sizeof(buffer)));
}

TEST(KernelHelpers, BooleanAndLimitsHaveWindowsValues) {
    EXPECT_EQ(TRUE, 1);
    EXPECT_EQ(FALSE, 0);
    EXPECT_EQ(MAXULONG, 0xFFFFFFFFu);
    EXPECT_EQ(MAXUSHORT, 0xFFFF);
    EXPECT_EQ(PASSIVE_LEVEL, 0);
    EXPECT_EQ(APC_LEVEL, 1);
    EXPECT_EQ(DISPATCH_LEVEL, 2);
}

// ---------------------------------------------------------------------------------------------
// Kernel runtime types and values (WDK x64)

TEST(KernelAbi, DispatcherObjectsAndSpinLocksHaveTheirWindowsLayout) {
    EXPECT_EQ(sizeof(KEVENT), 0x18U);
    EXPECT_EQ(offsetof(KEVENT, Header.SignalState), 0x04U);
    EXPECT_EQ(offsetof(KEVENT, Header.WaitListHead), 0x08U);
    EXPECT_EQ(sizeof(KWAIT_BLOCK), 0x30U);
    EXPECT_EQ(sizeof(KSPIN_LOCK), 0x08U);
    EXPECT_EQ(sizeof(KLOCK_QUEUE_HANDLE), 0x18U);
    EXPECT_EQ(offsetof(KLOCK_QUEUE_HANDLE, OldIrql), 0x10U);
}

TEST(KernelAbi, ConstantsHaveTheirWdkValues) {
    EXPECT_EQ(HIGH_LEVEL, 15);
    EXPECT_EQ(NotificationEvent, 0);
    EXPECT_EQ(SynchronizationEvent, 1);
    EXPECT_EQ(WaitAll, 0);
    EXPECT_EQ(WaitAny, 1);
    EXPECT_EQ(Executive, 0);
    EXPECT_EQ(STATUS_WAIT_0, 0);
    EXPECT_EQ(THREAD_WAIT_OBJECTS, 3);
    EXPECT_EQ(NonPagedPool, 0);
    EXPECT_EQ(PagedPool, 1);
    EXPECT_EQ(NonPagedPoolNx, 512);
    EXPECT_EQ(NormalPoolPriority, 16);
    EXPECT_EQ(POOL_FLAG_UNINITIALIZED, 0x2U);
    EXPECT_EQ(POOL_FLAG_NON_PAGED, 0x40U);
    EXPECT_EQ(POOL_FLAG_NON_PAGED_EXECUTE, 0x80U);
    EXPECT_EQ(POOL_FLAG_PAGED, 0x100U);
    EXPECT_EQ(sizeof(POOL_FLAGS), 8U);
}

// ---------------------------------------------------------------------------------------------
// The C11 translation unit

TEST(CAbi, C11TranslationUnitSeesTheSameSizes) {
    const int expected = static_cast<int>(
        sizeof(MDL) + sizeof(NDK_OBJECT_HEADER) + sizeof(NDK_RESULT_EX) + sizeof(NDK_SGE) +
        sizeof(NDK_ADAPTER_INFO) + sizeof(SOCKADDR_INET) + sizeof(NDK_CONNECTOR_DISPATCH) +
        sizeof(NDK_QP) + sizeof(NDIS_NDK_CAPABILITIES) + sizeof(KEVENT) + sizeof(KSPIN_LOCK) +
        sizeof(KLOCK_QUEUE_HANDLE) + sizeof(KWAIT_BLOCK) + sizeof(LIST_ENTRY));
    EXPECT_EQ(ndksim_abi_c11_check(), expected);
}

// ---------------------------------------------------------------------------------------------
// WSK, the NDK extension and the IP Helper types (WDK x64)

TEST(WskAbi, TablesAndRegistrationHaveTheirWindowsLayout) {
    EXPECT_EQ(sizeof(WSK_CLIENT_DISPATCH), 0x10U);
    EXPECT_EQ(sizeof(WSK_CLIENT_NPI), 0x10U);
    EXPECT_EQ(sizeof(WSK_PROVIDER_NPI), 0x10U);
    EXPECT_EQ(sizeof(WSK_PROVIDER_DISPATCH), 0x38U);
    EXPECT_EQ(offsetof(WSK_PROVIDER_DISPATCH, WskControlClient), 0x18U);
    EXPECT_EQ(offsetof(WSK_PROVIDER_DISPATCH, WskGetNameInfo), 0x30U);
    EXPECT_EQ(sizeof(WSK_REGISTRATION), 0x18U);
    EXPECT_EQ(offsetof(WSK_REGISTRATION, ReservedRegistrationLock), 0x10U);
    EXPECT_EQ(sizeof(WSK_PROVIDER_NDK_DISPATCH), 0x10U);
    EXPECT_EQ(offsetof(WSK_PROVIDER_NDK_DISPATCH, WskCloseNdkAdapter), 0x08U);
}

TEST(WskAbi, ConstantsHaveTheirWdkValues) {
    EXPECT_EQ(MAKE_WSK_VERSION(1, 0), 0x0100);
    EXPECT_EQ(WSK_MAJOR_VERSION(0x0203), 2);
    EXPECT_EQ(WSK_MINOR_VERSION(0x0203), 3);
    EXPECT_EQ(WSK_NO_WAIT, 0);
    EXPECT_EQ(WSK_INFINITE_WAIT, 0xFFFFFFFFU);
    // ((ULONG)'NDKD') as MSVC and GCC evaluate a multi-character constant.
    EXPECT_EQ(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH,
              (ULONG{'N'} << 24) | (ULONG{'D'} << 16) | (ULONG{'K'} << 8) | ULONG{'D'});
    EXPECT_EQ(STATUS_NOINTERFACE, static_cast<NTSTATUS>(0xC00002B9));
}

TEST(NetioAbi, IdentifiersAndAddressRowsHaveTheirWindowsLayout) {
    NET_LUID luid{};
    luid.Info.IfType = IF_TYPE_ETHERNET_CSMACD;
    luid.Info.NetLuidIndex = 5;
    EXPECT_EQ(luid.Value, (ULONG64{6} << 48) | (ULONG64{5} << 24));
    EXPECT_EQ(sizeof(MIB_UNICASTIPADDRESS_ROW), 80U);
    EXPECT_EQ(offsetof(MIB_UNICASTIPADDRESS_ROW, InterfaceLuid), 32U);
    EXPECT_EQ(offsetof(MIB_UNICASTIPADDRESS_ROW, InterfaceIndex), 40U);
    EXPECT_EQ(offsetof(MIB_UNICASTIPADDRESS_ROW, DadState), 64U);
    EXPECT_EQ(offsetof(MIB_UNICASTIPADDRESS_ROW, CreationTimeStamp), 72U);
    EXPECT_EQ(offsetof(MIB_UNICASTIPADDRESS_TABLE, Table), 8U);
    EXPECT_EQ(IF_MAX_STRING_SIZE, 256);
    EXPECT_EQ(NET_IFINDEX_UNSPECIFIED, 0U);
    EXPECT_EQ(IpDadStatePreferred, 4);
    EXPECT_EQ(IpPrefixOriginUnchanged, 16);
    EXPECT_EQ(STATUS_NOT_FOUND, static_cast<NTSTATUS>(0xC0000225));
}
