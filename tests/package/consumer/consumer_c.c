/* SPDX-License-Identifier: MIT */
/* C11 half of the package test: plain <ndkpi.h>, as Windows consumer code includes it. */
#include <ndkpi.h>
#include <ndksim/ndksim.h>

/* Opens a handle on `adapter`, reads its NDK_ADAPTER_INFO and returns its MaxCqDepth (0 on
 * failure). */
ULONG consumer_c_max_cq_depth(ndksim_adapter* adapter) {
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS params = {0};
    NDK_ADAPTER* handle = NULL;
    NDK_ADAPTER_INFO info;
    ULONG size = sizeof(info);
    ULONG depth = 0;
    params.Version.Major = 2;
    params.Version.Minor = 1;
    if (ndksim_open_ndk_adapter(adapter, &params, &handle) != NDIS_STATUS_SUCCESS) {
        return 0;
    }
    if (handle->Dispatch->NdkQueryAdapterInfo(handle, &info, &size) == STATUS_SUCCESS) {
        depth = info.MaxCqDepth;
    }
    ndksim_close_ndk_adapter(adapter, handle);
    return depth;
}
