#include "core/listener.hpp"

#include <mutex>

#include "core/adapter.hpp"
#include "core/device.hpp"

namespace ndksim::core {

status listener::check_create(opaque_fn connect_event) noexcept {
    return connect_event == nullptr ? status::invalid_parameter : status::success;
}

listener::listener(adapter& handle, opaque_fn connect_event, void* context)
    : object(object_kind::listener, handle.dev(), &handle, &handle),
      connect_event_(connect_event),
      context_(context) {}

ref<listener> listener::create(adapter& handle, opaque_fn connect_event, void* context) {
    return ref<listener>(new listener(handle, connect_event, context), false);
}

status listener::listen(net_address& address) {
    std::lock_guard lock(mutex());
    if (bound_ || !is_open()) {
        return status::invalid_device_state;
    }
    const status s = dev().reserve_local(address);
    if (s == status::success) {
        bound_ = address;
    }
    return s;
}

std::optional<net_address> listener::local_address() const {
    std::lock_guard lock(mutex());
    return bound_;
}

void listener::on_closed() {
    std::lock_guard lock(mutex());
    if (bound_) {
        dev().endpoints().release(bound_->port);
        bound_.reset();
    }
}

}  // namespace ndksim::core
