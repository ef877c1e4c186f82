// SPDX-License-Identifier: MIT
#include "core/connector.hpp"

#include <array>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/engine_hooks.hpp"
#include "core/listener.hpp"
#include "core/qp.hpp"
#include "core/shared_endpoint.hpp"
#include "util/log.hpp"

namespace ndksim::core {

const char* connector_state_name(connector_state s) noexcept {
    static constexpr std::array<const char*, 9> k_names{
        "idle",      "connecting",    "replied",      "requested", "accepting",
        "connected", "disconnecting", "disconnected", "failed"};
    return k_names[static_cast<std::size_t>(s)];
}

connector::connector(adapter& handle)
    : object(object_kind::connector, handle.dev(), &handle, &handle) {}

ref<connector> connector::create(adapter& handle) {
    return ref<connector>(new connector(handle), false);
}

ref<connector> connector::create_passive(listener& from) {
    ref<connector> c(new connector(from.handle()), false);
    c->add_antecedent(from);
    c->set_state(connector_state::requested);
    return c;
}

connector_state connector::state() const noexcept {
    return state_.load(std::memory_order_acquire);
}

void connector::set_state(connector_state s) noexcept {
    const connector_state old = state_.exchange(s, std::memory_order_acq_rel);
    if (old != s) {
        NDKSIM_DEBUG("{}: {} -> {}", ident(), connector_state_name(old), connector_state_name(s));
    }
}

bool connector::bind_qp(qp& q) {
    if (qp_ != nullptr) {
        return false;
    }
    qp_ = &q;
    add_antecedent(q);
    q.set_bound_connector(this);
    return true;
}

bool connector::use_shared_endpoint(shared_endpoint& sep, const net_address& destination) {
    if (!sep.claim_peer(*this, destination)) {
        return false;
    }
    sep_ = &sep;
    add_antecedent(sep);
    return true;
}

bool connector::has_request() const {
    std::lock_guard lock(mutex());
    return static_cast<bool>(request_);
}

bool connector::begin_request(request_fn done) {
    {
        std::lock_guard lock(mutex());
        if (request_) {
            return false;
        }
        request_ = std::move(done);
    }
    begin_busy();
    return true;
}

bool connector::begin_disconnect(request_fn done) {
    {
        std::lock_guard lock(mutex());
        if (request_) {
            return false;
        }
        request_ = std::move(done);
        local_disconnect_ = true;
    }
    begin_busy();
    return true;
}

void connector::set_disconnect_event(disconnect_fn fn) {
    std::lock_guard lock(mutex());
    disconnect_ = std::move(fn);
}

void connector::complete_request(status result) {
    request_fn done;
    {
        std::lock_guard lock(mutex());
        done = std::move(request_);
    }
    if (done) {
        done(result);
        end_busy();
    }
}

bool connector::deliver_disconnect_event(std::uint32_t reason) {
    disconnect_fn fn;
    {
        std::lock_guard lock(mutex());
        if (disconnect_delivered_ || local_disconnect_ || !is_open() || !disconnect_) {
            return false;
        }
        disconnect_delivered_ = true;
        fn = std::move(disconnect_);
        // Busy before the lock is dropped: a close requested from here on waits for the event
        // (rule 4), and one requested before was seen by is_open() above.
        begin_busy();
    }
    fn(reason);
    end_busy();
    return true;
}

void connector::on_close_requested() {
    if (engine_hooks* h = dev().hooks()) {
        h->connector_closing(*this);
    }
}

void connector::on_closed() {
    if (qp_ != nullptr) {
        qp_->set_bound_connector(nullptr);
    }
    if (owns_port) {
        dev().endpoints().release(local_address.port);
    }
    if (sep_ != nullptr) {
        sep_->release_peer(*this);  // the endpoint outlives its successors
    }
}

}  // namespace ndksim::core
