// SPDX-License-Identifier: MIT
#pragma once
// A transport decorator that records the frames of one adapter to a pcap file (pcap_writer):
// every frame the adapter sends, at its departure time, and every frame it receives, at its
// arrival time (the wrapped receive function runs on the engine at the arrival time).
//
// Several adapters of one process may name the same file. They then share one writer
// (process-wide, reference-counted, one lock per file), and a frame between two adapters of
// the same file is recorded once, by its sender: a receiver skips frames whose source address
// belongs to another adapter recording to the file. An adapter alone on its file therefore
// records both directions, and frames from adapters outside the file are always recorded.
// docs/capture.md describes the format and the timestamps.

#include <memory>
#include <string>

#include "timing/scheduler.hpp"
#include "wire/transport.hpp"

namespace ndksim::wire {

class shared_capture;

class capture_link final : public transport {
  public:
    /// Opens (or joins) the capture `path` for the adapter owning `address`. Returns the
    /// receive function to give the inner transport: it records each arriving frame at
    /// `sched.now()` and passes it on to `receive`. Throws std::runtime_error naming the path
    /// and strerror when the file cannot be opened.
    static receive_fn wrap(const std::string& path, const ip_address& address,
                           timing::scheduler& sched, receive_fn receive,
                           std::shared_ptr<shared_capture>& capture);

    /// Decorates `inner` (built with the receive function wrap() returned) with the capture.
    capture_link(std::unique_ptr<transport> inner, std::shared_ptr<shared_capture> capture);

    /// Leaves the capture; the last adapter on a file flushes and closes it.
    ~capture_link() override;

    capture_link(const capture_link&) = delete;
    capture_link& operator=(const capture_link&) = delete;

    std::shared_ptr<peer> resolve(const ip_address& destination) override;
    void send(peer& to, frame* f, timing::sim_time departure) override;
    /// The inner link's answer: the capture computes an elided ICRC itself, for the frames it
    /// records (a pcap's frames carry their ICRC, docs/capture.md).
    bool wants_icrc() const noexcept override { return inner_->wants_icrc(); }
    void confirm_peer(const ip_address& source) override { inner_->confirm_peer(source); }
    bool input_pending() const noexcept override { return inner_->input_pending(); }
    bool output_pending(const peer& to) const noexcept override {
        return inner_->output_pending(to);
    }
    bool peer_behind(const peer& to, timing::sim_time before) const noexcept override {
        return inner_->peer_behind(to, before);
    }
    /// The inner link's answer: a frame built at its departure is recorded then.
    bool shares_timeline(const peer& to) const noexcept override;
    bool is_sync_peer(const ip_address& source) const noexcept override {
        return inner_->is_sync_peer(source);
    }
    const ip_address& local_address() const noexcept override;
    const link_counters& counters() const noexcept override;

    /// The transport under the capture.
    transport& inner() noexcept { return *inner_; }

  private:
    std::unique_ptr<transport> inner_;
    std::shared_ptr<shared_capture> capture_;
    ip_address address_;
};

}  // namespace ndksim::wire
