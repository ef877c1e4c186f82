// NDK_MW_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/mw.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseMw(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::mw, done, ctx, "NdkCloseMw");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::mw, "NdkQueryExtension(mw)");
}

UINT32 NdkGetRemoteTokenFromMw(NDK_MW*) {
    not_implemented("NDK_MW_DISPATCH.NdkGetRemoteTokenFromMw");
    return 0;
}

}  // namespace

const NDK_MW_DISPATCH k_mw_dispatch = {NdkCloseMw, NdkQueryExtension, NdkGetRemoteTokenFromMw};

}  // namespace ndksim::api
