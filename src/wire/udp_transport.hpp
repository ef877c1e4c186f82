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
/// layer resends it. The kernel caps the request at net.core.rmem_max / wmem_max; the
/// adapter's debug log shows what it granted.
inline constexpr std::size_t udp_socket_buffer_bytes = 4 * 1024 * 1024;

class udp_transport final : public socket_transport {
  public:
    /// Binds `address`:`port` (start() begins receiving); frames arrive on `sched` (threaded) and
    /// are handed to `receive`. `latency` [ps] is the one-way delay of the modelled cable. Throws
    /// socket_setup_error (errno and address:port in its text) when the socket cannot be opened or
    /// bound, and std::invalid_argument for a deterministic scheduler.
    udp_transport(const ip_address& address, std::uint16_t port, timing::scheduler& sched,
                  receive_fn receive, timing::sim_time latency);

    /// Closes the socket on the engine thread and waits for that; frames queued for sending go
    /// back to their pools, frames still in flight towards the engine are dropped.
    ~udp_transport() override;

    udp_transport(const udp_transport&) = delete;
    udp_transport& operator=(const udp_transport&) = delete;

    /// A peer for `destination`:port (the same port on every adapter); nullptr when its address
    /// family differs from this adapter's.
    std::shared_ptr<peer> resolve(const ip_address& destination) override;

    void start() override;

  private:
    /// Queues `f` behind the datagram in flight (one send per socket at a time); the frame goes
    /// back to its pool when its send completes.
    void enqueue(peer& to, frame* f) override;

    std::shared_ptr<udp_state> state_;
};

}  // namespace ndksim::wire
