// SPDX-License-Identifier: MIT
// NDK_CQ_DISPATCH.

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "ndksim_verifier.h"
#include "util/verifier.hpp"

namespace ndksim::api {
namespace {

static_assert(NDK_CQ_NOTIFY_ERRORS == static_cast<int>(core::notify_type::errors));
static_assert(NDK_CQ_NOTIFY_ANY == static_cast<int>(core::notify_type::any));
static_assert(NDK_CQ_NOTIFY_SOLICITED == static_cast<int>(core::notify_type::solicited));
// NDK_RESULT_EX.Type is core::op_type's value (REFERENCE.md 2.2).
static_assert(NdkOperationTypeReceive == static_cast<int>(core::op_type::receive));
static_assert(NdkOperationTypeReceiveAndInvalidate ==
              static_cast<int>(core::op_type::receive_and_invalidate));
static_assert(NdkOperationTypeSend == static_cast<int>(core::op_type::send));
static_assert(NdkOperationTypeFastRegister == static_cast<int>(core::op_type::fast_register));
static_assert(NdkOperationTypeBind == static_cast<int>(core::op_type::bind));
static_assert(NdkOperationTypeInvalidate == static_cast<int>(core::op_type::invalidate));
static_assert(NdkOperationTypeRead == static_cast<int>(core::op_type::read));
static_assert(NdkOperationTypeWrite == static_cast<int>(core::op_type::write));

using core::object_kind;

core::cq* to_cq(NDK_CQ* c, const char* fn) {
    return from_ndk<core::cq>(c, object_kind::cq, fn);
}

NTSTATUS NdkCloseCq(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::cq, done, ctx, "NdkCloseCq");
}

NTSTATUS NdkResizeCq(NDK_CQ* pNdkCq, ULONG CqDepth, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                     PVOID RequestContext) {
    constexpr const char* fn = "NdkResizeCq";
    return guarded(fn, [&]() -> NTSTATUS {
        core::cq* c = to_cq(pNdkCq, fn);
        if (c == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (RequestCompletion == nullptr) {
            return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
        }
        status s = c->check_resize(CqDepth);
        if (s == status::success) {
            s = c->apply_resize(CqDepth);
        }
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} to {} refused: {}", c->ident(), fn, CqDepth, s);
            return to_nt(c->dev().refusals().record(c->ident(), fn, s));
        }
        return to_nt(c->finish_request(status::success,
                                       bind_request(RequestCompletion, RequestContext),
                                       c->dev().limits().control_latency_ps));
    });
}

VOID NdkArmCq(NDK_CQ* pNdkCq, ULONG Type) {
    constexpr const char* fn = "NdkArmCq";
    (void)guarded(fn, [&]() -> NTSTATUS {
        core::cq* c = to_cq(pNdkCq, fn);
        if (c == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        const verifier::section_guard serial(c->dev().verifier(), c->poll_section,
                                             verifier::rule::concurrent_poll, c->ident(), fn);
        if (Type >= core::k_notify_type_count) {
            return consumer_error(fn, "Type is not an NDK_CQ_NOTIFY_* value",
                                  status::invalid_parameter);
        }
        c->arm(static_cast<core::notify_type>(Type));
        return STATUS_SUCCESS;
    });
}

// The fields NDK_RESULT and NDK_RESULT_EX share (NDK_RESULT_EX starts with them).
template <class Result>
void fill_common(Result& r, const core::completion& e) noexcept {
    r.Status = e.status;
    r.BytesTransferred = e.bytes_transferred;
    r.QPContext = e.qp_context;
    r.RequestContext = e.request_context;
}

void fill(NDK_RESULT& r, const core::completion& e, bool /*poison*/) noexcept {
    fill_common(r, e);
}

void fill(NDK_RESULT_EX& r, const core::completion& e, bool poison) noexcept {
    fill_common(r, e);
    r.Type = static_cast<NDK_OPERATION_TYPE>(e.type);
    // ns-ndkpi-_ndk_result_ex.md: ProviderErrorCode must be zero when Status is success.
    r.ProviderErrorCode = e.status == STATUS_SUCCESS ? 0 : e.provider_error;
    r.TypeSpecificCompletionOutput = e.type_specific;
    if (poison) [[unlikely]] {
        // The verifier's result_ex_undefined_field: BytesTransferred is defined for receives
        // only, TypeSpecificCompletionOutput for ReceiveAndInvalidate only (REFERENCE.md 3), so
        // a consumer reading either elsewhere sees an implausible value at once.
        const bool receive = (r.Type & NdkOperationTypeReceive) != 0;
        if (!receive) {
            r.BytesTransferred = NDKSIM_VERIFIER_POISON;
        }
        if (r.Type != NdkOperationTypeReceiveAndInvalidate) {
            r.TypeSpecificCompletionOutput = NDKSIM_VERIFIER_POISON;
        }
    }
}

// Rule 16: every completion, ReceiveAndInvalidate included, is retrievable through both
// entries; NDK_RESULT simply has no room for Type and the invalidated token.
template <class Result>
ULONG get_results(const char* fn, NDK_CQ* pNdkCq, Result* Results, ULONG nResults) {
    core::cq* c = to_cq(pNdkCq, fn);
    if (c == nullptr) {
        return 0;
    }
    if (Results == nullptr && nResults != 0) {
        consumer_error(fn, "Results is NULL", status::invalid_parameter);
        return 0;
    }
    const verifier::checker& v = c->dev().verifier();
    const verifier::section_guard serial(v, c->poll_section, verifier::rule::concurrent_poll,
                                         c->ident(), fn);
    const bool poison = v.on();
    return c->poll(nResults,
                   [Results, poison](std::uint32_t i, const core::completion& e) noexcept {
                       fill(Results[i], e, poison);
                   });
}

ULONG NdkGetCqResults(NDK_CQ* pNdkCq, NDK_RESULT* Results, ULONG nResults) {
    return get_results("NdkGetCqResults", pNdkCq, Results, nResults);
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

ULONG NdkGetCqResultsEx(NDK_CQ* pNdkCq, NDK_RESULT_EX* Results, ULONG nResults) {
    return get_results("NdkGetCqResultsEx", pNdkCq, Results, nResults);
}

}  // namespace

const NDK_CQ_DISPATCH k_cq_dispatch = {
    NdkCloseCq,      query_extension_of<object_kind::cq>, NdkResizeCq,       NdkArmCq,
    NdkGetCqResults, NdkControlCqInterruptModeration,     NdkGetCqResultsEx,
};

}  // namespace ndksim::api
