// SPDX-License-Identifier: MIT
// The NDK extension of the WSK provider (wskndk.h): WskOpenNdkAdapter and WskCloseNdkAdapter.
// They find the simulated adapter by interface index in api's registry and go through the same
// open and close as NDIS's OPEN_NDK_ADAPTER_HANDLER / CLOSE_NDK_ADAPTER_HANDLER.

#include "api/abi.hpp"
#include "api/interface_registry.hpp"
#include "kernel/irql.hpp"
#include "kernel/wsk.hpp"
#include "ndisndk.h"
#include "ndksim.h"
#include "util/log.hpp"

namespace ndksim::kernel::wsk {
namespace {

NTSTATUS WSKAPI WskOpenNdkAdapter(PWSK_CLIENT Client, NDK_VERSION NdkVersion, NET_IFINDEX IfIndex,
                                  NDK_ADAPTER** ppNdkAdapter) {
    constexpr const char* fn = "WskOpenNdkAdapter";
    require_irql_at_most(fn, PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    const call_guard guard(Client, fn);
    if (!guard) {
        return STATUS_INVALID_PARAMETER;
    }
    if (ppNdkAdapter == nullptr) {
        return api::consumer_error(fn, "ppNdkAdapter is NULL", status::invalid_parameter);
    }
    const api::adapter_ref ref = api::interfaces::find_by_index(IfIndex);
    if (!ref) {
        const std::string what =
            fmt::format("interface index {} names no simulated adapter", IfIndex);
        return api::consumer_error(fn, what.c_str(), status::invalid_parameter);
    }
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS params{};
    params.Version = NdkVersion;
    NDK_ADAPTER* handle = nullptr;
    const NDIS_STATUS s = ndksim_open_ndk_adapter(ref.get(), &params, &handle);
    if (s == NDIS_STATUS_BAD_VERSION) {
        const std::string what = fmt::format("NDKPI {}.{} is not implemented by interface {}",
                                             NdkVersion.Major, NdkVersion.Minor, IfIndex);
        return api::consumer_error(fn, what.c_str(), status::not_supported);
    }
    if (s == NDIS_STATUS_RESOURCES) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    if (s != NDIS_STATUS_SUCCESS) {
        return s;
    }
    try {
        add_ndk_adapter(guard.reg(), ndk_handle{handle, IfIndex, ref.identity().luid});
    } catch (const std::bad_alloc&) {
        ndksim_close_ndk_adapter(ref.get(), handle);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    *ppNdkAdapter = handle;
    return STATUS_SUCCESS;
}

VOID WSKAPI WskCloseNdkAdapter(PWSK_CLIENT Client, NDK_ADAPTER* pNdkAdapter) {
    constexpr const char* fn = "WskCloseNdkAdapter";
    require_irql_at_most(fn, PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    const call_guard guard(Client, fn);
    if (!guard) {
        return;
    }
    ndk_handle h{};
    if (!remove_ndk_adapter(guard.reg(), pNdkAdapter, h)) {
        NDKSIM_ERROR(
            "{}: {} was not opened with WskOpenNdkAdapter by this client (or was "
            "closed already)",
            fn, static_cast<const void*>(pNdkAdapter));
        return;
    }
    const api::adapter_ref ref = api::interfaces::find_by_luid(h.luid);
    if (!ref) {
        NDKSIM_ERROR(
            "{}: interface {} was destroyed while {} was open (ndksim_adapter_destroy "
            "closed it then)",
            fn, h.index, static_cast<const void*>(pNdkAdapter));
        return;
    }
    // Objects the consumer left open are leaks of the driver: the close counts them on the
    // simulated adapter, and the driver's unload report must see them too.
    const ULONG leaked_before = ndksim_adapter_leaked_objects(ref.get());
    ndksim_close_ndk_adapter(ref.get(), pNdkAdapter);
    const ULONG leaked_after = ndksim_adapter_leaked_objects(ref.get());
    if (leaked_after > leaked_before) {
        note_leaked_objects(leaked_after - leaked_before);
    }
}

}  // namespace

const WSK_PROVIDER_NDK_DISPATCH k_ndk_dispatch = {WskOpenNdkAdapter, WskCloseNdkAdapter};

}  // namespace ndksim::kernel::wsk
