// SPDX-License-Identifier: MIT
#pragma once
// Synchronized time (NDKSIM_TIME_SYNCHRONIZED; docs/timing.md, "Time modes"): conservative
// synchronization of simulated clocks, as parallel discrete-event simulators do it (Chandy and
// Misra's null messages; SimBricks between its component simulators).
//
// The synchronized adapters of a process form one domain: they share one threaded scheduler,
// so their events run on one engine thread in (time, sequence) order, exactly the order a
// deterministic loop shared by the same adapters gives. The scheduler's clock is the event
// clock alone; nothing ties it to the wall clock. Two things decide when its next event may
// run (the domain is the scheduler's run_gate):
//
//  - Peers (other processes or hosts). Each peer promises the earliest simulated time at which
//    it could still send anything; a frame sent at t arrives no earlier than t + the link's
//    propagation, the lookahead. An event at time t runs only when t <= the horizon, the
//    minimum over the peers of (promise + propagation), and never while a frame a peer sent
//    has not been seen here. The domain counts events that would run past the horizon (none
//    should: running() checks each event) and the stalls spent waiting for a promise.
//
//  - The consumer, which runs outside the simulation on threads of its own. A consumer thread
//    acts at the simulated time it finds when it acts, so after the simulation showed it
//    something (a completion queued, a callback run: an effect), simulated time stays where it
//    is until the consumer has reacted: every completion queued has been polled (or the CQ
//    closed), every thread that polled completions has since waited (an empty poll, a blocking
//    wait in the scheduler or in ndksim_adapter_wait), and some thread waited after the last
//    effect. A consumer that does not react within the grace (wall time) lets time advance
//    anyway; each such step is counted as inexact, so a report shows that the run was not
//    exact.
//
// Thread-safety: every member is safe from any thread; the gate state is atomics, the peer
// table a mutex (peers change at connection setup and on sync records, never per event).

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "timing/scheduler.hpp"
#include "timing/sim_time.hpp"
#include "timing/sync_options.hpp"

namespace ndksim::timing {

/// Counters of a domain (ndksim_adapter_stats_json, "synchronization").
struct sync_counters {
    std::uint64_t sync_messages_sent = 0;      ///< promises sent to peers
    std::uint64_t sync_messages_received = 0;  ///< promises received from peers
    std::uint64_t horizon_waits = 0;           ///< times the next event waited for a peer's promise
    std::uint64_t horizon_violations = 0;      ///< events run past the horizon (a defect if not 0)
    /// Times the engine (in front of an event, idle or at its horizon) waited for the consumer.
    std::uint64_t consumer_stalls = 0;
    std::uint64_t inexact_steps = 0;  ///< grace expiries: time moved on without a reaction
    std::uint64_t peers = 0;          ///< peers now
    std::uint64_t peers_lost = 0;     ///< peers declared lost (silence or disconnection)
    std::uint64_t late_frames = 0;    ///< frames that arrived behind the clock (first contact)
    /// Consumer tasks that ran later than the clock when they were posted, because the domain
    /// had promised its peers to send nothing before then (a consumer acting on its own after
    /// a wait): their timing depended on the host.
    std::uint64_t deferred_posts = 0;
    sim_time horizon = 0;  ///< current horizon [ps]; max when no peer
};

/// How the domain reaches one peer: implemented by the socket transports.
class sync_channel {
  public:
    virtual ~sync_channel() = default;
    /// Sends the peer a sync record carrying `promise` [ps] and `frames_seen`, how many of
    /// its frames this side has read (or knows lost). False when nothing was sent (the peer
    /// could not take it yet): the domain sends again at its next chance.
    virtual bool send_promise(sim_time promise, std::uint64_t frames_seen) = 0;
    /// The peer fell silent: the channel stops using it.
    virtual void lost() = 0;
};

/// A peer of the domain (opaque outside sync_domain.cpp).
struct sync_peer;

class sync_domain final : public run_gate {
  public:
    using options = sync_options;

    /// What one thread that waits in wait_for_effect has acknowledged (see gate_open).
    struct watcher_slot {
        std::atomic<bool> used{false};
        std::atomic<std::uint64_t> acked{0};
    };

    /// The process's domain, created by the first synchronized adapter with `opts` (later
    /// adapters share it, whatever their options) and destroyed with the last reference.
    static std::shared_ptr<sync_domain> acquire(const options& opts);

    /// The live domain of the process, or nullptr: for the consumer-side hooks (CQ polls,
    /// callbacks, kernel waits) that do not know their adapter's mode.
    static sync_domain* active() noexcept;

    explicit sync_domain(const options& opts);
    ~sync_domain() override;

    sync_domain(const sync_domain&) = delete;
    sync_domain& operator=(const sync_domain&) = delete;

    /// The scheduler every adapter of the domain runs on.
    scheduler& sched() noexcept { return *sched_; }

