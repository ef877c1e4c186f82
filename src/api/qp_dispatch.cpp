// NDK_QP_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/qp.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseQp(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::qp, done, ctx, "NdkCloseQp");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::qp, "NdkQueryExtension(qp)");
}

VOID NdkFlush(NDK_QP*) { not_implemented("NDK_QP_DISPATCH.NdkFlush"); }

NTSTATUS NdkSend(NDK_QP*, PVOID, const NDK_SGE*, ULONG, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkSend");
}

NTSTATUS NdkReceive(NDK_QP*, PVOID, const NDK_SGE*, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkReceive");
}

NTSTATUS NdkBind(NDK_QP*, PVOID, NDK_MR*, NDK_MW*, PVOID, SIZE_T, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkBind");
}

NTSTATUS NdkFastRegister(NDK_QP*, PVOID, NDK_MR*, ULONG, const NDK_LOGICAL_ADDRESS*, ULONG,
                         SIZE_T, PVOID, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkFastRegister");
}

NTSTATUS NdkInvalidate(NDK_QP*, PVOID, NDK_OBJECT_HEADER*, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkInvalidate");
}

NTSTATUS NdkRead(NDK_QP*, PVOID, const NDK_SGE*, ULONG, UINT64, UINT32, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkRead");
}

NTSTATUS NdkWrite(NDK_QP*, PVOID, const NDK_SGE*, ULONG, UINT64, UINT32, ULONG) {
    return not_implemented("NDK_QP_DISPATCH.NdkWrite");
}

NTSTATUS NdkSendAndInvalidate(NDK_QP*, PVOID, const NDK_SGE*, ULONG, ULONG, UINT32) {
    return not_implemented("NDK_QP_DISPATCH.NdkSendAndInvalidate");
}

}  // namespace

const NDK_QP_DISPATCH k_qp_dispatch = {
    NdkCloseQp, NdkQueryExtension, NdkFlush, NdkSend, NdkReceive,           NdkBind,
    NdkFastRegister, NdkInvalidate, NdkRead, NdkWrite, NdkSendAndInvalidate,
};

}  // namespace ndksim::api
