// SPDX-License-Identifier: MIT
#include "core/adapter.hpp"

#include <vector>

#include "core/device.hpp"
#include "util/log.hpp"

namespace ndksim::core {

status adapter::check_version(ndk_version requested, ndk_version& granted) noexcept {
    const ndk_version* highest = nullptr;
    if (requested.major == k_highest_v1.major) {
        highest = &k_highest_v1;
    } else if (requested.major == k_highest_v2.major) {
        highest = &k_highest_v2;
    } else {
        return status::ndis_bad_version;
    }
    if (requested.minor > highest->minor) {
        return status::ndis_bad_version;
    }
    granted = *highest;
    return status::success;
}

adapter::adapter(device& dev, ndk_version version, std::uint32_t number)
    : object(object_kind::adapter, dev, this, nullptr), version_(version), number_(number) {
    set_handle_ident(number);
}

ref<adapter> adapter::open(device& dev, ndk_version version) {
    // The constructor's reference becomes the consumer's; ref<> adopts it without adding one.
    ref<adapter> a(new adapter(dev, version, dev.next_handle_number()), false);
    dev.handle_opened();
    NDKSIM_INFO("{}: opened at NDKPI {}.{}", a->ident(), version.major, version.minor);
    return a;
}

void adapter::close_blocking() {
    device& d = dev();
    if (d.sched().in_task()) {
        NDKSIM_ERROR(
            "{}: adapter handle closed from inside an NDK callback; the close cannot "
            "wait there (REFERENCE.md rule 6), so open objects are reported as leaked",
            ident());
    }
    const bool drained =
        d.sched().wait_until([this] { return open_successors() == 0; }, d.config().close_timeout);
    if (!drained) {
        std::vector<const object*> open;
        collect_open_descendants(open);
        for (const object* o : open) {
            NDKSIM_ERROR("{}: {} still open when its adapter handle closed (leaked)", ident(),
                         o->ident());
        }
        d.objects_leaked(static_cast<std::uint32_t>(open.size()));
    }
    force_close();
}

void adapter::on_closed() {
    dev().handle_closed();
    NDKSIM_INFO("{}: closed", ident());
}

}  // namespace ndksim::core
