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

}  // namespace

status execute_local(engine& e, core::qp& q, core::send_wqe& w) {
    const status s = execute(e.dev().memory(), q.memory_pd(), w);
    if (w.kind == core::wr_kind::bind || w.kind == core::wr_kind::invalidate_window) {
        e.dev().windows_changed();  // a rebind or invalidate may release a region's close
    }
    return s;
}

}  // namespace ndksim::nic
