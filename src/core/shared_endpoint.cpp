// SPDX-License-Identifier: MIT
#include "core/shared_endpoint.hpp"

#include <algorithm>

#include "core/adapter.hpp"
#include "core/connector.hpp"
#include "core/device.hpp"

namespace ndksim::core {

shared_endpoint::shared_endpoint(adapter& handle, const net_address& address)
    : object(object_kind::shared_endpoint, handle.dev(), &handle, &handle), address_(address) {}

ref<shared_endpoint> shared_endpoint::create(adapter& handle, const net_address& address) {
    return ref<shared_endpoint>(new shared_endpoint(handle, address), false);
}

bool shared_endpoint::claim_peer(const connector& c, const net_address& peer) {
    std::lock_guard lock(mutex());
    const bool taken = std::any_of(claims_.begin(), claims_.end(), [&](const peer_claim& u) {
        const connector_state s = u.c->state();
        return u.peer.port == peer.port && u.peer.same_ip(peer) && s != connector_state::failed;
    });
    if (!taken) {
        claims_.push_back(peer_claim{&c, peer});
    }
    return !taken;
}

void shared_endpoint::release_peer(const connector& c) {
    std::lock_guard lock(mutex());
    std::erase_if(claims_, [&](const peer_claim& u) { return u.c == &c; });
}

void shared_endpoint::on_closed() {
    dev().endpoints().release(address_.port);
}

}  // namespace ndksim::core
