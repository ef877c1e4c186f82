// SPDX-License-Identifier: MIT
#pragma once
// Fault injection on one adapter's end of the link: a transport decorator that loses,
// duplicates, reorders, corrupts and delays the frames the adapter sends, and can cut the link
// in both directions (ndksim_link_faults in ndksim.h).
//
//   engine --send--> faulty_link --send (maybe twice, maybe later)--> base transport
//   engine <--rx---- faulty_link <--rx (nothing while cut)----------- base transport
//
// Every draw comes from one seeded generator that only the sending engine's thread advances,
// so a deterministic run repeats exactly. Delay and reordering add to the departure time the
// base transport is given: a frame held back is simply delivered later, so later frames pass
// it, and no timer or copy is needed. The settings are atomics: a consumer thread may change
// them while the engine sends, and a new seed is picked up at the next frame.

#include <atomic>
#include <cstdint>
#include <memory>

#include "wire/transport.hpp"

namespace ndksim::wire {

/// What to inject; rates are parts per million of frames (0 ... 1'000'000).
struct fault_settings {
    std::uint32_t drop_ppm = 0;
    std::uint32_t duplicate_ppm = 0;
    std::uint32_t reorder_ppm = 0;
    std::uint32_t corrupt_ppm = 0;
    timing::sim_time delay_ps = 0;          ///< added to every frame's departure
    timing::sim_time reorder_delay_ps = 0;  ///< hold-back of a reordered frame; 0 = 10 us
    std::uint64_t seed = 0;                 ///< must be non-zero (the caller resolves 0)
};

/// How many frames each fault touched (relaxed atomics, read by statistics and tests).
struct fault_counters {
    std::atomic<std::uint64_t> dropped{0};
    std::atomic<std::uint64_t> duplicated{0};
    std::atomic<std::uint64_t> reordered{0};
    std::atomic<std::uint64_t> corrupted{0};
    std::atomic<std::uint64_t> delayed{0};
    std::atomic<std::uint64_t> cut_sent{0};      ///< frames lost on the way out while cut
    std::atomic<std::uint64_t> cut_received{0};  ///< frames lost on the way in while cut
};

/// The hold-back of a reordered frame when the settings give 0 [ps].
inline constexpr timing::sim_time k_default_reorder_delay = 10'000'000;

/// The largest rate a setting may carry (every frame).
inline constexpr std::uint32_t k_fault_ppm_max = 1'000'000;

class faulty_link final : public transport {
  public:
    /// `receive` is the engine's frame entry; the base transport must be given receiver()
    /// instead, then handed over with attach().
    faulty_link(const fault_settings& settings, receive_fn receive);

    faulty_link(const faulty_link&) = delete;
    faulty_link& operator=(const faulty_link&) = delete;

    /// The receive function to build the base transport with: it drops frames while the
    /// link is cut and passes the others to the engine. Valid while this object lives.
    receive_fn receiver();

    /// Takes over the base transport every frame goes through.
    void attach(std::unique_ptr<transport> base);

    /// Any thread: replaces the settings (a new seed restarts the draws at the next frame).
    void configure(const fault_settings& settings);

    /// Any thread: cuts (true) or restores (false) both directions.
    void cut(bool on) noexcept { cut_.store(on, std::memory_order_release); }
    bool is_cut() const noexcept { return cut_.load(std::memory_order_acquire); }

    const fault_counters& faults() const noexcept { return faults_; }
    transport& base() noexcept { return *base_; }

    // transport
    std::shared_ptr<peer> resolve(const ip_address& destination) override;
    /// Engine thread only (it takes duplicate frames from the sending frame's pool).
    void send(peer& to, frame* f, timing::sim_time departure) override;
    /// True while corruption is on (the receiver must see it as a bad ICRC), else the base's.
    bool wants_icrc() const noexcept override;
    void confirm_peer(const ip_address& source) override { base_->confirm_peer(source); }
    bool input_pending() const noexcept override { return base_->input_pending(); }
    bool output_pending(const peer& to) const noexcept override {
        return base_->output_pending(to);
    }
    bool peer_behind(const peer& to, timing::sim_time before) const noexcept override {
        return base_->peer_behind(to, before);
    }
    /// The base's answer: a frame built at its departure meets its fate when handed over.
    bool shares_timeline(const peer& to) const noexcept override {
        return base_->shares_timeline(to);
    }
    /// The base's answer: send() materializes a lent frame while it may delay, reorder,
    /// duplicate or corrupt frames.
    bool lends_payload(const peer& to) const noexcept override { return base_->lends_payload(to); }
    bool is_sync_peer(const ip_address& source) const noexcept override {
        return base_->is_sync_peer(source);
    }
    const ip_address& local_address() const noexcept override;
    const link_counters& counters() const noexcept override;

  private:
    bool draw(std::uint32_t ppm) noexcept;
    std::uint64_t next() noexcept;
    void on_receive(frame* f);

    std::unique_ptr<transport> base_;
    receive_fn receive_;
    std::atomic<std::uint32_t> drop_ppm_{0};
    std::atomic<std::uint32_t> duplicate_ppm_{0};
    std::atomic<std::uint32_t> reorder_ppm_{0};
    std::atomic<std::uint32_t> corrupt_ppm_{0};
    std::atomic<timing::sim_time> delay_ps_{0};
    std::atomic<timing::sim_time> reorder_delay_ps_{k_default_reorder_delay};
    std::atomic<std::uint64_t> seed_{1};
    std::atomic<std::uint64_t> seed_generation_{0};
    std::atomic<bool> cut_{false};
    std::uint64_t seeded_generation_ = 0;  // engine thread only
    std::uint64_t state_ = 0;              // engine thread only: the generator
    fault_counters faults_;
};

}  // namespace ndksim::wire
