// SPDX-License-Identifier: MIT
#pragma once
// The connection manager of one adapter: NdkConnect / Accept / CompleteConnect / Reject /
// Disconnect and the InfiniBand CM messages they exchange (wire/cm_proto.hpp) over the same
// link as data (concepts/ndkpi-listeners--connectors--and-endpoints.md,
// networkdirect-disconnect-scheme.md; IBA vol. 1 12.9, the CM state machine).
//
//   active                              passive
//   Connect ---------- REQ ---------->  listener's connect event (new connector)
//   Connect completes <--- REP ------   Accept
//   CompleteConnect -- RTU ---------->  Accept completes
//   Disconnect ------- DREQ --------->  disconnect event (no flush)
//   Disconnect completes <- DREP ----
//   (a REJ answers a REQ (NdkReject, or no listener, a paused listener or a closing one: the
//    active side sees STATUS_CONNECTION_REFUSED) or a REP (NdkReject on the active side), or
//    abandons a connection being set up (its connector closed))
//
// Consumer calls validate inline, then run their effect as a task on the engine, which owns
// the frames and the timers. Connection ids index a table; each entry holds a reference on
// its connector until the connection ends or the connector closes.
//
// Ids (IBA communication ids) are drawn at random (never 0, never one in the table), so that a
// stranger cannot name a connection by counting; and a message is taken for a connection only
// when it comes from that connection's peer address and carries both ids (match()). The
// generator is seeded from the adapter's seed, so a deterministic run repeats.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <unordered_map>

#include "core/connector.hpp"
#include "core/net_address.hpp"
#include "util/status.hpp"
#include "wire/cm_proto.hpp"
#include "wire/transport.hpp"

namespace ndksim::core {
class listener;
class qp;
class shared_endpoint;
}  // namespace ndksim::core

namespace ndksim::nic {

class engine;

/// ProviderDisconnectReason of a disconnect event (NDK_FN_DISCONNECT_EVENT_CALLBACK_EX, 2.1;
/// 0 = none given, which is what a peer's graceful disconnect carries).
enum class disconnect_reason : std::uint32_t {
    peer_disconnected = 0,
    retry_exhausted = 1,  ///< the transport timer ran out of retries (peer or link gone)
    fatal_error = 2,      ///< a fatal error failed the QP (a NAK sent or received)
};

class connection_manager {
  public:
    explicit connection_manager(engine& e);

    /// NdkConnect (sep == nullptr, `source` the local address to bind: IP own or wildcard,
    /// port 0 for an ephemeral one) and NdkConnectWithSharedEndpoint (`sep` gives the local
    /// address). Inline failures: invalid_buffer_size (private data above MaxCallerData),
    /// invalid_device_state (connector or QP already in use), invalid_address,
    /// sharing_violation, too_many_addresses (binding the source), address_already_exists
    /// (the same four-tuple is connected). Otherwise pending: `done` gets success when the
    /// peer replied, or connection_refused (no listener, paused, rejected), host_unreachable
    /// (no adapter owns the destination), io_timeout (no reply in time), cancelled (the
    /// connector closed first).
    [[nodiscard]] status connect(core::connector& c, core::qp& q, const core::net_address* source,
                                 core::shared_endpoint* sep, const core::net_address& destination,
                                 std::uint32_t inbound_read_limit,
                                 std::uint32_t outbound_read_limit,
                                 std::span<const std::byte> private_data, core::request_fn done);

    /// NdkCompleteConnect(Ex): connection_invalid unless a reply arrived; otherwise the QP
    /// becomes connected, the ready-to-use message goes out and `done` gets success (or
    /// connection_aborted when the peer gave up meanwhile).
    [[nodiscard]] status complete_connect(core::connector& c, core::disconnect_fn event,
                                          core::request_fn done);

    /// NdkAccept(Ex): invalid_device_state unless the connector holds an unanswered request,
    /// invalid_buffer_size (private data above MaxCalleeData), invalid_parameter (the QP is in
    /// use or belongs to another device); otherwise
    /// pending: `done` gets success when the ready-to-use message arrives, connection_aborted
    /// when the active side gave up, io_timeout when it never completes the connection.
    [[nodiscard]] status accept(core::connector& c, core::qp& q, std::uint32_t inbound_read_limit,
                                std::uint32_t outbound_read_limit,
                                std::span<const std::byte> private_data, core::disconnect_fn event,
                                core::request_fn done);

    /// NdkReject (never pends): success, or connection_aborted when the peer already gave up;
    /// invalid_device_state when there is nothing to reject; invalid_buffer_size for private
    /// data above MaxCalleeData.
    [[nodiscard]] status reject(core::connector& c, std::span<const std::byte> private_data);

    /// NdkDisconnect: flushes the QP (a graceful disconnect implies a flush, rule 12), sends the
    /// disconnect request and completes when the reply arrives (rule 27) or with io_timeout.
    /// A connection the peer already ended completes at once. connection_invalid when the
    /// connector never connected.
    [[nodiscard]] status disconnect(core::connector& c, core::request_fn done);

    /// The engine's entry for every connection-management datagram.
    void on_datagram(const wire::decoded_packet& p, const wire::ip_address& from);