    // ---- the consumer gate ---------------------------------------------------------------

    /// Engine: a completion was queued where the consumer polls for it.
    void completion_queued() noexcept;

    /// Engine: completions counted by completion_queued became visible later (a CQ whose
    /// notification announced them); `n` more to be polled.
    void completions_announced(std::uint32_t n) noexcept;

    /// A poll removed `counted` completions that completion_queued or completions_announced
    /// counted, out of `returned` entries handed to the consumer. A consumer thread that was
    /// handed entries is reacting until it waits; one handed none waits.
    void completions_polled(std::uint32_t counted, std::uint32_t returned) noexcept;

    /// Completions counted and never polled (their CQ closed): `n` fewer to wait for.
    void completions_dropped(std::uint32_t n) noexcept;

    /// Engine: a consumer callback returned (it may have woken a consumer thread).
    void note_consumer_effect() noexcept;

    /// Engine: an incoming write's last byte was placed in the consumer's memory. A thread
    /// that waits in wait_for_effect may be watching that memory between its waits (as
    /// ib_write_lat watches the last byte of a write), so while such a thread exists this is an
    /// effect, and time stays at the placement until a thread has looked and waited again.
    /// A thread stops counting as one when it blocks in a kernel wait or ends.
    void data_placed() noexcept;

    /// A consumer thread blocks in a wait the simulation knows of but that watches no memory
    /// (a kernel wait): it waits (consumer_waits) and no longer counts as watching.
    void consumer_blocks() noexcept;

    /// A consumer thread waits for the simulation (it has reacted to what it was shown).
    /// Ignored on the engine thread: a callback's own work is already in the event order.
    void consumer_waits() noexcept override;

    /// A consumer thread posted work: it is acting, and time stays where it is until it waits.
    void consumer_acts() noexcept override;

    /// ndksim_adapter_wait: notes a wait, then blocks until the next effect, until nothing is
    /// left to run, or for `timeout`. False on the timeout.
    bool wait_for_effect(std::chrono::milliseconds timeout);

    // ---- peers (engine thread only) -------------------------------------------------------

    /// Adds a peer reached over a link with one-way `propagation` [ps] (the lookahead), which
    /// the domain tells its promises through `channel`. `name` is for log lines. Its promise
    /// starts at 0: nothing runs past the lookahead until it has spoken.
    sync_peer* add_peer(std::string name, sim_time propagation, sync_channel& channel);

    /// A sync record from `p`: it promises to send nothing before `promise` [ps] (its promise
    /// leaves out what this domain's frames it had not read could make it send), it has read
    /// `frames_seen` of the frames this domain sent it, and it had sent `frames_sent` frames
    /// here before the record. The record travels behind those frames on one ordered flow, so
    /// any of them not read by now was lost on the way and is counted as read. False, changing
    /// nothing, when the record claims more frames seen than this domain sent `p`: a peer
    /// that is broken or not the one it claims to be.
    [[nodiscard]] bool peer_record(sync_peer* p, sim_time promise, std::uint64_t frames_seen,
                                   std::uint64_t frames_sent);

    /// A frame left for `p` at `departure` [ps]: until `p` reports it seen, `p` may answer it
    /// one propagation after it arrives, whatever it promised before.
    void frame_sent(sync_peer* p, sim_time departure);

    /// A frame from `p` due here at `arrival` [ps] was read and queued: the next record to `p`
    /// reports it seen, with a promise that no longer leaves out the answer to it.
    void frame_read(sync_peer* p, sim_time arrival);

    /// A frame matched its connection or listener behind the clock and ran at once: its
    /// sender was not yet a peer when it left (first contact), so the run is not exact.
    void frame_arrived_late() noexcept;

    /// `p` is gone: it no longer bounds the horizon. `lost`: it died or fell silent (counted,
    /// logged, and its channel told so its connections fail).
    void remove_peer(sync_peer* p, bool lost);

    /// Sends each peer this domain's promise to it when it moved, and checks the peers'
    /// silence against the options (every peer_silence / 4 of wall time at least).
    void publish();

    /// Minimum over the peers of (promise + propagation); max when there is none.
    sim_time horizon() const noexcept;

    sync_counters counters() const;

    /// Times the engine asked whether its next event may run (admit): a test that changes
    /// what the gate sees waits for the next check to know the engine has seen the change.
    std::uint64_t gate_checks() const noexcept {
        return gate_checks_.load(std::memory_order_acquire);
    }

    // ---- run_gate ------------------------------------------------------------------------
    bool admit(sim_time next, std::chrono::nanoseconds& retry) noexcept override;
    void running(sim_time when) noexcept override;
    void went_idle(std::chrono::nanoseconds& retry) noexcept override;
    sim_time post_floor() const noexcept override;
    void post_deferred() noexcept override;

