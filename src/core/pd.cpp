// SPDX-License-Identifier: MIT
#include "core/pd.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "util/log.hpp"

namespace ndksim::core {

pd::pd(adapter& handle, mem::pd_id id)
    : object(object_kind::pd, handle.dev(), &handle, &handle), memory_pd_(id) {}

status pd::create(adapter& handle, ref<pd>& out) {
    const mem::pd_result r = handle.dev().memory().create_pd();
    if (r.st != status::success) {
        return r.st;
    }
    out = ref<pd>(new pd(handle, r.id), false);
    return status::success;
}

void pd::on_closed() {
    // The PD's close completes only after its MRs, MWs, SRQs and QPs have closed (rule 6), so
    // the memory unit has no entries of this domain left.
    const status s = dev().memory().destroy_pd(memory_pd_);
    if (s != status::success) {
        NDKSIM_ERROR("{}: memory domain release failed: {}", ident(), s);
    }
}

}  // namespace ndksim::core
