// NDK_CQ_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

core::cq* to_cq(NDK_CQ* c, const char* fn) { return from_ndk<core::cq>(c, object_kind::cq, fn); }

NTSTATUS NdkCloseCq(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::cq, done, ctx, "NdkCloseCq");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::cq, "NdkQueryExtension(cq)");
}

NTSTATUS NdkResizeCq(NDK_CQ* pNdkCq, ULONG CqDepth, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                     PVOID RequestContext) {
    constexpr const char* fn = "NdkResizeCq";
    core::cq* c = to_cq(pNdkCq, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    const status s = c->check_resize(CqDepth);
    if (s != status::success) {
        NDKSIM_DEBUG("{}: {} to {} refused: {}", c->ident(), fn, CqDepth, s);
        return to_nt(s);
    }
    c->apply_resize(CqDepth);
    return to_nt(c->finish_request(
        status::success,
        [RequestCompletion, RequestContext](status r) { RequestCompletion(RequestContext, to_nt(r)); },
        c->dev().limits().control_latency_ps));
}

VOID NdkArmCq(NDK_CQ*, ULONG) { not_implemented("NDK_CQ_DISPATCH.NdkArmCq"); }

ULONG NdkGetCqResults(NDK_CQ*, NDK_RESULT*, ULONG) {
    not_implemented("NDK_CQ_DISPATCH.NdkGetCqResults");
    return 0;
}

NTSTATUS NdkControlCqInterruptModeration(NDK_CQ* pNdkCq, ULONG ModerationInterval,
                                         ULONG ModerationCount) {
    constexpr const char* fn = "NdkControlCqInterruptModeration";
    core::cq* c = to_cq(pNdkCq, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const status s = c->check_moderation(ModerationInterval, ModerationCount);
    if (s == status::success) {
        c->apply_moderation(ModerationInterval, ModerationCount);
    }
    return to_nt(s);
}

ULONG NdkGetCqResultsEx(NDK_CQ*, NDK_RESULT_EX*, ULONG) {
    not_implemented("NDK_CQ_DISPATCH.NdkGetCqResultsEx");
    return 0;
}

}  // namespace

const NDK_CQ_DISPATCH k_cq_dispatch = {
    NdkCloseCq,      NdkQueryExtension,
    NdkResizeCq,     NdkArmCq,
    NdkGetCqResults, NdkControlCqInterruptModeration,
    NdkGetCqResultsEx,
};

}  // namespace ndksim::api
