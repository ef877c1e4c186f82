/* SPDX-License-Identifier: MIT */
/*
 * rsock_provider.c - reaching NDK adapters through Winsock Kernel.
 *
 * A kernel consumer does not talk to NDIS miniports: it registers as a WSK client, captures the
 * WSK provider, asks it for the NDK extension, and opens adapters by interface index. The index
 * behind an IP address comes from the IP helper's unicast address table.
 */
#include "rsock_internal.h"

PDEVICE_OBJECT RsockDevice;
WSK_PROVIDER_NDK_DISPATCH RsockNdk;
PWSK_CLIENT RsockWskClient;

static WSK_REGISTRATION RsockWskRegistration;
static WSK_PROVIDER_NPI RsockWskProvider;
static const WSK_CLIENT_DISPATCH RsockWskDispatch = {MAKE_WSK_VERSION(1, 0), 0, NULL};
static DECLARE_CONST_UNICODE_STRING(RsockDeviceName, L"\\Device\\RdmaSockets");

#ifdef ALLOC_PRAGMA
#pragma alloc_text(PAGE, RsockStartup)
#pragma alloc_text(PAGE, RsockShutdown)
#pragma alloc_text(PAGE, RsockOpenAdapter)
#pragma alloc_text(PAGE, RsockCloseAdapter)
#endif

NTSTATUS RsockStartup(_In_ PDRIVER_OBJECT DriverObject) {
    WSK_CLIENT_NPI client = {NULL, &RsockWskDispatch};
    NTSTATUS status;
    PAGED_CODE();

    status = IoCreateDevice(DriverObject, 0, (PUNICODE_STRING)&RsockDeviceName, FILE_DEVICE_NETWORK,
                            FILE_DEVICE_SECURE_OPEN, FALSE, &RsockDevice);
    if (!NT_SUCCESS(status)) {
        return status;
    }
    status = WskRegister(&client, &RsockWskRegistration);
    if (!NT_SUCCESS(status)) {
        IoDeleteDevice(RsockDevice);
        return status;
    }
    status = WskCaptureProviderNPI(&RsockWskRegistration, WSK_INFINITE_WAIT, &RsockWskProvider);
    if (!NT_SUCCESS(status)) {
        WskDeregister(&RsockWskRegistration);
        IoDeleteDevice(RsockDevice);
        return status;
    }
    RsockWskClient = RsockWskProvider.Client;
    status = RsockWskProvider.Dispatch->WskControlClient(
        RsockWskClient, WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH, 0, NULL, sizeof(RsockNdk), &RsockNdk,
        NULL, NULL);
    if (!NT_SUCCESS(status)) {
        KdPrint(("rsock: the WSK provider has no NDK extension (%#x)\n", (unsigned)status));
        RsockShutdown();
        return status;
    }
    KdPrint(("rsock: WSK provider version %u.%u offers the NDK extension\n",
             (unsigned)WSK_MAJOR_VERSION(RsockWskProvider.Dispatch->Version),
             (unsigned)WSK_MINOR_VERSION(RsockWskProvider.Dispatch->Version)));
    return STATUS_SUCCESS;
}

VOID RsockShutdown(VOID) {
    PAGED_CODE();
    if (RsockWskClient != NULL) {
        WskReleaseProviderNPI(&RsockWskRegistration);
        RsockWskClient = NULL;
    }
    WskDeregister(&RsockWskRegistration);
    if (RsockDevice != NULL) {
        IoDeleteDevice(RsockDevice);
        RsockDevice = NULL;
    }
}

/* The interface that owns the IPv4 address Address, from the unicast address table. */
static NTSTATUS RsockFindInterface(_In_ ULONG Address, _Out_ PNET_IFINDEX IfIndex) {
    PMIB_UNICASTIPADDRESS_TABLE table = NULL;
    NTSTATUS status = GetUnicastIpAddressTable(AF_INET, &table);
    ULONG i;
    if (!NT_SUCCESS(status)) {
        return status;
    }
    status = STATUS_NOT_FOUND;
    for (i = 0; i < table->NumEntries; ++i) {
        const MIB_UNICASTIPADDRESS_ROW* row = &table->Table[i];
        if (row->Address.si_family == AF_INET && row->Address.Ipv4.sin_addr.s_addr == Address) {
            *IfIndex = row->InterfaceIndex;
            status = STATUS_SUCCESS;
            break;
        }
    }
    FreeMibTable(table);
    return status;
}

NTSTATUS RsockOpenAdapter(_In_ ULONG Address, _Outptr_ PRSOCK_ADAPTER* Adapter) {
    PRSOCK_ADAPTER adapter;
    RSOCK_REQUEST request;
    NDK_ADAPTER_INFO info;
    ULONG infoSize = sizeof(info);
    NTSTATUS status;
    PAGED_CODE();

    *Adapter = NULL;
    adapter =
        (PRSOCK_ADAPTER)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*adapter), RSOCK_POOL_TAG);
    if (adapter == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    adapter->Address = Address;
    status = RsockFindInterface(Address, &adapter->IfIndex);
    if (NT_SUCCESS(status)) {
        /* NDKPI 1.2, the version NdkGetCqResultsEx and the 1.2 flags need; 2.x accepts it too. */
        NDK_VERSION version;
        version.Major = 1;
        version.Minor = 2;
        status =
            RsockNdk.WskOpenNdkAdapter(RsockWskClient, version, adapter->IfIndex, &adapter->Ndk);
    }
    if (!NT_SUCCESS(status)) {
        ExFreePoolWithTag(adapter, RSOCK_POOL_TAG);
        return status;
    }

    /* NdkQueryAdapterInfo blocks, so it is a PASSIVE_LEVEL call. */
    RtlZeroMemory(&info, sizeof(info));
    status = adapter->Ndk->Dispatch->NdkQueryAdapterInfo(adapter->Ndk, &info, &infoSize);
    if (NT_SUCCESS(status)) {
        adapter->MaxInlineData = info.MaxInlineDataSize;
        RsockRequestInit(&request);
        status = adapter->Ndk->Dispatch->NdkCreatePd(adapter->Ndk, RsockCreateDone, &request,
                                                     &adapter->Pd);
        status = RsockRequestWait(&request, status);
        if (NT_SUCCESS(status) && adapter->Pd == NULL) {
            adapter->Pd = (NDK_PD*)request.Object;
        }
    }
    if (!NT_SUCCESS(status)) {
        RsockNdk.WskCloseNdkAdapter(RsockWskClient, adapter->Ndk);
        ExFreePoolWithTag(adapter, RSOCK_POOL_TAG);
        return status;
    }
    adapter->Pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(adapter->Pd,
                                                             &adapter->PrivilegedToken);
    *Adapter = adapter;
    return STATUS_SUCCESS;
}

VOID RsockCloseAdapter(_In_ PRSOCK_ADAPTER Adapter) {
    PAGED_CODE();
    RsockCloseObject(&Adapter->Pd->Header);
    RsockNdk.WskCloseNdkAdapter(RsockWskClient, Adapter->Ndk);
    ExFreePoolWithTag(Adapter, RSOCK_POOL_TAG);
}
