// NDK_MR_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/mr.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseMr(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::mr, done, ctx, "NdkCloseMr");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::mr, "NdkQueryExtension(mr)");
}

NTSTATUS NdkRegisterMr(NDK_MR*, MDL*, SIZE_T, ULONG, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_MR_DISPATCH.NdkRegisterMr");
}

NTSTATUS NdkDeregisterMr(NDK_MR*, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_MR_DISPATCH.NdkDeregisterMr");
}

NTSTATUS NdkInitializeFastRegisterMr(NDK_MR*, ULONG, BOOLEAN, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_MR_DISPATCH.NdkInitializeFastRegisterMr");
}

UINT32 NdkGetRemoteTokenFromMr(NDK_MR*) {
    not_implemented("NDK_MR_DISPATCH.NdkGetRemoteTokenFromMr");
    return 0;
}

UINT32 NdkGetLocalTokenFromMr(NDK_MR*) {
    not_implemented("NDK_MR_DISPATCH.NdkGetLocalTokenFromMr");
    return 0;
}

}  // namespace

const NDK_MR_DISPATCH k_mr_dispatch = {
    NdkCloseMr,
    NdkQueryExtension,
    NdkRegisterMr,
    NdkDeregisterMr,
    NdkInitializeFastRegisterMr,
    NdkGetRemoteTokenFromMr,
    NdkGetLocalTokenFromMr,
};

}  // namespace ndksim::api
