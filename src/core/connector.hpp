// SPDX-License-Identifier: MIT
#pragma once
// A connector (NDK_CONNECTOR): one side of one connection, and the state of its handshake
// (concepts/ndkpi-listeners--connectors--and-endpoints.md, networkdirect-disconnect-scheme.md).
//
// Active side:  idle -> connecting (request sent) -> replied (Connect completed; the consumer
//               may read the connection data, or reject) -> connected (CompleteConnect sent the
//               ready-to-use message).
// Passive side: requested (the listener's connect event delivered this connector) ->
//               accepting (Accept sent the reply) -> connected (ready-to-use arrived).
// Both:         connected -> disconnecting (Disconnect sent the request) -> disconnected;
//               any state -> failed (rejected, aborted, timed out, peer gone).
// The connection manager in src/nic drives the transitions; this object keeps the data the
// consumer reads back (addresses, read limits, private data) and the callbacks it gave.

#include <array>
#include <cstdint>
#include <optional>

#include "core/net_address.hpp"
#include "core/object.hpp"

namespace ndksim::core {

class qp;
class listener;
class shared_endpoint;

enum class connector_state : std::uint8_t {
    idle,
    connecting,
    replied,
    requested,
    accepting,
    connected,
    disconnecting,
    disconnected,
    failed,
};

/// Name of a state ("replied"), for logs.
const char* connector_state_name(connector_state s) noexcept;

/// A disconnect-event callback bound to its context; receives the provider reason (0 = none).
using disconnect_fn = util::inplace_function<void(std::uint32_t), 32>;

/// What the peer sent in its request or reply (NdkGetConnectionData).
struct peer_connection_data {
    std::uint32_t inbound_read_limit = 0;   ///< the peer's IRD
    std::uint32_t outbound_read_limit = 0;  ///< the peer's ORD
    std::uint16_t private_data_length = 0;
    std::array<std::byte, 196> private_data{};
};

class connector final : public object {
  public:
    /// A connector created by NdkCreateConnector.
    static ref<connector> create(adapter& handle);

    /// A passive-side connector created for an incoming request on `from` (rule 25: it holds
    /// the listener, and the listener's port, until it closes).
    static ref<connector> create_passive(listener& from);

    connector_state state() const noexcept;
    void set_state(connector_state s) noexcept;

    /// Binds the QP (Connect/Accept); the QP then cannot finish closing before this connector
    /// (REFERENCE.md section 9: QP -> connector). Returns false when a QP is already bound.
    bool bind_qp(qp& q);
    qp* bound_qp() const noexcept { return qp_; }

    /// ConnectWithSharedEndpoint to `destination`: the endpoint, and the four-tuple it forms with
    /// `destination`, are held until this connector closes. Returns false, changing nothing, when
    /// another open connector of the endpoint holds the same four-tuple
    /// (shared_endpoint::claim_peer).
    [[nodiscard]] bool use_shared_endpoint(shared_endpoint& sep, const net_address& destination);

    /// The local and peer addresses of the connection (valid from the request on).
    net_address local_address;
    net_address peer_address;

    /// The connection ids both sides use in connection-management messages.
    std::uint32_t local_id = 0;
    std::uint32_t remote_id = 0;

    /// Read limits the consumer asked for (Connect/Accept) and what the peer sent.
    std::uint32_t inbound_read_limit = 0;
    std::uint32_t outbound_read_limit = 0;
    peer_connection_data peer;

    /// Private data this side sends with its request, reply or reject.
    std::uint16_t own_private_data_length = 0;
    std::array<std::byte, 196> own_private_data{};

    /// The peer's QP number and first PSN (from its request or reply).
    std::uint32_t peer_qpn = 0;
    std::uint32_t peer_start_psn = 0;

    /// True when this connector reserved its local port itself (plain Connect) and must free it.
    bool owns_port = false;

    /// The consumer request in flight (Connect, Accept, CompleteConnect, Disconnect): exactly
    /// one at a time. The engine completes it with complete_request(). Read and written under
    /// the connector's mutex: a consumer thread starts a request while the engine thread may be
    /// completing the previous one.
    bool has_request() const;

    /// Records `done` as the request in flight and marks the object busy until it completes
    /// (rule 4: a close waits for it). Returns false, and records nothing, when a request is
    /// already in flight.
    [[nodiscard]] bool begin_request(request_fn done);

    /// NdkDisconnect's begin_request: also records, in the same critical section, that the
    /// local side disconnected, so that a peer's disconnect request handled on the engine
    /// thread at the same moment sees either both or neither (rule 27: no disconnect event
    /// after the consumer's own Disconnect).
    [[nodiscard]] bool begin_disconnect(request_fn done);

    /// Calls the pending request's completion with `result` (from an engine task), then marks
    /// the object not busy; does nothing when no request is pending.
    void complete_request(status result);

    /// The disconnect-event callback registered by CompleteConnect(Ex)/Accept(Ex).
    void set_disconnect_event(disconnect_fn fn);

    /// Delivers the disconnect event once (rule 27), unless the local side already called
    /// Disconnect or the connector is closing. Called from an engine task. Returns whether the
    /// event was delivered.
    bool deliver_disconnect_event(std::uint32_t reason);

  private:
    explicit connector(adapter& handle);
    void on_close_requested() override;
    void on_closed() override;

    std::atomic<connector_state> state_{connector_state::idle};
    qp* qp_ = nullptr;
    shared_endpoint* sep_ = nullptr;
    request_fn request_;
    // Guarded by mutex(): written by consumer calls and read by engine tasks.
    disconnect_fn disconnect_;
    bool disconnect_delivered_ = false;
    bool local_disconnect_ = false;  ///< NdkDisconnect was called (no event is owed then)
};

}  // namespace ndksim::core
