// SPDX-License-Identifier: MIT
// The WSK provider dispatch table (wsk.h). WskControlClient hands out the NDK extension; the
// socket and name-resolution entries exist with their WDK signatures but are not simulated:
// each refuses with STATUS_NOT_SUPPORTED and a logged refusal, and leaves its IRP alone (the
// simulator has no I/O manager to complete it).

#include <cstring>

#include "api/abi.hpp"
#include "kernel/irql.hpp"
#include "kernel/wsk.hpp"
#include "util/log.hpp"

namespace ndksim::kernel::wsk {
namespace {

constexpr const char* k_no_sockets =
    "WSK sockets and name resolution are not simulated; the IRP is not completed";

// The common body of the entries that are not simulated.
NTSTATUS not_simulated(const char* function, PWSK_CLIENT client) {
    const call_guard guard(client, function);
    if (!guard) {
        return STATUS_INVALID_PARAMETER;
    }
    return api::consumer_error(function, k_no_sockets, status::not_supported);
}

NTSTATUS WSKAPI WskSocket(PWSK_CLIENT Client, ADDRESS_FAMILY, USHORT, ULONG, ULONG, PVOID,
                          const VOID*, PEPROCESS, PETHREAD, PSECURITY_DESCRIPTOR, PIRP) {
    require_irql_at_most("WskSocket", DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    return not_simulated("WskSocket", Client);
}

NTSTATUS WSKAPI WskSocketConnect(PWSK_CLIENT Client, USHORT, ULONG, PSOCKADDR, PSOCKADDR, ULONG,
                                 PVOID, const WSK_CLIENT_CONNECTION_DISPATCH*, PEPROCESS, PETHREAD,
                                 PSECURITY_DESCRIPTOR, PIRP) {
    require_irql_at_most("WskSocketConnect", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    return not_simulated("WskSocketConnect", Client);
}

NTSTATUS WSKAPI WskGetAddressInfo(PWSK_CLIENT Client, PUNICODE_STRING, PUNICODE_STRING, ULONG,
                                  GUID*, PADDRINFOEXW, PADDRINFOEXW*, PEPROCESS, PETHREAD, PIRP) {
    require_irql_at_most("WskGetAddressInfo", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    return not_simulated("WskGetAddressInfo", Client);
}

VOID WSKAPI WskFreeAddressInfo(PWSK_CLIENT Client, PADDRINFOEXW) {
    require_irql_at_most("WskFreeAddressInfo", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    (void)not_simulated("WskFreeAddressInfo", Client);
}

NTSTATUS WSKAPI WskGetNameInfo(PWSK_CLIENT Client, PSOCKADDR, ULONG, PUNICODE_STRING,
                               PUNICODE_STRING, ULONG, PEPROCESS, PETHREAD, PIRP) {
    require_irql_at_most("WskGetNameInfo", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    return not_simulated("WskGetNameInfo", Client);
}

// The NDK extension's rules (wskndk.h): no input, the table as output, synchronous only.
NTSTATUS get_ndk_dispatch(SIZE_T InputSize, SIZE_T OutputSize, PVOID OutputBuffer,
                          SIZE_T* OutputSizeReturned, PIRP Irp) {
    constexpr const char* fn = "WskControlClient(WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH)";
    if (Irp != nullptr) {
        return api::consumer_error(fn, "completing an IRP is not simulated; pass Irp NULL",
                                   status::not_supported);
    }
    if (InputSize != 0) {
        return api::consumer_error(fn, "the operation takes no input (InputSize must be 0)",
                                   status::invalid_parameter);
    }
    if (OutputBuffer == nullptr) {
        return api::consumer_error(fn, "OutputBuffer is NULL", status::invalid_parameter);
    }
    if (OutputSizeReturned != nullptr) {
        *OutputSizeReturned = sizeof(WSK_PROVIDER_NDK_DISPATCH);
    }
    if (OutputSize < sizeof(WSK_PROVIDER_NDK_DISPATCH)) {
        return api::consumer_error(fn, "OutputSize is below sizeof(WSK_PROVIDER_NDK_DISPATCH)",
                                   status::buffer_overflow);
    }
    std::memcpy(OutputBuffer, &k_ndk_dispatch, sizeof(WSK_PROVIDER_NDK_DISPATCH));
    return STATUS_SUCCESS;
}

NTSTATUS WSKAPI WskControlClient(PWSK_CLIENT Client, ULONG ControlCode, SIZE_T InputSize,
                                 PVOID /*InputBuffer*/, SIZE_T OutputSize, PVOID OutputBuffer,
                                 SIZE_T* OutputSizeReturned, PIRP Irp) {
    constexpr const char* fn = "WskControlClient";
    require_irql_at_most(fn, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    const call_guard guard(Client, fn);
    if (!guard) {
        return STATUS_INVALID_PARAMETER;
    }
    if (ControlCode == WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH) {
        return get_ndk_dispatch(InputSize, OutputSize, OutputBuffer, OutputSizeReturned, Irp);
    }
    const std::string what = fmt::format(
        "control code 0x{:08x} is not simulated (only "
        "WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH is); the IRP is not completed",
        ControlCode);
    return api::consumer_error(fn, what.c_str(), status::not_supported);
}

}  // namespace

const WSK_PROVIDER_DISPATCH k_provider_dispatch = {
    k_version,          0,
    WskSocket,          WskSocketConnect,
    WskControlClient,   WskGetAddressInfo,
    WskFreeAddressInfo, WskGetNameInfo,
};

}  // namespace ndksim::kernel::wsk
