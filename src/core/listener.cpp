// SPDX-License-Identifier: MIT
#include "core/listener.hpp"

#include <mutex>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/engine_hooks.hpp"

namespace ndksim::core {

listener::listener(adapter& handle, connect_event_fn connect_event)
    : object(object_kind::listener, handle.dev(), &handle, &handle),
      connect_event_(std::move(connect_event)) {}

ref<listener> listener::create(adapter& handle, connect_event_fn connect_event) {
    return ref<listener>(new listener(handle, std::move(connect_event)), false);
}

status listener::listen(net_address& address) {
    std::lock_guard lock(mutex());
    if (bound_ || !is_open()) {
        return status::invalid_device_state;
    }
    const status s = dev().reserve_local(address);
    if (s == status::success) {
        bound_ = address;
        dev().register_listener(address.port, this);
    }
    return s;
}

void listener::deliver_connect_event(connector& c) {
    begin_busy();
    connect_event_(c);
    end_busy();
}

std::optional<net_address> listener::local_address() const {
    std::lock_guard lock(mutex());
    return bound_;
}

void listener::on_close_requested() {
    std::optional<net_address> bound = local_address();
    if (bound) {
        dev().unregister_listener(bound->port, this);
    }
    if (engine_hooks* h = dev().hooks()) {
        h->listener_closing(*this);
    }
}

void listener::on_closed() {
    std::lock_guard lock(mutex());
    if (bound_) {
        dev().endpoints().release(bound_->port);
        bound_.reset();
    }
}

}  // namespace ndksim::core
