// SPDX-License-Identifier: MIT
#pragma once
// The same frames over TCP, each a record: a 4-byte big-endian body length, then the body (the
// RoCEv2 packet and its departure-time trailer, docs/wire-format.md "On the socket"). An
// adapter listens on its IP address and port; it opens one connection per destination lazily,
// from its own IP (port 0), so the receiver learns the sender's IP from the connection. Each
// direction of a pair of adapters uses its own connection. Threaded mode only: every socket
// handler runs on the adapter's engine thread (the scheduler's io_context).

#include <memory>

#include "timing/scheduler.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::wire {

struct tcp_state;

class tcp_transport final : public socket_transport {
  public:
    /// Listens on `address`:`port` (start() begins accepting); frames arrive on `sched` (threaded)
    /// and are handed to `receive`. `latency` [ps] is the one-way delay of the modelled cable.
    /// Throws socket_setup_error (errno and address:port in its text) when the listening socket
    /// cannot be opened, bound or put to listen, and std::invalid_argument for a deterministic
    /// scheduler.
    /// `domain`: synchronized time (sched is the domain's), else nullptr.
    tcp_transport(const ip_address& address, std::uint16_t port, timing::scheduler& sched,
                  receive_fn receive, timing::sim_time latency,
                  timing::sync_domain* domain = nullptr);

    /// Closes every socket on the engine thread and waits for that; queued frames go back to
    /// their pools. In synchronized time the peers are told first that this adapter leaves.
    ~tcp_transport() override;

    tcp_transport(const tcp_transport&) = delete;
    tcp_transport& operator=(const tcp_transport&) = delete;

    /// The connection slot for `destination`:port, shared by every peer of that address (the
    /// connection itself opens on the first send); nullptr when its address family differs.
    std::shared_ptr<peer> resolve(const ip_address& destination) override;

    void start() override;

    /// True when bytes wait unread on one of the accepted connections (FIONREAD). Engine
    /// thread.
    bool input_pending() const noexcept override;

    /// True outside synchronized time: a lent frame (lent_frames.hpp) is written by the
    /// engine thread that built it, its payload gathered from the sender's memory by the
    /// kernel's copy (tcp_record_writer), before the peer can acknowledge it.
    bool lends_payload(const peer& to) const noexcept override;

  private:
    /// Queues `f` on the destination's connection behind the write in flight (one per socket;
    /// queued frames are gathered into one write). A connection that breaks drops its queued
    /// frames (counted) and opens again on the next send.
    void enqueue(peer& to, frame* f) override;
    const ip_address& peer_address(const peer& to) const noexcept override;

    std::shared_ptr<tcp_state> state_;
};

}  // namespace ndksim::wire
