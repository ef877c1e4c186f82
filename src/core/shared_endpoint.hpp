#pragma once
// A shared endpoint (NDK_SHARED_ENDPOINT): a local address and ND port reserved for outgoing
// connections (ddi/nc-ndkpi-ndk_fn_create_shared_endpoint.md). The port stays reserved until
// the endpoint and every connector using it are closed (rule 25).

#include "core/net_address.hpp"
#include "core/object.hpp"

namespace ndksim::core {

class shared_endpoint final : public object {
  public:
    /// Creates the endpoint over an address reserved by device::reserve_local(); the endpoint
    /// owns that reservation.
    static ref<shared_endpoint> create(adapter& handle, const net_address& address);

    const net_address& local_address() const noexcept { return address_; }

  private:
    shared_endpoint(adapter& handle, const net_address& address);
    void on_closed() override;

    net_address address_;
};

}  // namespace ndksim::core
