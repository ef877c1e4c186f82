// SPDX-License-Identifier: MIT
// NDK_PD_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/mr.hpp"
#include "core/mw.hpp"
#include "core/pd.hpp"
#include "core/qp.hpp"
#include "core/srq.hpp"
#include "nic/engine.hpp"
#include "nic/post.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

core::pd* to_pd(NDK_PD* p, const char* fn) {
    return from_ndk<core::pd>(p, object_kind::pd, fn);
}

NTSTATUS NdkClosePd(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::pd, done, ctx, "NdkClosePd");
}

NTSTATUS NdkCreateMr(NDK_PD* pNdkPd, BOOLEAN FastRegister,
                     NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                     NDK_MR** ppNdkMr) {
    constexpr const char* fn = "NdkCreateMr";
    return guarded(fn, [&]() -> NTSTATUS {
        core::pd* p = to_pd(pNdkPd, fn);
        if (p == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkMr == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkMr is NULL",
                                  status::invalid_parameter);
        }
        core::ref<core::mr> mr;
        if (const status s = core::mr::create(*p, FastRegister != FALSE, mr);
            s != status::success) {
            p->dev().refusals().record(p->ident(), fn, s);
            return to_nt(s);
        }
        auto* pub = init_head<NDK_MR>(*mr, &k_mr_dispatch);
        return deliver_create(std::move(mr), pub, CreateCompletion, RequestContext, ppNdkMr);
    });
}

NTSTATUS NdkCreateMw(NDK_PD* pNdkPd, NDK_FN_CREATE_COMPLETION CreateCompletion,
                     PVOID RequestContext, NDK_MW** ppNdkMw) {
    constexpr const char* fn = "NdkCreateMw";
    return guarded(fn, [&]() -> NTSTATUS {
        core::pd* p = to_pd(pNdkPd, fn);
        if (p == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkMw == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkMw is NULL",
                                  status::invalid_parameter);
        }
        core::ref<core::mw> mw;
        if (const status s = core::mw::create(*p, mw); s != status::success) {
            p->dev().refusals().record(p->ident(), fn, s);
            return to_nt(s);
        }
        auto* pub = init_head<NDK_MW>(*mw, &k_mw_dispatch);
        return deliver_create(std::move(mw), pub, CreateCompletion, RequestContext, ppNdkMw);
    });
}

NTSTATUS NdkCreateSrq(NDK_PD* pNdkPd, ULONG SrqDepth, ULONG MaxReceiveRequestSge,
                      ULONG NotifyThreshold, NDK_FN_SRQ_NOTIFICATION_CALLBACK SrqNotification,
                      PVOID SrqNotificationContext, GROUP_AFFINITY* /*Affinity: hint only*/,
                      NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                      NDK_SRQ** ppNdkSrq) {
    constexpr const char* fn = "NdkCreateSrq";
    return guarded(fn, [&]() -> NTSTATUS {
        core::pd* p = to_pd(pNdkPd, fn);
        if (p == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkSrq == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkSrq is NULL",
                                  status::invalid_parameter);
        }
        const status s = core::srq::check_create(p->dev().limits(), SrqDepth, MaxReceiveRequestSge);
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} depth {} sge {} refused: {}", p->ident(), fn, SrqDepth,
                         MaxReceiveRequestSge, s);
            return to_nt(p->dev().refusals().record(p->ident(), fn, s));
        }
        auto srq = core::srq::create(*p, SrqDepth, MaxReceiveRequestSge, NotifyThreshold,
                                     bind_notification("NDK_FN_SRQ_NOTIFICATION_CALLBACK",
                                                       SrqNotification, SrqNotificationContext));
        auto* pub = init_head<NDK_SRQ>(*srq, &k_srq_dispatch);
        return deliver_create(std::move(srq), pub, CreateCompletion, RequestContext, ppNdkSrq);
    });
}

