// SPDX-License-Identifier: MIT
// NDK_QP_DISPATCH: work requests. Argument conversion only; the rules are in src/nic/post.cpp.

#include "api/abi.hpp"
#include "api/context_check.hpp"
#include "api/dispatch_tables.hpp"
#include "core/device.hpp"
#include "core/mr.hpp"
#include "core/mw.hpp"
#include "core/qp.hpp"
#include "nic/post.hpp"
#include "util/verifier.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

// NDK_SGE and core::sge are the same 16 bytes (REFERENCE.md section 3), so SGE lists pass
// through without conversion.
static_assert(sizeof(NDK_SGE) == sizeof(core::sge));
static_assert(offsetof(NDK_SGE, Length) == offsetof(core::sge, length));
static_assert(offsetof(NDK_SGE, MemoryRegionToken) == offsetof(core::sge, token));
static_assert(NDK_OP_FLAG_SILENT_SUCCESS == core::op_flag::silent_success);
static_assert(NDK_OP_FLAG_READ_FENCE == core::op_flag::read_fence);
static_assert(NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT == core::op_flag::solicit_event);
static_assert(NDK_OP_FLAG_INLINE == core::op_flag::inline_data);
static_assert(NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE == core::op_flag::read_local_invalidate);
static_assert(NDK_OP_FLAG_DEFER == core::op_flag::defer);

const core::sge* sges_of(const NDK_SGE* sgl) noexcept {
    return reinterpret_cast<const core::sge*>(sgl);
}

core::qp* to_qp(NDK_QP* q, const char* fn) {
    return from_ndk<core::qp>(q, object_kind::qp, fn);
}

// Rule 21: a privileged token grants local access to its own PD's QPs only. Only a count within
// the queue's limit is looked at: a larger one is refused before any entry is read, and says
// nothing about how many entries the array holds.
void verify_sges(const core::qp& q, const NDK_SGE* sgl, ULONG n, ULONG max, const char* fn) {
    if (sgl == nullptr || n > max) {
        return;
    }
    mem::translation_unit& memory = q.dev().memory();
    for (ULONG i = 0; i < n; ++i) {
        const mem::pd_id owner = memory.privileged_owner(sgl[i].MemoryRegionToken);
        if (owner != mem::pd_id::none && owner != q.memory_pd()) {
            q.dev().verifier().raise(
                verifier::rule::privileged_token_foreign_pd, q.ident(), fn, status::success,
                fmt::format("SGE {} carries the privileged token {:#x} of another PD", i,
                            sgl[i].MemoryRegionToken));
            return;
        }
    }
}

// Rule 22: the MR or MW invalidated must belong to the QP's PD. An MR of another PD is refused
// inline (post_invalidate); a window's PD is checked here.
void verify_invalidate_window(const core::qp& q, mem::window_id w) {
    if (q.dev().memory().describe(w).pd != q.memory_pd()) {
        q.dev().verifier().raise(verifier::rule::invalidate_foreign_pd, q.ident(), "NdkInvalidate",
                                 status::success, "the memory window belongs to another PD");
    }
}

using verifier::rule;
using verifier::section_guard;

constexpr const char* k_initiator_queue = "initiator queue";

bool silent(ULONG flags) noexcept {
    return (flags & NDK_OP_FLAG_SILENT_SUCCESS) != 0;
}

// Rule 17 around a post on the initiator queue.
context_check initiator_check(const core::qp& q, PVOID context, ULONG flags,
                              const char* fn) noexcept {
    return context_check(q, q.initiator_queue_id(), k_initiator_queue, context, silent(flags), fn);
}

NTSTATUS transfer(const char* fn, NDK_QP* pNdkQp, core::wr_kind kind, PVOID RequestContext,
                  const NDK_SGE* pSgl, ULONG nSge, ULONG Flags, UINT64 RemoteAddress,
                  UINT32 RemoteToken) {
    core::qp* q = to_qp(pNdkQp, fn);
    if (q == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const section_guard serial(q->dev().verifier(), q->initiator_section, rule::concurrent_post,
                               q->ident(), fn);
    if (q->dev().verifier().on() && (Flags & NDK_OP_FLAG_INLINE) == 0) [[unlikely]] {
        verify_sges(*q, pSgl, nSge, q->params().max_initiator_request_sge, fn);
    }
    nic::transfer_args a;
    a.context = RequestContext;
    a.sges = sges_of(pSgl);
    a.sge_count = nSge;
    a.flags = Flags;
    a.remote_address = RemoteAddress;
    a.remote_token = RemoteToken;
    const context_check reuse = initiator_check(*q, RequestContext, Flags, fn);
    return to_nt(reuse.finish(nic::post_transfer(nic::engine_of(*q), *q, kind, a)));
}

NTSTATUS NdkCloseQp(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::qp, done, ctx, "NdkCloseQp");
}

VOID NdkFlush(NDK_QP* pNdkQp) {
    if (core::qp* q = to_qp(pNdkQp, "NdkFlush")) {
        nic::flush(nic::engine_of(*q), *q);
    }
}

NTSTATUS NdkSend(NDK_QP* pNdkQp, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge,
                 ULONG Flags) {
    return transfer("NdkSend", pNdkQp, core::wr_kind::send, RequestContext, pSgl, nSge, Flags, 0,
                    0);
}

