// SPDX-License-Identifier: MIT
#include "core/mr.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/pd.hpp"
#include "util/log.hpp"

namespace ndksim::core {

mr::mr(pd& owner, bool fast_register, mem::region_id region)
    : object(object_kind::mr, owner.dev(), &owner.handle(), &owner),
      fast_register_(fast_register),
      region_(region) {}

status mr::create(pd& owner, bool fast_register, ref<mr>& out) {
    const mem::region_result r = owner.dev().memory().create_region(
        owner.memory_pd(),
        fast_register ? mem::region_kind::fast_register : mem::region_kind::normal);
    if (r.st != status::success) {
        return r.st;
    }
    out = ref<mr>(new mr(owner, fast_register, r.id), false);
    return status::success;
}

void mr::on_close_requested() {
    // A bound window pins its region (STYLE.md habit 5): the close stays pending, and the
    // region stays registered, until every window bound to it is invalidated, rebound
    // elsewhere or closed (docs/memory.md).
    if (dev().memory().describe(region_).bound_windows > 0) {
        waiting_for_windows_ = true;
        begin_busy();
        dev().wait_for_windows(*this);
        NDKSIM_DEBUG("{}: close waits for the memory windows bound to it", ident());
    }
}

bool mr::recheck_bound_windows() {
    if (!waiting_for_windows_ || dev().memory().describe(region_).bound_windows > 0) {
        return false;
    }
    waiting_for_windows_ = false;
    end_busy();
    return true;
}

void mr::on_closed() {
    const status s = dev().memory().destroy_region(region_);
    if (s != status::success) {
        NDKSIM_ERROR("{}: region release failed: {}", ident(), s);
    }
}

}  // namespace ndksim::core