    /// True when the datagram `p` from `from` is a request for a live listener of this adapter
    /// or a message that match() finds a connection for; changes nothing (the engine asks
    /// before the datagram may move its clock).
    bool matches_live(const wire::decoded_packet& p, const wire::ip_address& from);

    /// Engine: the first request from the peer reached `q`, a passive QP whose accept still
    /// waits for the ready-to-use message. Completes the accept as that message would and
    /// returns true; false (nothing done) when no accept of `q` is waiting.
    bool established(core::qp& q);

    /// Engine task: `q` was moved to error by a fatal error (retries exhausted, a fatal NAK
    /// sent or received). Tears its connection down: the peer is told with a best-effort
    /// disconnect request (as if the consumer had closed), and the local consumer gets the
    /// disconnect event with `reason` (rule 27: once, unless it already called Disconnect).
    /// Nothing is flushed here beyond what failing the QP already flushed. Does nothing when
    /// `q` has no established connection.
    void abort_connection(core::qp& q, disconnect_reason reason);

    /// A connector's close was requested: its pending request completes with STATUS_CANCELLED
    /// and the peer is told the connection is gone.
    void connector_closing(core::connector& c);

    /// A listener's close was requested (it is already unreachable for new requests).
    void listener_closing(core::listener& l);

  private:
    /// What identifies a connection request on the passive side: the requester's address and
    /// its connection id (IBA 12.6.5: a REQ repeated by a requester that has not yet seen the
    /// REP carries the same Local Communication ID).
    struct request_key {
        wire::ip_address from;
        std::uint32_t remote_id = 0;
        auto operator<=>(const request_key&) const = default;
    };

    struct connection {
        core::ref<core::connector> c;
        std::optional<request_key> request;  ///< a passive connection's, indexed in requests_
        std::shared_ptr<wire::transport::peer> peer;
        wire::flow flow;
        std::uint64_t timer_generation = 0;
        wire::cm_message last_sent{};  ///< resent when its answer is late (datagrams get lost)
        std::uint32_t attempts = 0;    ///< sends of last_sent so far
        /// MAD transaction id of the connection's messages: the active side's id.
        std::uint64_t transaction_id = 0;
    };

    std::uint32_t register_connection(core::connector& c);
    void forget(std::uint32_t id);
    connection* find(std::uint32_t id);
    /// The connection of `c`, or nullptr once it ended.
    connection* find(const core::connector& c);
    /// The live connection `m` (received from `from`) belongs to, or nullptr: the one whose id
    /// is the message's remote id, whose peer address is `from`, and whose peer id, once known,
    /// is the message's local id. A reject may name the connection by the sender's id alone
    /// (remote id 0: the active side gave up before our reply reached it), and then the address
    /// must match as well.
    connection* match(const wire::cm_message& m, const wire::ip_address& from);
    /// Counts a message that matched no connection (cm_bad_messages).
    void count_unmatched(const wire::cm_message& m, const wire::ip_address& from);
    void send(connection& conn, wire::cm_message& m);
    void send_reply_to(const wire::ip_address& to, wire::cm_message& m);
    /// Answers `m` from `from`, which matches no connection (or no listener), with a REJ that
    /// needs no state: it carries the ids and transaction id `m` named.
    void reject_unknown(const wire::cm_message& m, const wire::ip_address& from,
                        wire::cm_reject_reason reason);
    /// The connection's transaction id, both ids, and its addresses and ports (a REQ's).
    void fill_addresses(const connection& conn, wire::cm_message& m) const;
    /// A REQ, REP or REJ of `conn`: what fill_addresses gives, the QP, read limits, transport
    /// settings and the consumer's private data.
    wire::cm_message handshake_message(const connection& conn, wire::cm_type type) const;
    /// The DREQ of `conn`.
    wire::cm_message disconnect_request(const connection& conn) const;
    void arm_timer(std::uint32_t id, core::connector_state waiting_in, status on_timeout);
    /// Sends of one message before its wait ends in failure (the response timeout is split
    /// evenly between them).
    static constexpr std::uint32_t k_cm_attempts = 4;
    void activate_qp(connection& conn);
    /// The passive side's wait ends: its QP is connected and its Accept completes.
    void complete_accept(connection& conn);
    void fail_connection(std::uint32_t id, status result);

    void on_request(const wire::cm_message& m, const wire::ip_address& from);
    void on_reply(const wire::cm_message& m, const wire::ip_address& from);
    void on_ready_to_use(const wire::cm_message& m, const wire::ip_address& from);
    void on_reject(const wire::cm_message& m, const wire::ip_address& from);
    void on_disconnect_request(const wire::cm_message& m, const wire::ip_address& from);
    void on_disconnect_reply(const wire::cm_message& m, const wire::ip_address& from);

    engine& e_;
    std::mutex mutex_;
    std::unordered_map<std::uint32_t, connection> connections_;
    /// The passive connections by request, so a repeated REQ is found without a scan
    /// of every connection: setting up N connections stays O(N log N).
    std::map<request_key, std::uint32_t> requests_;
    std::mt19937_64 ids_;  ///< draws connection ids (register_connection)
    std::uint32_t datagram_psn_ = 0;
};

}  // namespace ndksim::nic
