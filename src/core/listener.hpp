// SPDX-License-Identifier: MIT
#pragma once
// A listener (NDK_LISTENER): its connect-event callback, its bound address and its pause state
// (ddi/nc-ndkpi-ndk_fn_listen.md, nc-ndkpi-ndk_fn_control_connect_events.md).

#include <atomic>
#include <optional>

#include "core/net_address.hpp"
#include "core/object.hpp"

namespace ndksim::core {

class connector;

/// The consumer's connect-event callback, bound to its context by src/api, which also fills
/// the new connector's public head before the consumer sees it.
using connect_event_fn = util::inplace_function<void(connector&), 32>;

class listener final : public object {
  public:
    static ref<listener> create(adapter& handle, connect_event_fn connect_event);

    /// NdkListen: binds `address` through device::reserve_local (invalid_address,
    /// sharing_violation, too_many_addresses), or invalid_device_state when the listener is
    /// already listening or closing. On success `address` holds the bound address and the
    /// device routes connection requests for its port here.
    [[nodiscard]] status listen(net_address& address);

    /// NdkControlConnectEvents: a paused listener behaves as if no listener exists (rule 26).
    void set_paused(bool paused) noexcept { paused_.store(paused, std::memory_order_release); }
    bool paused() const noexcept { return paused_.load(std::memory_order_acquire); }

    /// Whether an incoming request may be delivered now: listening, not paused, not closing
    /// (rule 25: requests are refused as soon as a close is issued).
    bool accepting_requests() const noexcept { return is_open() && !paused(); }

    /// Delivers a connect event for `c` (from an engine task); the listener is busy meanwhile,
    /// so its close waits for the callback to return.
    void deliver_connect_event(connector& c);

    /// The address bound by a completed Listen, if any.
    std::optional<net_address> local_address() const;

  private:
    listener(adapter& handle, connect_event_fn connect_event);
    void on_close_requested() override;
    void on_closed() override;

    connect_event_fn connect_event_;
    std::atomic<bool> paused_{false};
    std::optional<net_address> bound_;
};

}  // namespace ndksim::core
