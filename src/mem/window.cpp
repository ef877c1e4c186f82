// SPDX-License-Identifier: MIT
#include "mem/window.hpp"

#include "mem/page.hpp"

namespace ndksim::mem {
namespace {

// The checks that need a valid registration on the region.
status check_bind_range(const region& r, const bind_request& rq) noexcept {
    // ddi/nc-ndkpi-ndk_fn_bind.md, REFERENCE.md rule 20: the window lies inside the MR.
    if (!range_inside(r.base_va, r.length, rq.va, rq.length)) {
        return status::invalid_parameter;
    }
    // ddi/nc-ndkpi-ndk_fn_bind.md, rule 19: remote write needs an MR with local write.
    if (has(rq.rights, access::remote_write) && !has(r.rights, access::local_write)) {
        return status::access_violation;
    }
    return status::success;
}

}  // namespace

status check_bind_request(const window& w, const region& r, pd_id qp_pd,
                          const bind_request& rq) noexcept {
    // Protection domains: the MW, the MR and the QP must share one PD.
    if (w.pd != qp_pd || r.pd != qp_pd) {
        return status::access_violation;
    }
    // ddi/nc-ndkpi-ndk_fn_bind.md: zero-based virtual addresses are not supported.
    if (rq.va == 0) {
        return status::invalid_parameter;
    }
    if (r.state != region_state::valid) {
        return status::success;
    }
    return check_bind_range(r, rq);
}

status check_bind(const window& w, const region& r, pd_id qp_pd, const bind_request& rq) noexcept {
    if (w.pd != qp_pd || r.pd != qp_pd) {
        return status::access_violation;
    }
    if (rq.va == 0) {
        return status::invalid_parameter;
    }
    if (r.state != region_state::valid) {
        return status::invalid_device_state;
    }
    return check_bind_range(r, rq);
}

void apply_bind(window& w, region& target, std::uint32_t target_index, region* previous,
                const bind_request& rq) noexcept {
    if (previous != nullptr) {
        --previous->bound_windows;
    }
    ++target.bound_windows;
    w.state = window_state::bound;
    w.rights = window_rights(rq.rights);
    w.va = rq.va;
    w.length = rq.length;
    w.region_index = target_index;
}

status check_invalidate(const window& w, pd_id qp_pd) noexcept {
    if (w.pd != qp_pd) {
        return status::access_violation;
    }
    // REFERENCE.md rule 16: an invalidated token cannot be invalidated again.
    if (w.state != window_state::bound) {
        return status::invalid_device_state;
    }
    return status::success;
}

void apply_invalidate(window& w, region& bound) noexcept {
    --bound.bound_windows;
    w.state = window_state::free;
    w.region_index = 0;
}

}  // namespace ndksim::mem
