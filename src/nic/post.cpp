// SPDX-License-Identifier: MIT
#include "nic/post.hpp"

#include <cstring>

#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "mem/access.hpp"
#include "nic/engine.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "util/log.hpp"
#include "util/refusal.hpp"

namespace ndksim::nic {
namespace {

// What every initiator post checks first: the QP is connected (rule 10) and has room.
status check_initiator(core::qp& q, core::send_wqe*& slot) {
    if (q.state() != core::qp_state::connected) {
        refusal::because("rule 10: the QP is not connected (never, or no longer)");
        return status::connection_invalid;
    }
    if (q.initiator_cq().overrun() || q.receive_cq().overrun()) {
        // Rule 15: a CQ overrun makes every QP using the CQ unusable, not only the one whose
        // completion overran it.
        refusal::because("rule 15: a CQ of this QP overran");
        return status::connection_invalid;
    }
    slot = q.sq().prepare();
    if (slot == nullptr) {
        refusal::because(verifier::rule::queue_depth,
                         "rule 11: the initiator queue is full (its depth was set by NdkCreateQp)");
        NDKSIM_WARN("{}: initiator queue full ({} requests outstanding)", q.ident(),
                    q.sq().depth());
        return status::insufficient_resources;
    }
    slot->posted_at = q.dev().sched().now();
    return status::success;
}

// Publishes a prepared request and rings the doorbell unless it is deferred (rule 9: DEFER is
// a hint; the doorbell rings with the next request that is not deferred).
status publish(engine& e, core::qp& q, std::uint32_t flags) {
    q.sq().publish();
    qp_context& ctx = context_of(q);
    if ((flags & core::op_flag::defer) != 0) {
        ctx.req.deferred = true;
    } else {
        ctx.req.deferred = false;
        ring_doorbell(e, q);
    }
    return status::success;
}

// An inline failure pushes the deferred requests to the engine (rule 9), and the adapter records
// it with the reason the failing check gave (util/refusal_log.hpp).
status refuse(engine& e, core::qp& q, status s, const char* call) {
    q.dev().refusals().record(q.ident(), call, s);
    qp_context& ctx = context_of(q);
    if (ctx.req.deferred) {
        ctx.req.deferred = false;
        ring_doorbell(e, q);
    }
    return s;
}

}  // namespace

engine& engine_of(core::object& o) noexcept {
    return static_cast<engine&>(*o.dev().hooks());
}

status post_transfer(engine& e, core::qp& q, core::wr_kind kind, const transfer_args& a) {
    const char* what = kind == core::wr_kind::read    ? "NdkRead"
                       : kind == core::wr_kind::write ? "NdkWrite"
                                                      : "NdkSend";
    const core::adapter_limits& limits = e.dev().limits();
    const bool inline_data = (a.flags & core::op_flag::inline_data) != 0;
    if (a.sges == nullptr && a.sge_count > 0) {
        refusal::because("nSge is not 0 but the SGE array is NULL");
        return refuse(e, q, status::invalid_parameter, what);
    }
    // Limits of rule 11: inline requests may exceed the SGE limit but not the inline size. The
    // count is checked before any SGE is read: an nSge above the limit says nothing about how
    // many entries the consumer's array holds, so no entry is read then.
    std::uint64_t length = 0;
    if (inline_data) {
        if (kind == core::wr_kind::read) {
            refusal::because(
                "NDK_OP_FLAG_INLINE on a read: only sends and writes carry inline data");
            return refuse(e, q, status::invalid_parameter, what);
        }
        for (std::uint32_t i = 0; i < a.sge_count && length <= q.params().inline_data_size; ++i) {
            length += a.sges[i].length;
        }
        if (length > q.params().inline_data_size) {
            refusal::because(verifier::rule::inline_size,
                             "rule 11: inline data above the QP's InlineDataSize");
            return refuse(e, q, status::invalid_parameter, what);
        }
    } else {
        std::uint32_t max_sge = q.params().max_initiator_request_sge;
        if (kind == core::wr_kind::read) {
            max_sge = std::min(max_sge, limits.max_read_request_sge);
        }
        if (a.sge_count > max_sge) {
            refusal::because(verifier::rule::sge_count,
                             kind == core::wr_kind::read
                                 ? "rule 11: nSge above the QP's MaxInitiatorRequestSge or the "
                                   "adapter's MaxReadRequestSge"
                                 : "rule 11: nSge above the QP's MaxInitiatorRequestSge");
            return refuse(e, q, status::invalid_parameter, what);
        }
        for (std::uint32_t i = 0; i < a.sge_count; ++i) {
            length += a.sges[i].length;
        }
    }
    if (length > limits.max_transfer_length) {
        refusal::because(verifier::rule::transfer_length,
                         "rule 11: length above the adapter's MaxTransferLength");
        return refuse(e, q, status::invalid_parameter, what);
    }
    core::send_wqe* w = nullptr;
    if (const status s = check_initiator(q, w); s != status::success) {
        return refuse(e, q, s, what);
    }
    w->kind = kind;
    w->flags = a.flags;
    w->context = a.context;
    w->length = length;
    w->remote_address = a.remote_address;
    w->remote_token = a.remote_token;
    if (inline_data) {
        // Inline data is copied now, by the CPU, from the consumer's virtual addresses; the
        // SGE tokens are ignored (REFERENCE.md 2.3, NDK_OP_FLAG_INLINE).
        std::uint64_t offset = 0;
        for (std::uint32_t i = 0; i < a.sge_count; ++i) {
            if (a.sges[i].length > 0) {
                std::memcpy(w->inline_data + offset,
                            reinterpret_cast<const void*>(a.sges[i].address), a.sges[i].length);
                offset += a.sges[i].length;
            }
        }
    } else {
        // An empty list may come as a null pointer (NDK allows NumSge 0). Entry by entry: a
        // call to memcpy for these few bytes stalled on every post (docs/performance.md, "In
        // process, 2026-11-30").
        if (a.sge_count > 0) {
            for (std::uint32_t i = 0; i < a.sge_count; ++i) {
                w->sges[i] = a.sges[i];
            }
            // The first SGE is translated when the requester reaches the WQE, some events
            // from now: with many registered regions its slot would miss the caches then.
            e.dev().memory().prefetch(a.sges[0].token);
        }
        w->sge_count = a.sge_count;
    }
    return publish(e, q, a.flags);
}

status post_bind(engine& e, core::qp& q, void* context, mem::region_id region,
                 mem::window_id window, std::uint64_t va, std::uint64_t length,
                 std::uint32_t flags) {
    core::send_wqe* w = nullptr;
    if (const status s = check_initiator(q, w); s != status::success) {
        return refuse(e, q, s, "NdkBind");
    }
    if (!mem::op_write_flags_consistent(flags)) {
        refusal::because("remote write without local write (docs/rules-beyond-reference.md)");
        return refuse(e, q, status::invalid_parameter, "NdkBind");
    }
    const mem::access rights = mem::access_from_op_flags(flags);
    const mem::token_result t = e.dev().memory().post_bind(
        q.memory_pd(), mem::bind_request{window, region, va, length, rights});
    if (t.st != status::success) {
        return refuse(e, q, t.st, "NdkBind");
    }
    w->kind = core::wr_kind::bind;
    w->flags = flags;
    w->context = context;
    w->region = region;
    w->window = window;
    w->local_va = va;
    w->local_length = length;
    w->rights = rights;
    w->issued_token = t.token;
    return publish(e, q, flags);
}

status post_fast_register(engine& e, core::qp& q, void* context, mem::region_id region,
                          std::span<const std::uint64_t> pages, std::uint32_t fbo,
                          std::uint64_t length, std::uint64_t base_va, std::uint32_t flags) {
    core::send_wqe* w = nullptr;
    if (const status s = check_initiator(q, w); s != status::success) {
        return refuse(e, q, s, "NdkFastRegister");
    }
    if (!mem::op_write_flags_consistent(flags)) {
        refusal::because("remote write without local write (docs/rules-beyond-reference.md)");
        return refuse(e, q, status::invalid_parameter, "NdkFastRegister");
    }
    const mem::access rights = mem::access_from_op_flags(flags);
    const mem::token_result t = e.dev().memory().post_fast_register(
        q.memory_pd(), mem::fast_register_request{region, pages, fbo, length, base_va, rights});
    if (t.st != status::success) {
        return refuse(e, q, t.st, "NdkFastRegister");
    }
    w->kind = core::wr_kind::fast_register;
    w->flags = flags;
    w->context = context;
    w->region = region;
    w->pages.assign(pages.begin(), pages.end());
    w->fbo = fbo;
    w->local_length = length;
    w->local_va = base_va;
    w->rights = rights;
    w->issued_token = t.token;
    return publish(e, q, flags);
}

status post_invalidate(engine& e, core::qp& q, void* context, mem::region_id region,
                       mem::window_id window, std::uint32_t flags) {
    core::send_wqe* w = nullptr;
    if (const status s = check_initiator(q, w); s != status::success) {
        return refuse(e, q, s, "NdkInvalidate");
    }
    if (region != mem::region_id::none) {
        if (const status s = e.dev().memory().post_invalidate(q.memory_pd(), region);
            s != status::success) {
            if (s == status::access_violation) {
                refusal::because(verifier::rule::invalidate_foreign_pd,
                                 "rule 22: the MR belongs to another PD than the QP's");
            }
            return refuse(e, q, s, "NdkInvalidate");
        }
    }
    w->kind = region != mem::region_id::none ? core::wr_kind::invalidate_region
                                             : core::wr_kind::invalidate_window;
    w->flags = flags;
    w->context = context;
    w->region = region;
    w->window = window;
    return publish(e, q, flags);
}

status post_receive(engine& e, core::qp& q, void* context, const core::sge* sges,
                    std::uint32_t count) {
    core::receive_queue* rq = q.rq();
    if (rq == nullptr) {
        refusal::because("the QP was created with an SRQ: receives go to NdkSrqReceive");
        return q.dev().refusals().record(q.ident(), "NdkReceive", status::invalid_device_request);
    }
    const status s = rq->post(context, sges, count);
    if (s != status::success) {
        return q.dev().refusals().record(q.ident(), "NdkReceive", s);
    }
    if (q.state() == core::qp_state::error) {
        flush(e, q);
    }
    return status::success;
}

void flush(engine& e, core::qp& q) {
    core::post_held(q, 0, [&e, qp = &q] { fail_qp(e, *qp); });
}

}  // namespace ndksim::nic
