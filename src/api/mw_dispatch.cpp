// SPDX-License-Identifier: MIT
// NDK_MW_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "core/device.hpp"
#include "core/mw.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseMw(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::mw, done, ctx, "NdkCloseMw");
}

UINT32 NdkGetRemoteTokenFromMw(NDK_MW* pNdkMw) {
    auto* w = from_ndk<core::mw>(pNdkMw, object_kind::mw, "NdkGetRemoteTokenFromMw");
    return w == nullptr ? 0 : w->dev().memory().window_token(w->window());
}

}  // namespace

const NDK_MW_DISPATCH k_mw_dispatch = {NdkCloseMw, query_extension_of<object_kind::mw>,
                                       NdkGetRemoteTokenFromMw};

}  // namespace ndksim::api
