// SPDX-License-Identifier: MIT
#pragma once
// The link interface the NIC engine sends and receives frames through. Implementations: the
// in-process link (inproc_link; deterministic, used by tests), and the socket transports over
// UDP and TCP. The engine resolves a peer once per connection and then sends frames to it; a
// frame handed to send() belongs to the transport, and a frame handed to the receiver belongs
// to the receiver until it calls frame_pool::release().

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "timing/sim_time.hpp"
#include "wire/frame.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {

/// "192.0.2.1" or "2001:db8::1".
std::string to_string(const ip_address& a);

/// Per-link counters, read by statistics and tests. Each of the first three has one writer, the
/// engine thread that sends or receives (util::single_writer_add, no read-modify-write on the
/// per-frame path); frames_unroutable has two (sender and receiver) and adds atomically.
struct link_counters {
    std::atomic<std::uint64_t> frames_sent{0};
    std::atomic<std::uint64_t> frames_received{0};
    std::atomic<std::uint64_t> bytes_sent{0};
    std::atomic<std::uint64_t> frames_unroutable{0};  ///< no adapter owns the destination
};

class transport {
  public:
    /// A resolved destination. Opaque to the engine; kept by a connection for its lifetime.
    class peer {
      public:
        virtual ~peer() = default;
    };

    /// Called for every frame that arrives, on the receiving adapter's engine at the simulated
    /// arrival time. The receiver must release the frame (frame_pool::release) before it
    /// returns, or copy what it keeps: the frame's pool is only guaranteed alive until then.
    using receive_fn = std::function<void(frame* f)>;

    virtual ~transport() = default;

    /// Resolves `destination`; nullptr when no adapter owns that address on this link.
    virtual std::shared_ptr<peer> resolve(const ip_address& destination) = 0;

    /// Sends `f` (which the call takes over) to `to`, leaving this adapter at simulated time
    /// `departure` [ps] (the engine's model decides when the port is free). Never blocks and
    /// never fails: a frame that cannot be delivered is counted and dropped, as on a network.
    virtual void send(peer& to, frame* f, timing::sim_time departure) = 0;

    /// True when the frames given to send() must carry their ICRC: the link or a layer over it
    /// can change or expose the bytes (a socket, fault injection that corrupts, a capture).
    /// False only where the frame goes from memory to memory inside the process, as a NIC's
    /// loopback does not run its frames through the ICRC either. Asked once per frame; the
    /// sender then leaves the word zero and marks the frame (frame::icrc_elided).
    virtual bool wants_icrc() const noexcept { return true; }

    /// True when `to` runs on this adapter's simulated timeline (both on one deterministic
    /// loop in one process): a frame handed to send() at its departure time then arrives at
    /// the same simulated time as one handed over earlier with the same departure. The engine
    /// builds such frames as they depart, reading their payload then, as a NIC's DMA does, so
    /// that a deep queue keeps a few frames alive rather than every frame it has scheduled.
    /// Events that fall on the same picosecond may run in another order than they would have,
    /// and a fault layer draws its random numbers in departure order; a run stays repeatable.
    virtual bool shares_timeline(const peer& to) const noexcept {
        (void)to;
        return false;
    }

    /// True when a frame sent to `to` may be lent (wire/lent_frames.hpp): its payload left in
    /// the sender's host memory, to be read by the receiving engine when it places it. Only a
    /// link that shares the sender's timeline and thread (shares_timeline) and passes frames
    /// from memory to memory may answer true; each layer over it that keeps, copies or records
    /// a frame materializes a lent one first (wire::materialize).
    virtual bool lends_payload(const peer& to) const noexcept {
        (void)to;
        return false;
    }

    /// A frame from `source` matched a live connection or listener of this adapter (the
    /// engine calls it before the frame may change any state). A socket wire in synchronized
    /// time makes `source` a peer of its sync domain; other links ignore it. Engine thread.
    virtual void confirm_peer(const ip_address& source) { (void)source; }

    /// True when `source` is a peer of this adapter's sync domain through this link (a socket
    /// wire in synchronized time): its frames are held until their arrival and matched then.
    virtual bool is_sync_peer(const ip_address& source) const noexcept {
        (void)source;
        return false;
    }

    /// True when frames have reached this adapter's sockets that the engine has not read yet (a
    /// socket wire whose engine thread was busy, say sending a burst). The transport timer
    /// asks before it counts a timeout: a NIC's timer measures silence it could have heard.
    /// Engine thread; links without sockets have nothing unread.
    virtual bool input_pending() const noexcept { return false; }

    /// True when frames this link handed to `to` have not yet been taken in by `to`'s engine:
    /// a threaded adapter of this process whose engine thread is behind (the host, not the
    /// model). The transport timer asks before it counts a timeout, for the reason given at
    /// input_pending. Engine thread; links whose frames leave the process answer false.
    virtual bool output_pending(const peer& to) const noexcept {
        (void)to;
        return false;
    }

    /// True when `to`'s engine, a threaded adapter of this process on the same clock, has not
    /// yet run every event it had due before `before` [ps]: an ACK it owed then may still wait
    /// there, behind a backlog. The transport timer asks, with the time it first found the
    /// deadline passed, and waits until the peer has run that much. Engine thread; links whose
    /// frames leave the process answer false.
    virtual bool peer_behind(const peer& to, timing::sim_time before) const noexcept {
        (void)to;
        (void)before;
        return false;
    }

    /// The address this transport's adapter owns.
    virtual const ip_address& local_address() const noexcept = 0;

    /// Counters of this end of the link.
    virtual const link_counters& counters() const noexcept = 0;
};

}  // namespace ndksim::wire
