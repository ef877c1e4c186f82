#include "core/shared_endpoint.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"

namespace ndksim::core {

shared_endpoint::shared_endpoint(adapter& handle, const net_address& address)
    : object(object_kind::shared_endpoint, handle.dev(), &handle, &handle), address_(address) {}

ref<shared_endpoint> shared_endpoint::create(adapter& handle, const net_address& address) {
    return ref<shared_endpoint>(new shared_endpoint(handle, address), false);
}

void shared_endpoint::on_closed() {
    dev().endpoints().release(address_.port);
}

}  // namespace ndksim::core