  private:
    // Counts one effect; returns the count with it.
    std::uint64_t effect() noexcept;
    /// A consumer thread waits, having reacted to the first `effects` effects.
    void acknowledge(std::uint64_t effects) noexcept;
    void wake_effect_waiters() noexcept;
    void start_reacting() noexcept;
    bool gate_open() const noexcept;
    bool consumer_quiet() const noexcept;
    /// The engine cannot go on while the gate is closed: true once the consumer has held
    /// time for the whole `grace` since the engine began to wait for it (time then moves on
    /// without it: an inexact step); else false, with `retry` the grace left.
    bool consumer_grace_over(sim_time at, std::chrono::milliseconds grace,
                             std::chrono::nanoseconds& retry) noexcept;
    /// The grace of a consumer holding time while the domain is idle or at its horizon.
    std::chrono::milliseconds held_grace() const noexcept;
    void recompute_horizon();
    sim_time own_earliest() const noexcept;
    void check_silence();
    void arm_keepalive();
    void advance_idle_clock();
    static std::int64_t wall_ns() noexcept;

    options opts_;
    // This domain among all a process creates over its life (threads' state names it by id).
    const std::uint64_t id_;

    // Gate: effects so far, the effect count the last wait saw, one more than the count a
    // grace expiry let pass (0: none), completions to poll, consumer threads reacting, and
    // when the engine began to wait for the consumer.
    // A new domain counts one effect: its consumer is acting (setting up) until it first
    // waits, so time does not move, nor is anything promised beyond the clock, before that.
    static constexpr std::uint64_t k_setup_effects = 1;
    std::atomic<std::uint64_t> effects_{k_setup_effects};
    std::atomic<std::uint64_t> waited_{0};
    // effects_ as of the engine's last stop. It starts at the setup effect, which is nothing to
    // look at: the engine's first stop (at its start, with nothing queued) shows no change.
    std::atomic<std::uint64_t> shown_{k_setup_effects};
    std::atomic<std::uint64_t> forced_{0};
    std::atomic<std::int64_t> unshown_{0};
    std::atomic<std::int32_t> reacting_{0};
    std::atomic<std::int64_t> stall_wall_ns_{0};
    std::atomic<bool> consumer_stalled_{false};
    std::uint64_t stall_waited_ = 0;  // waited_ when the stall began (engine thread)
    std::atomic<bool> horizon_stalled_{false};

    // ndksim_adapter_wait's waiters.
    std::mutex effect_mutex_;
    std::condition_variable effect_cv_;
    std::atomic<int> effect_waiters_{0};
    // Threads that wait in wait_for_effect and look at memory between waits (data_placed).
    std::atomic<std::int32_t> watchers_{0};
    // The effect the last data_placed counted (0: none): an empty poll is no look at memory.
    std::atomic<std::uint64_t> last_placement_{0};

    // A watcher's own acknowledgment: an effect shown to several consumer threads (the
    // listener's connect event while the connector's thread waits too) has been reacted to only
    // once every watching thread has looked since, not when any one of them waits. Threads
    // beyond the last slot count through waited_ alone.
    static constexpr std::size_t k_watcher_slots = 16;
    std::array<watcher_slot, k_watcher_slots> watcher_slots_;
    watcher_slot* take_watcher_slot(std::uint64_t acked) noexcept;

    // Peers: engine thread only.
    std::vector<std::unique_ptr<sync_peer>> peers_;
    sim_time next_ = std::numeric_limits<sim_time>::max();  // earliest queued event
    std::int64_t last_silence_check_ns_ = 0;
    std::atomic<sim_time> horizon_{std::numeric_limits<sim_time>::max()};
    std::atomic<std::uint64_t> peer_count_{0};
    // The least promise this domain has sent a peer: a consumer acting now acts no earlier.
    std::atomic<sim_time> promised_floor_{0};
    struct keepalive_timer;
    std::unique_ptr<keepalive_timer> keepalive_;  // engine thread; destroyed there
    bool keepalive_armed_ = false;
    sim_time idle_advance_ = 0;  // the last clock advance posted (engine thread)
    std::atomic<std::uint64_t> sync_sent_{0};
    std::atomic<std::uint64_t> sync_received_{0};
    std::atomic<std::uint64_t> horizon_waits_{0};
    std::atomic<std::uint64_t> horizon_violations_{0};
    std::atomic<std::uint64_t> consumer_stalls_{0};
    std::atomic<std::uint64_t> gate_checks_{0};  // engine thread writes
    std::atomic<std::uint64_t> inexact_steps_{0};
    std::atomic<std::uint64_t> peers_lost_{0};
    std::atomic<std::uint64_t> late_frames_{0};
    std::atomic<std::uint64_t> deferred_posts_{0};

    std::unique_ptr<scheduler> sched_;  // last member: its engine thread stops first
};

}  // namespace ndksim::timing
