#pragma once
// A listener (NDK_LISTENER): its connect-event callback, its bound address and its pause state
// (ddi/nc-ndkpi-ndk_fn_listen.md, nc-ndkpi-ndk_fn_control_connect_events.md).

#include <atomic>
#include <optional>

#include "core/callbacks.hpp"
#include "core/net_address.hpp"
#include "core/object.hpp"

namespace ndksim::core {

class listener final : public object {
public:
    /// The connect-event callback is required (ddi/nc-ndkpi-ndk_fn_create_listener.md).
    [[nodiscard]] static status check_create(opaque_fn connect_event) noexcept;

    static ref<listener> create(adapter& handle, opaque_fn connect_event, void* context);

    /// NdkControlConnectEvents: a paused listener behaves as if no listener exists (rule 26).
    void set_paused(bool paused) noexcept { paused_.store(paused, std::memory_order_release); }
    bool paused() const noexcept { return paused_.load(std::memory_order_acquire); }

    opaque_fn connect_event_callback() const noexcept { return connect_event_; }
    void* connect_event_context() const noexcept { return context_; }

    /// NdkListen: binds `address` through device::reserve_local (invalid_address,
    /// sharing_violation, too_many_addresses), or invalid_device_state when the listener is
    /// already listening or closing. On success `address` holds the bound address.
    [[nodiscard]] status listen(net_address& address);

    /// The address bound by a completed Listen, if any.
    std::optional<net_address> local_address() const;

private:
    listener(adapter& handle, opaque_fn connect_event, void* context);
    void on_closed() override;

    opaque_fn connect_event_;
    void* context_;
    std::atomic<bool> paused_{false};
    std::optional<net_address> bound_;
};

}  // namespace ndksim::core
