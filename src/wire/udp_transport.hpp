// SPDX-License-Identifier: MIT
#pragma once
// RoCEv2 on UDP: an adapter owns the socket bound to its IP address and port, and every frame
// is one datagram to the peer's address and the same port. The datagram is the RoCEv2 packet
// the codec built followed by the departure-time trailer (docs/wire-format.md, "On the
// socket"). Threaded mode only: every socket handler runs on the adapter's engine thread (the
// scheduler's io_context).

#include <cstddef>
#include <memory>

#include "timing/scheduler.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::wire {

struct udp_state;

/// Socket buffer size a UDP adapter asks for, each way [bytes]. A burst of a large transfer (a
/// 1 MiB write is 256 datagrams at once) overflows Linux's default receive buffer (208 KiB),
/// and a datagram that does not fit is lost (socket_counters::receive_overruns) until the RC
/// layer resends it. 16 writes of 1 MiB outstanding are 4096 datagrams, which the kernel
/// charges at about 8 KiB each (the buffer a 4 KiB datagram sits in, socket(7) SO_RCVBUF), so
/// this is enough for them. The kernel caps the request at net.core.rmem_max / wmem_max unless
/// the process may raise it (CAP_NET_ADMIN, SO_RCVBUFFORCE); a capped buffer is logged at info
/// level with the sysctl to raise.
inline constexpr std::size_t udp_socket_buffer_bytes = 32 * 1024 * 1024;

/// How a UDP adapter uses its socket. The offloads are used when the kernel has them (udp(7));
/// each falls back to one datagram per message when it is off, absent or refused at run time.
struct udp_options {
    /// UDP_SEGMENT: a run of equal frames to one peer leaves in one message of a sendmmsg.
    bool segmentation = true;
    /// UDP_GRO: a run of datagrams arrives in one buffer of a recvmmsg.
    bool receive_offload = true;
    /// Socket buffer size to ask for, each way [bytes].
    std::size_t buffer_bytes = udp_socket_buffer_bytes;
};

class udp_transport final : public socket_transport {
  public:
    /// Binds `address`:`port` (start() begins receiving); frames arrive on `sched` (threaded) and
    /// are handed to `receive`. `latency` [ps] is the one-way delay of the modelled cable. Throws
    /// socket_setup_error (errno and address:port in its text) when the socket cannot be opened or
    /// bound, and std::invalid_argument for a deterministic scheduler.
    /// `options` says which kernel offloads to use where the kernel has them, and the socket
    /// buffers' size. `domain`: synchronized time (sched is the domain's), else nullptr.
    udp_transport(const ip_address& address, std::uint16_t port, timing::scheduler& sched,
                  receive_fn receive, timing::sim_time latency, udp_options options = {},
                  timing::sync_domain* domain = nullptr);

    /// Closes the socket on the engine thread and waits for that; frames queued for sending go
    /// back to their pools, frames still in flight towards the engine are dropped. In
    /// synchronized time the peers are told first that this adapter leaves.
    ~udp_transport() override;

    udp_transport(const udp_transport&) = delete;
    udp_transport& operator=(const udp_transport&) = delete;

    /// A peer for `destination`:port (the same port on every adapter); nullptr when its address
    /// family differs from this adapter's.
    std::shared_ptr<peer> resolve(const ip_address& destination) override;

    void start() override;

    /// True when a datagram waits in the socket's receive queue (FIONREAD). Engine thread.
    bool input_pending() const noexcept override;

    /// The offloads in use: those asked for that the kernel accepted (segmentation turns off
    /// for good when a send refuses it); buffer_bytes is the receive buffer the kernel granted.
    udp_options in_use() const noexcept;

  private:
    /// Queues `f` for the next batch: the frames queued until the engine's current run of
    /// events ends leave together, in as few sendmmsg calls as the batch limits allow; the
    /// frames go back to their pools once the kernel took them.
    void enqueue(peer& to, frame* f) override;
    const ip_address& peer_address(const peer& to) const noexcept override;

    std::shared_ptr<udp_state> state_;
};

}  // namespace ndksim::wire
