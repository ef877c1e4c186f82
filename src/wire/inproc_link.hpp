// SPDX-License-Identifier: MIT
#pragma once
// The in-process link: adapters of one process reach each other by IP address through a
// process-wide fabric. A frame sent at simulated time t arrives at the receiver's scheduler
// at t + latency, where it runs as a task on the receiver's engine. In deterministic mode all
// adapters share one scheduler, so delivery order is fixed by (time, sequence) and repeats.

#include <map>
#include <memory>
#include <mutex>

#include "timing/scheduler.hpp"
#include "wire/transport.hpp"

namespace ndksim::wire {

struct inproc_endpoint;

class inproc_link final : public transport {
  public:
    /// Attaches an adapter owning `address` to the fabric; frames for it run on `sched` and are
    /// handed to `receive`. `latency` [ps] is the one-way delay added to every frame.
    /// Throws std::invalid_argument when another adapter of the process owns `address`.
    inproc_link(const ip_address& address, timing::scheduler& sched, receive_fn receive,
                timing::sim_time latency);

    /// Detaches from the fabric; frames still in flight to this adapter are dropped.
    ~inproc_link() override;

    inproc_link(const inproc_link&) = delete;
    inproc_link& operator=(const inproc_link&) = delete;

    /// The peer of `destination`, or nullptr when no adapter of the process owns it. Every
    /// connection to one destination shares one peer, and with it one flight of frames in
    /// deterministic mode: per-connection peers made each write of many connections touch a
    /// cold one. A peer is remade when its adapter was replaced at the same address.
    std::shared_ptr<peer> resolve(const ip_address& destination) override;
    void send(peer& to, frame* f, timing::sim_time departure) override;
    /// False: a frame goes from the sender's pool to the receiver's engine untouched.
    bool wants_icrc() const noexcept override { return false; }
    /// True when this adapter and `to`'s run on one deterministic loop, whose scheduler orders
    /// every frame between them.
    bool shares_timeline(const peer& to) const noexcept override;
    /// True where shares_timeline is: a lent frame's payload is read on the loop's thread, by
    /// the receiving engine, before the sender's request can complete.
    bool lends_payload(const peer& to) const noexcept override { return shares_timeline(to); }
    /// True while `to` is a threaded adapter whose engine has not yet run the arrival of
    /// every frame pushed to its inbox (by any sender), and is still attached.
    bool output_pending(const peer& to) const noexcept override;
    /// True while `to` is a threaded adapter, still attached and on this adapter's clock (no
    /// gate, the same pace), whose engine has not yet run an event it had due before `before`
    /// (scheduler::progress_mark).
    bool peer_behind(const peer& to, timing::sim_time before) const noexcept override;
    const ip_address& local_address() const noexcept override;
    const link_counters& counters() const noexcept override;

  private:
    std::shared_ptr<inproc_endpoint> self_;
    timing::scheduler& sched_;
    timing::sim_time latency_;
    std::mutex peers_mutex_;  // resolve only (connection setup)
    std::map<ip_address, std::weak_ptr<peer>> peers_;
};

}  // namespace ndksim::wire
