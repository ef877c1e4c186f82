// SPDX-License-Identifier: MIT
// NDK_SRQ_DISPATCH.

#include "api/abi.hpp"
#include "api/context_check.hpp"
#include "api/dispatch_tables.hpp"
#include "core/device.hpp"
#include "core/srq.hpp"
#include "util/refusal.hpp"
#include "util/verifier.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

static_assert(sizeof(NDK_SGE) == sizeof(core::sge));
static_assert(offsetof(NDK_SGE, VirtualAddress) == offsetof(core::sge, address));
static_assert(offsetof(NDK_SGE, Length) == offsetof(core::sge, length));
static_assert(offsetof(NDK_SGE, MemoryRegionToken) == offsetof(core::sge, token));

core::srq* to_srq(NDK_SRQ* s, const char* fn) {
    return from_ndk<core::srq>(s, object_kind::srq, fn);
}

NTSTATUS NdkCloseSrq(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::srq, done, ctx, "NdkCloseSrq");
}

NTSTATUS NdkModifySrq(NDK_SRQ* pNdkSrq, ULONG SrqDepth, ULONG NotifyThreshold,
                      NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    constexpr const char* fn = "NdkModifySrq";
    return guarded(fn, [&]() -> NTSTATUS {
        core::srq* s = to_srq(pNdkSrq, fn);
        if (s == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (RequestCompletion == nullptr) {
            return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
        }
        status result = s->check_modify(SrqDepth);
        if (result == status::success) {
            result = s->apply_modify(SrqDepth, NotifyThreshold);
        }
        if (result != status::success) {
            NDKSIM_DEBUG("{}: {} depth {} refused: {}", s->ident(), fn, SrqDepth, result);
            return to_nt(s->dev().refusals().record(s->ident(), fn, result));
        }
        return to_nt(s->finish_request(status::success,
                                       bind_request(RequestCompletion, RequestContext),
                                       s->dev().limits().control_latency_ps));
    });
}

NTSTATUS NdkSrqReceive(NDK_SRQ* pNdkSrq, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge) {
    constexpr const char* fn = "NdkSrqReceive";
    core::srq* s = to_srq(pNdkSrq, fn);
    if (s == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const verifier::section_guard serial(s->dev().verifier(), s->post_section,
                                         verifier::rule::concurrent_post, s->ident(), fn);
    // Rule 11: nSge is bounded by the SRQ's MaxReceiveRequestSge.
    if (nSge > s->max_sge()) {
        refusal::because(verifier::rule::sge_count,
                         "rule 11: nSge exceeds the SRQ's MaxReceiveRequestSge");
        return to_nt(s->dev().refusals().record(s->ident(), fn, status::invalid_parameter));
    }
    if (pSgl == nullptr && nSge != 0) {
        return consumer_error(fn, "pSgl is NULL", status::invalid_parameter);
    }
    // receive_queue::post copies the SGEs bytewise; the layouts match (static_asserts above).
    const context_check reuse(*s, s->queue_id(), "SRQ", RequestContext, false, fn);
    const status r =
        reuse.finish(s->post(RequestContext, reinterpret_cast<const core::sge*>(pSgl), nSge));
    if (r != status::success) {
        s->dev().refusals().record(s->ident(), fn, r);
    }
    return to_nt(r);
}

}  // namespace

const NDK_SRQ_DISPATCH k_srq_dispatch = {NdkCloseSrq, query_extension_of<object_kind::srq>,
                                         NdkModifySrq, NdkSrqReceive};

}  // namespace ndksim::api
