// SPDX-License-Identifier: MIT
#pragma once
// A shared endpoint (NDK_SHARED_ENDPOINT): a local address and ND port reserved for outgoing
// connections (ddi/nc-ndkpi-ndk_fn_create_shared_endpoint.md). The port stays reserved until
// the endpoint and every connector using it are closed (rule 25).

#include <vector>

#include "core/net_address.hpp"
#include "core/object.hpp"

namespace ndksim::core {

class connector;

class shared_endpoint final : public object {
  public:
    /// Creates the endpoint over an address reserved by device::reserve_local(); the endpoint
    /// owns that reservation.
    static ref<shared_endpoint> create(adapter& handle, const net_address& address);

    const net_address& local_address() const noexcept { return address_; }

    /// Records that `c` connects over this endpoint to `peer`. False when another connector
    /// holds the same peer address and port: a connection over a shared endpoint keeps its
    /// four-tuple until its connector closes, even after a disconnect
    /// (concepts/ndkpi-listeners--connectors--and-endpoints.md, "Reference Counting for Shared
    /// Endpoints"; NdkConnectWithSharedEndpoint answers STATUS_ADDRESS_ALREADY_EXISTS). A
    /// connector whose attempt failed (refused, timed out) holds nothing.
    [[nodiscard]] bool claim_peer(const connector& c, const net_address& peer);

    /// `c` closed: its four-tuple is free again.
    void release_peer(const connector& c);

  private:
    shared_endpoint(adapter& handle, const net_address& address);
    void on_closed() override;

    struct peer_claim {
        const connector* c;
        net_address peer;
    };

    net_address address_;
    std::vector<peer_claim> claims_;  ///< guarded by mutex()
};

}  // namespace ndksim::core
