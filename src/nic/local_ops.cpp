// SPDX-License-Identifier: MIT
// Local operations of the initiator queue: bind, fast-register and invalidate. Their checks
// that do not depend on earlier requests ran when they were posted (src/mem post halves, with
// the statuses NdkBind/NdkFastRegister return inline); here the execute halves run in queue
// order and their status becomes the request's completion status.

#include "core/device.hpp"
#include "nic/engine.hpp"
#include "nic/pipeline.hpp"

namespace ndksim::nic {

namespace {

status execute(mem::translation_unit& memory, mem::pd_id pd, core::send_wqe& w) {
    switch (w.kind) {
        case core::wr_kind::bind:
            return memory.execute_bind(
                pd, mem::bind_request{w.window, w.region, w.local_va, w.local_length, w.rights},
                w.issued_token);
        case core::wr_kind::fast_register:
            return memory.execute_fast_register(
                pd,
                mem::fast_register_request{w.region, w.pages, w.fbo, w.local_length, w.local_va,
                                           w.rights},
                w.issued_token);
        case core::wr_kind::invalidate_region:
            return memory.execute_invalidate(pd, w.region);
        case core::wr_kind::invalidate_window:
            return memory.execute_invalidate(pd, w.window);
        default:
            return status::internal_error;
    }
}

// Rules 18 and 20: a fast register needs an invalidated (free) MR, a bind an unbound window.
// Checked when the request executes, in queue order, so an invalidate posted just before it
// counts: at post time the MR or window is legitimately still valid or bound.
void verify_local(core::qp& q, const core::send_wqe& w) {
    mem::translation_unit& memory = q.dev().memory();
    if (w.kind == core::wr_kind::fast_register &&
        memory.describe(w.region).state == mem::region_state::valid) {
        q.dev().verifier().raise(
            verifier::rule::fast_register_valid_mr, q.ident(), "NdkFastRegister", status::success,
            fmt::format("the request (context {}) reached the MR while it was still valid; "
                        "invalidate it first (the request completes with an error)",
                        w.context));
    } else if (w.kind == core::wr_kind::bind &&
               memory.describe(w.window).state == mem::window_state::bound) {
        q.dev().verifier().raise(
            verifier::rule::bind_bound_window, q.ident(), "NdkBind", status::success,
            fmt::format("the request (context {}) reached the window while it was still bound",
                        w.context));
    }
}

}  // namespace

status execute_local(engine& e, core::qp& q, core::send_wqe& w) {
    if (q.dev().verifier().on()) [[unlikely]] {
        verify_local(q, w);
    }
    const status s = execute(e.dev().memory(), q.memory_pd(), w);
    if (w.kind == core::wr_kind::bind || w.kind == core::wr_kind::invalidate_window) {
        e.dev().windows_changed();  // a rebind or invalidate may release a region's close
    }
    return s;
}

}  // namespace ndksim::nic
