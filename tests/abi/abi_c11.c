/* SPDX-License-Identifier: MIT */
/*
 * C11 view of the public headers. Consumer code for the Windows kernel is usually C, so the
 * headers must compile as strict C11 (-Wpedantic) next to Linux's own socket headers. Those are
 * included first here; abi_layout_test.cpp covers the opposite order in C++.
 *
 * ndksim_abi_c11_check() returns a sum of structure sizes that the C++ test compares with its own,
 * catching any layout difference between the two languages.
 */
#include <netinet/in.h>
#include <sys/socket.h>

#include <ndkpi.h>
#include <netioapi.h>
#include <wskndk.h>

int ndksim_abi_c11_check(void);

/* Linux and Windows names side by side: no tag, typedef or macro may collide. */
static int ndksim_uses_both_address_kinds(void) {
    struct sockaddr_in linux_v4;
    struct sockaddr_in6 linux_v6;
    SOCKADDR_IN windows_v4;
    SOCKADDR_IN6 windows_v6;
    SOCKADDR_INET either;

    RtlZeroMemory(&linux_v4, sizeof(linux_v4));
    RtlZeroMemory(&linux_v6, sizeof(linux_v6));
    RtlZeroMemory(&windows_v4, sizeof(windows_v4));
    RtlZeroMemory(&windows_v6, sizeof(windows_v6));
    RtlZeroMemory(&either, sizeof(either));

    linux_v4.sin_family = AF_INET;
    linux_v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    windows_v4.sin_family = WS_AF_INET;
    windows_v4.sin_addr.s_addr = linux_v4.sin_addr.s_addr;
    windows_v6.sin6_family = WS_AF_INET6;
    windows_v6.sin6_addr.u.Byte[15] = 1;
    linux_v6.sin6_addr.s6_addr[15] = windows_v6.sin6_addr.u.Byte[15];
    either.Ipv6 = windows_v6;

    return windows_v4.sin_addr.S_un.S_addr == linux_v4.sin_addr.s_addr &&
           NDKSIM_IS_AF_INET6(either.si_family) && linux_v6.sin6_addr.s6_addr[15] == 1;
}

/* A provider-style callback and dispatch table entry, to exercise the function-pointer types. */
static VOID ndksim_request_done(_In_opt_ PVOID Context, _In_ NTSTATUS Status) {
    UNREFERENCED_PARAMETER(Context);
    UNREFERENCED_PARAMETER(Status);
}

static NTSTATUS ndksim_disconnect(_In_ NDK_CONNECTOR* pNdkConnector,
                                  _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                  _In_opt_ PVOID RequestContext) {
    UNREFERENCED_PARAMETER(pNdkConnector);
    RequestCompletion(RequestContext, STATUS_SUCCESS);
    return STATUS_PENDING;
}

/* The kernel runtime's types keep their WDK x64 sizes in C as well. */
#if NDKSIM_ABI_LAYOUT_CHECKS
_Static_assert(sizeof(KEVENT) == 0x18, "KEVENT size in C");
_Static_assert(sizeof(KLOCK_QUEUE_HANDLE) == 0x18, "KLOCK_QUEUE_HANDLE size in C");
_Static_assert(sizeof(KSPIN_LOCK) == 8, "KSPIN_LOCK size in C");
_Static_assert(sizeof(KWAIT_BLOCK) == 0x30, "KWAIT_BLOCK size in C");
_Static_assert(sizeof(KIRQL) == 1 && HIGH_LEVEL == 15, "KIRQL in C");
#endif

/* WSK, its NDK extension and the IP Helper types keep their WDK x64 layouts in C too. */
#if NDKSIM_ABI_LAYOUT_CHECKS
_Static_assert(sizeof(WSK_PROVIDER_DISPATCH) == 0x38, "WSK_PROVIDER_DISPATCH size in C");
_Static_assert(sizeof(WSK_REGISTRATION) == 0x18, "WSK_REGISTRATION size in C");
_Static_assert(sizeof(WSK_PROVIDER_NDK_DISPATCH) == 0x10, "WSK_PROVIDER_NDK_DISPATCH size in C");
_Static_assert(sizeof(NET_LUID) == 8, "NET_LUID size in C");
_Static_assert(sizeof(MIB_UNICASTIPADDRESS_ROW) == 80, "MIB_UNICASTIPADDRESS_ROW size in C");
_Static_assert(offsetof(MIB_UNICASTIPADDRESS_TABLE, Table) == 8, "MIB table rows in C");
_Static_assert(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH == 0x4E444B44UL, "'NDKD' in C");
#endif

int ndksim_abi_c11_check(void) {
    NDK_CONNECTOR_DISPATCH dispatch;
    NDK_CONNECTOR connector;
    NDK_RESULT_EX result;
    MDL mdl;
    int sum;

    RtlZeroMemory(&dispatch, sizeof(dispatch));
    dispatch.NdkDisconnect = ndksim_disconnect;
    RtlZeroMemory(&connector, sizeof(connector));
    connector.Header.Version.Major = 2;
    connector.Header.Version.Minor = 1;
    connector.Header.ObjectType = NdkObjectTypeConnector;
    connector.Dispatch = &dispatch;
    if (connector.Dispatch->NdkDisconnect(&connector, ndksim_request_done, NULL) !=
        STATUS_PENDING) {
        return -1;
    }

    RtlZeroMemory(&result, sizeof(result));
    result.Type = NdkOperationTypeReceiveAndInvalidate;
    if (result.Type != 0x8001 || NT_SUCCESS(STATUS_BUFFER_OVERFLOW) ||
        !NT_SUCCESS(STATUS_PENDING)) {
        return -1;
    }

    MmInitializeMdl(&mdl, (PVOID)(ULONG_PTR)0x1234, 0x1000);
    if (MmGetMdlByteOffset(&mdl) != 0x234 || ADDRESS_AND_SIZE_TO_SPAN_PAGES(0x1234, 0x1000) != 2) {
        return -1;
    }

    if (!ndksim_uses_both_address_kinds()) {
        return -1;
    }

    sum =
        (int)(sizeof(MDL) + sizeof(NDK_OBJECT_HEADER) + sizeof(NDK_RESULT_EX) + sizeof(NDK_SGE) +
              sizeof(NDK_ADAPTER_INFO) + sizeof(SOCKADDR_INET) + sizeof(NDK_CONNECTOR_DISPATCH) +
              sizeof(NDK_QP) + sizeof(NDIS_NDK_CAPABILITIES) + sizeof(KEVENT) + sizeof(KSPIN_LOCK) +
              sizeof(KLOCK_QUEUE_HANDLE) + sizeof(KWAIT_BLOCK) + sizeof(LIST_ENTRY));
    return sum;
}