NTSTATUS NdkReceive(NDK_QP* pNdkQp, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge) {
    core::qp* q = to_qp(pNdkQp, "NdkReceive");
    if (q == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const section_guard serial(q->dev().verifier(), q->receive_section, rule::concurrent_post,
                               q->ident(), "NdkReceive");
    if (q->dev().verifier().on()) [[unlikely]] {
        verify_sges(*q, pSgl, nSge, q->params().max_receive_request_sge, "NdkReceive");
    }
    const context_check reuse(*q, q->receive_queue_id(), "receive queue", RequestContext, false,
                              "NdkReceive");
    return to_nt(reuse.finish(
        nic::post_receive(nic::engine_of(*q), *q, RequestContext, sges_of(pSgl), nSge)));
}

NTSTATUS NdkBind(NDK_QP* pNdkQp, PVOID RequestContext, NDK_MR* pMr, NDK_MW* pMw,
                 PVOID VirtualAddress, SIZE_T Length, ULONG Flags) {
    constexpr const char* fn = "NdkBind";
    core::qp* q = to_qp(pNdkQp, fn);
    auto* mr = from_ndk<core::mr>(pMr, object_kind::mr, fn);
    auto* mw = from_ndk<core::mw>(pMw, object_kind::mw, fn);
    if (q == nullptr || mr == nullptr || mw == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const section_guard serial(q->dev().verifier(), q->initiator_section, rule::concurrent_post,
                               q->ident(), fn);
    const context_check reuse = initiator_check(*q, RequestContext, Flags, fn);
    return to_nt(reuse.finish(
        nic::post_bind(nic::engine_of(*q), *q, RequestContext, mr->region(), mw->window(),
                       reinterpret_cast<std::uintptr_t>(VirtualAddress), Length, Flags)));
}

NTSTATUS NdkFastRegister(NDK_QP* pNdkQp, PVOID RequestContext, NDK_MR* pMr, ULONG AdapterPageCount,
                         const NDK_LOGICAL_ADDRESS* AdapterPageArray, ULONG FBO, SIZE_T Length,
                         PVOID BaseVirtualAddress, ULONG Flags) {
    constexpr const char* fn = "NdkFastRegister";
    core::qp* q = to_qp(pNdkQp, fn);
    auto* mr = from_ndk<core::mr>(pMr, object_kind::mr, fn);
    if (q == nullptr || mr == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const section_guard serial(q->dev().verifier(), q->initiator_section, rule::concurrent_post,
                               q->ident(), fn);
    if (AdapterPageArray == nullptr && AdapterPageCount > 0) {
        return consumer_error(fn, "AdapterPageArray is NULL", status::invalid_parameter);
    }
    static_assert(sizeof(NDK_LOGICAL_ADDRESS) == sizeof(std::uint64_t));
    const std::span<const std::uint64_t> pages(
        reinterpret_cast<const std::uint64_t*>(AdapterPageArray), AdapterPageCount);
    const context_check reuse = initiator_check(*q, RequestContext, Flags, fn);
    return to_nt(reuse.finish(nic::post_fast_register(
        nic::engine_of(*q), *q, RequestContext, mr->region(), pages, FBO, Length,
        reinterpret_cast<std::uintptr_t>(BaseVirtualAddress), Flags)));
}

NTSTATUS NdkInvalidate(NDK_QP* pNdkQp, PVOID RequestContext, NDK_OBJECT_HEADER* pNdkMrOrMw,
                       ULONG Flags) {
    constexpr const char* fn = "NdkInvalidate";
    core::qp* q = to_qp(pNdkQp, fn);
    if (q == nullptr || pNdkMrOrMw == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const section_guard serial(q->dev().verifier(), q->initiator_section, rule::concurrent_post,
                               q->ident(), fn);
    mem::region_id region = mem::region_id::none;
    mem::window_id window = mem::window_id::none;
    if (pNdkMrOrMw->ObjectType == NdkObjectTypeMr) {
        auto* mr = static_cast<core::mr*>(object_from_header(pNdkMrOrMw, object_kind::mr, fn));
        if (mr == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        region = mr->region();
    } else {
        auto* mw = static_cast<core::mw*>(object_from_header(pNdkMrOrMw, object_kind::mw, fn));
        if (mw == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        window = mw->window();
        if (q->dev().verifier().on()) [[unlikely]] {
            verify_invalidate_window(*q, window);
        }
    }
    const context_check reuse = initiator_check(*q, RequestContext, Flags, fn);
    return to_nt(reuse.finish(
        nic::post_invalidate(nic::engine_of(*q), *q, RequestContext, region, window, Flags)));
}

NTSTATUS NdkRead(NDK_QP* pNdkQp, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge,
                 UINT64 RemoteAddress, UINT32 RemoteToken, ULONG Flags) {
    return transfer("NdkRead", pNdkQp, core::wr_kind::read, RequestContext, pSgl, nSge, Flags,
                    RemoteAddress, RemoteToken);
}

NTSTATUS NdkWrite(NDK_QP* pNdkQp, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge,
                  UINT64 RemoteAddress, UINT32 RemoteToken, ULONG Flags) {
    return transfer("NdkWrite", pNdkQp, core::wr_kind::write, RequestContext, pSgl, nSge, Flags,
                    RemoteAddress, RemoteToken);
}

NTSTATUS NdkSendAndInvalidate(NDK_QP* pNdkQp, PVOID RequestContext, const NDK_SGE* pSgl, ULONG nSge,
                              ULONG Flags, UINT32 RemoteToken) {
    return transfer("NdkSendAndInvalidate", pNdkQp, core::wr_kind::send_invalidate, RequestContext,
                    pSgl, nSge, Flags, 0, RemoteToken);
}

}  // namespace

const NDK_QP_DISPATCH k_qp_dispatch = {
    NdkCloseQp,
    query_extension_of<object_kind::qp>,
    NdkFlush,
    NdkSend,
    NdkReceive,
    NdkBind,
    NdkFastRegister,
    NdkInvalidate,
    NdkRead,
    NdkWrite,
    NdkSendAndInvalidate,
};

}  // namespace ndksim::api