NTSTATUS create_qp(const char* fn, NDK_PD* pNdkPd, NDK_CQ* pReceiveCq, NDK_CQ* pInitiatorCq,
                   NDK_SRQ* pSrq, bool with_srq, const core::qp_params& params,
                   NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                   NDK_QP** ppNdkQp) {
    return guarded(fn, [&]() -> NTSTATUS {
        core::pd* p = to_pd(pNdkPd, fn);
        core::cq* rcq = from_ndk<core::cq>(pReceiveCq, object_kind::cq, fn);
        core::cq* icq = from_ndk<core::cq>(pInitiatorCq, object_kind::cq, fn);
        core::srq* srq = with_srq ? from_ndk<core::srq>(pSrq, object_kind::srq, fn) : nullptr;
        if (p == nullptr || rcq == nullptr || icq == nullptr || (with_srq && srq == nullptr)) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkQp == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkQp is NULL",
                                  status::invalid_parameter);
        }
        const status s = core::qp::check_create(p->dev().limits(), *p, *rcq, *icq, srq, params);
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} refused: {} (rq {} iq {} rsge {} isge {} inline {})", p->ident(),
                         fn, s, params.receive_queue_depth, params.initiator_queue_depth,
                         params.max_receive_request_sge, params.max_initiator_request_sge,
                         params.inline_data_size);
            return to_nt(p->dev().refusals().record(p->ident(), fn, s));
        }
        core::ref<core::qp> qp;
        if (const status c = core::qp::create(*p, *rcq, *icq, srq, params, qp);
            c != status::success) {
            p->dev().refusals().record(p->ident(), fn, c);
            return to_nt(c);
        }
        nic::engine_of(*qp).attach_qp(*qp);
        auto* pub = init_head<NDK_QP>(*qp, &k_qp_dispatch);
        return deliver_create(std::move(qp), pub, CreateCompletion, RequestContext, ppNdkQp);
    });
}

NTSTATUS NdkCreateQp(NDK_PD* pNdkPd, NDK_CQ* pReceiveCq, NDK_CQ* pInitiatorCq, PVOID QPContext,
                     ULONG ReceiveQueueDepth, ULONG InitiatorQueueDepth, ULONG MaxReceiveRequestSge,
                     ULONG MaxInitiatorRequestSge, ULONG InlineDataSize,
                     NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                     NDK_QP** ppNdkQp) {
    const core::qp_params params{QPContext,
                                 ReceiveQueueDepth,
                                 InitiatorQueueDepth,
                                 MaxReceiveRequestSge,
                                 MaxInitiatorRequestSge,
                                 InlineDataSize};
    return create_qp("NdkCreateQp", pNdkPd, pReceiveCq, pInitiatorCq, nullptr, false, params,
                     CreateCompletion, RequestContext, ppNdkQp);
}

NTSTATUS NdkCreateQpWithSrq(NDK_PD* pNdkPd, NDK_CQ* pReceiveCq, NDK_CQ* pInitiatorCq, NDK_SRQ* pSrq,
                            PVOID QPContext, ULONG InitiatorQueueDepth,
                            ULONG MaxInitiatorRequestSge, ULONG InlineDataSize,
                            NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                            NDK_QP** ppNdkQp) {
    const core::qp_params params{QPContext,     0, InitiatorQueueDepth, 0, MaxInitiatorRequestSge,
                                 InlineDataSize};
    return create_qp("NdkCreateQpWithSrq", pNdkPd, pReceiveCq, pInitiatorCq, pSrq, true, params,
                     CreateCompletion, RequestContext, ppNdkQp);
}

VOID NdkGetPrivilegedMemoryRegionToken(NDK_PD* pNdkPd, UINT32* pToken) {
    constexpr const char* fn = "NdkGetPrivilegedMemoryRegionToken";
    core::pd* p = to_pd(pNdkPd, fn);
    if (pToken == nullptr) {
        consumer_error(fn, "pToken is NULL", status::invalid_parameter);
        return;
    }
    *pToken = p == nullptr ? 0 : p->dev().memory().privileged_token(p->memory_pd());
}

}  // namespace

const NDK_PD_DISPATCH k_pd_dispatch = {
    NdkClosePd,         query_extension_of<object_kind::pd>,
    NdkCreateMr,        NdkCreateMw,
    NdkCreateSrq,       NdkCreateQp,
    NdkCreateQpWithSrq, NdkGetPrivilegedMemoryRegionToken,
};

}  // namespace ndksim::api
