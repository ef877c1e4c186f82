// SPDX-License-Identifier: MIT
#pragma once
// A socket wire's side of synchronized time (docs/timing.md, "Synchronized time"): it makes each
// remote adapter this one exchanges frames with a peer of the process's sync domain, carries the
// domain's promises to it as sync records (wire/sync_record.hpp) on the socket the frames take,
// and hands the records that arrive to the domain.
//
// Who becomes a peer: an address this adapter sends a frame to (its consumer chose it), and an
// address whose frame matched a live connection or listener here (confirm). A record from any
// other address is refused and counted: a stranger on the wire cannot hold this domain's clock.
// A peer whose record says it leaves, or that the domain declares lost, stops bounding the
// horizon; frames to a lost peer are dropped, so the connections to it fail as on a cut link.
//
// Threads: every member runs on the adapter's engine thread (the domain's scheduler runs the
// socket handlers there), so nothing here locks; the counters are atomics, read anywhere.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "timing/sim_time.hpp"
#include "timing/sync_domain.hpp"
#include "wire/frame.hpp"
#include "wire/proto.hpp"
#include "wire/socket_common.hpp"
#include "wire/sync_record.hpp"
#include "wire/transport.hpp"

namespace ndksim::wire {

class sync_link {
  public:
    /// How the link reaches the socket: the transport it belongs to.
    class sender {
      public:
        virtual ~sender() = default;
        /// A route to `address`, or nullptr when there is none.
        virtual std::shared_ptr<transport::peer> route(const ip_address& address) = 0;
        /// Queues `record` (a frame holding a sync record, no trailer) behind the frames already
        /// queued for `to`, on the same flow.
        virtual void send_record(transport::peer& to, frame* record) = 0;
    };

    /// A link for the transport `who` (for log lines) on `domain`'s engine, whose frames reach
    /// their peers one `propagation` [ps] after they leave (the lookahead). It counts in
    /// `counters` (the sync_* fields), which must outlive it.
    sync_link(timing::sync_domain& domain, std::string who, timing::sim_time propagation,
              sender& out, socket_counters& counters);

    /// The domain holds channels into this link: leave() must have run (on the engine thread,
    /// as the transport's close does) before the link is destroyed, on any thread.
    ~sync_link();

    sync_link(const sync_link&) = delete;
    sync_link& operator=(const sync_link&) = delete;

    /// True when `address` is a peer of the domain through this link now.
    bool is_peer(const ip_address& address) const noexcept;

    /// May a frame go to `to`? False once `to` was declared lost (counted).
    bool may_send(const ip_address& to) noexcept;

    /// A frame left for `to` at `departure` [ps]; `to` becomes a peer if it was none.
    void frame_sent(const ip_address& to, timing::sim_time departure);

    /// A valid frame from `from`, due here at `arrival` [ps], was read and queued for the
    /// engine. Counted for a peer only.
    void frame_read(const ip_address& from, timing::sim_time arrival);

    /// A frame from `from` matched a live connection or listener: `from` becomes a peer.
    void confirm(const ip_address& from);

    /// A body marked as a sync record arrived from `from` (its verdict and fields from
    /// decode_sync_record); the link applies it or refuses it.
    void record_read(const ip_address& from, sync_body verdict, const sync_record& r);

    /// The adapter closes: each peer is told it leaves (a record with the leaving flag) and
    /// removed from the domain. Nothing is sent or accepted afterwards.
    void leave();

  private:
    struct peer_entry;

    peer_entry* find(const ip_address& a) const;
    peer_entry& join(const ip_address& a, bool sending);
    void send_record(peer_entry& e, timing::sim_time promise, std::uint64_t seen, bool leaving);
    void refuse(const ip_address& from, const char* why);

    timing::sync_domain& domain_;
    std::string who_;
    timing::sim_time propagation_;
    sender& out_;
    std::shared_ptr<frame_pool> pool_;
    std::map<ip_address, std::unique_ptr<peer_entry>> peers_;
    bool left_ = false;
    bool refusal_logged_ = false;
    socket_counters& counters_;
};

}  // namespace ndksim::wire
