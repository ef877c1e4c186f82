// NDK_SRQ_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/device.hpp"
#include "core/srq.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseSrq(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::srq, done, ctx, "NdkCloseSrq");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::srq, "NdkQueryExtension(srq)");
}

NTSTATUS NdkModifySrq(NDK_SRQ* pNdkSrq, ULONG SrqDepth, ULONG NotifyThreshold,
                      NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    constexpr const char* fn = "NdkModifySrq";
    core::srq* s = from_ndk<core::srq>(pNdkSrq, object_kind::srq, fn);
    if (s == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    const status check = s->check_modify(SrqDepth);
    if (check != status::success) {
        NDKSIM_DEBUG("{}: {} depth {} refused: {}", s->ident(), fn, SrqDepth, check);
        return to_nt(check);
    }
    s->apply_modify(SrqDepth, NotifyThreshold);
    return to_nt(s->finish_request(
        status::success,
        [RequestCompletion, RequestContext](status r) { RequestCompletion(RequestContext, to_nt(r)); },
        s->dev().limits().control_latency_ps));
}

NTSTATUS NdkSrqReceive(NDK_SRQ*, PVOID, const NDK_SGE*, ULONG) {
    return not_implemented("NDK_SRQ_DISPATCH.NdkSrqReceive");
}

}  // namespace

const NDK_SRQ_DISPATCH k_srq_dispatch = {NdkCloseSrq, NdkQueryExtension, NdkModifySrq,
                                         NdkSrqReceive};

}  // namespace ndksim::api
