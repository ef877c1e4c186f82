// SPDX-License-Identifier: MIT
#pragma once
// What the UDP and TCP transports share beyond the transport interface: the receiving half
// (socket_receiver) both build the same way, the counters read through it, and the sending
// half up to the socket: the departure-time trailer and the link counters (docs/wire-format.md,
// "On the socket"). Each transport adds only its sockets: how it binds, resolves a peer,
// queues a frame and receives.

#include <memory>
#include <string_view>

#include "timing/scheduler.hpp"
#include "timing/sim_time.hpp"
#include "timing/sync_domain.hpp"
#include "wire/frame.hpp"
#include "wire/proto.hpp"
#include "wire/socket_common.hpp"
#include "wire/sync_link.hpp"
#include "wire/transport.hpp"

namespace ndksim::wire {

class socket_transport : public transport, private sync_link::sender {
  public:
    /// Starts receiving (and, over TCP, accepting). The constructor binds the socket but
    /// receives nothing, because a frame may arrive at once and its receiver (the engine that
    /// built this transport) is not complete until the constructor has returned. Called once,
    /// by the composition root, after the engine is built.
    virtual void start() = 0;

    /// Counters of the sockets (bad frames and records, dropped frames, errors, connections).
    const socket_counters& socket_stats() const noexcept { return rx_->socket; }

    /// Appends the departure-time trailer to `f`, counts it as sent and hands it to enqueue();
    /// a frame that leaves no room for the trailer is counted as a bad frame and released.
    /// In synchronized time (engine thread only, where the engine sends from) the sync link
    /// notes the frame, and a frame to a peer declared lost is dropped.
    void send(peer& to, frame* f, timing::sim_time departure) final;

    /// In synchronized time, `source` becomes a peer of the domain: its frame matched a live
    /// connection or listener. Engine thread.
    void confirm_peer(const ip_address& source) final;

    /// True in synchronized time when `source` is a peer of the domain. Engine thread.
    bool is_sync_peer(const ip_address& source) const noexcept final;

    const ip_address& local_address() const noexcept final { return rx_->address; }
    const link_counters& counters() const noexcept final { return rx_->counters; }

  protected:
    /// Builds the receiving half for `address`:`port`, named "`kind` address:port" in log
    /// lines (`kind` is "udp" or "tcp"). Throws std::invalid_argument for a deterministic
    /// scheduler: socket handlers need the engine thread of a threaded adapter.
    /// `domain`: synchronized time (the scheduler is the domain's), else nullptr; the
    /// transport then exchanges sync records with the adapters it talks to (sync_link).
    socket_transport(std::string_view kind, const ip_address& address, std::uint16_t port,
                     timing::scheduler& sched, receive_fn receive, timing::sim_time latency,
                     timing::sync_domain* domain);

    /// The destination of a peer that resolve() returned.
    virtual const ip_address& peer_address(const peer& to) const noexcept = 0;

    /// Synchronized time: tells every peer this adapter leaves and lets go of them in the
    /// domain. Called on the engine thread by the derived transport's close, before its
    /// sockets close; the records it queued must be flushed then. True when there was a sync
    /// link (records may be queued).
    bool leave_sync();

    /// Queues `f`, its trailer appended, for `to`. Called on any thread; the frame belongs to
    /// the transport from here on.
    virtual void enqueue(peer& to, frame* f) = 0;

    /// The receiving half, shared with the transport's sockets and their handlers.
    const std::shared_ptr<socket_receiver>& receiver() const noexcept { return rx_; }

  private:
    std::shared_ptr<transport::peer> route(const ip_address& address) final;
    void send_record(transport::peer& to, frame* record) final;

    std::shared_ptr<socket_receiver> rx_;
};

}  // namespace ndksim::wire
