// SPDX-License-Identifier: MIT
#include "core/mw.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/pd.hpp"
#include "util/log.hpp"

namespace ndksim::core {

mw::mw(pd& owner, mem::window_id window)
    : object(object_kind::mw, owner.dev(), &owner.handle(), &owner), window_(window) {}

status mw::create(pd& owner, ref<mw>& out) {
    const mem::window_result r = owner.dev().memory().create_window(owner.memory_pd());
    if (r.st != status::success) {
        return r.st;
    }
    out = ref<mw>(new mw(owner, r.id), false);
    return status::success;
}

void mw::on_closed() {
    const status s = dev().memory().destroy_window(window_);
    if (s != status::success) {
        NDKSIM_ERROR("{}: window release failed: {}", ident(), s);
    }
    dev().windows_changed();
}

}  // namespace ndksim::core
