// SPDX-License-Identifier: MIT
#include "timing/sync_domain.hpp"

#include <algorithm>
#include <future>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "util/log.hpp"

namespace ndksim::timing {
namespace {

// How far past its clock a domain whose consumer waits promises to send nothing, when it has
// no event before that. Unbounded, a consumer acting on its own after a wait would find its
// work pushed to the end of time; at 0, two idle processes would promise each other one
// propagation more per record (the null-message creep of conservative simulation). An idle
// domain moves its clock to its horizon, so the bound moves on with each record.
constexpr sim_time k_idle_lookahead = milliseconds(1);

std::mutex g_domain_mutex;
std::weak_ptr<sync_domain> g_domain;
std::atomic<sync_domain*> g_active{nullptr};

// The domains alive, by id: a thread's state below names its domain by id, so a domain created
// at the address of one destroyed (tests make many) is not taken for it, and state left from a
// destroyed domain is dropped without touching it.
std::mutex g_live_mutex;
std::vector<std::uint64_t> g_live;
std::uint64_t g_next_id = 1;

std::uint64_t register_domain() {
    std::lock_guard lock(g_live_mutex);
    g_live.push_back(g_next_id);
    return g_next_id++;
}

void unregister_domain(std::uint64_t id) {
    std::lock_guard lock(g_live_mutex);
    std::erase(g_live, id);
}

bool live(std::uint64_t id) {
    return std::find(g_live.begin(), g_live.end(), id) != g_live.end();
}

// Whether the calling thread was handed completions and has not waited since: it is reacting,
// and simulated time must not move on under it. One domain per process, so one flag per
// thread; a thread that ends while reacting stops counting as one.
struct reacting_thread {
    sync_domain* domain = nullptr;
    std::uint64_t domain_id = 0;
    std::atomic<std::int32_t>* count = nullptr;
    bool reacting = false;
    // ndksim_adapter_wait: the domain's shown count when this thread's last wait returned, and
    // what its last wait that blocked acknowledged (what the thread had looked at by then).
    std::uint64_t shown_id = 0;
    std::uint64_t last_shown = 0;
    std::uint64_t last_acknowledged = 0;
    // It posted work since its last wait returned: its reaction to what that wait showed is
    // issued, with its time.
    bool acted_since_wait = false;
    // This thread waits in ndksim_adapter_wait and looks at memory between its waits (as
    // ib_write_lat does): counted in watchers until it blocks elsewhere or ends.
    std::atomic<std::int32_t>* watchers = nullptr;
    std::uint64_t watch_id = 0;
    // Its own acknowledgment slot in that domain, if one was free.
    sync_domain::watcher_slot* slot = nullptr;

    // Called for a live domain only (from within it, or with g_live_mutex held and the
    // domain found live).
    void stop_watching() noexcept {
        if (slot != nullptr) {
            slot->used.store(false, std::memory_order_seq_cst);
            slot = nullptr;
        }
        if (watchers != nullptr) {
            watchers->fetch_sub(1, std::memory_order_seq_cst);
            watchers = nullptr;
        }
        watch_id = 0;
    }

    void stop() noexcept {
        if (reacting) {
            reacting = false;
            count->fetch_sub(1, std::memory_order_seq_cst);
        }
    }

    // State left from another domain: given back if that domain still lives, else dropped.
    void leave_other_domains(std::uint64_t current) noexcept {
        if ((watch_id != 0 && watch_id != current) || (reacting && domain_id != current)) {
            std::lock_guard lock(g_live_mutex);
            if (watch_id != 0 && watch_id != current) {
                if (live(watch_id)) {
                    stop_watching();
                } else {
                    slot = nullptr;
                    watchers = nullptr;
                    watch_id = 0;
                }
            }
            if (reacting && domain_id != current) {
                if (live(domain_id)) {
                    stop();
                    domain->sched().kick();
                } else {
                    reacting = false;
                }
            }
        }
    }

    ~reacting_thread() { leave_other_domains(0); }
};
thread_local reacting_thread t_reacting;

void raise_to(std::atomic<std::uint64_t>& a, std::uint64_t v) noexcept {
    std::uint64_t cur = a.load(std::memory_order_seq_cst);
    while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_seq_cst)) {
    }
}

}  // namespace

struct sync_domain::keepalive_timer {
    explicit keepalive_timer(boost::asio::io_context& io) : timer(io) {}
    boost::asio::steady_timer timer;
};

std::shared_ptr<sync_domain> sync_domain::acquire(const options& opts) {
    std::lock_guard lock(g_domain_mutex);
    if (auto d = g_domain.lock()) {
        return d;
    }
    auto d = std::make_shared<sync_domain>(opts);
    g_domain = d;
    g_active.store(d.get(), std::memory_order_release);
    return d;
}

sync_domain* sync_domain::active() noexcept {
    return g_active.load(std::memory_order_acquire);
}

void note_callback_returned() noexcept {
    if (sync_domain* d = sync_domain::active()) {
        d->note_consumer_effect();
    }
}

void note_consumer_blocks() noexcept {
    if (sync_domain* d = sync_domain::active()) {
        d->consumer_blocks();
    }
}

sync_domain::sync_domain(const options& opts) : opts_(opts), id_(register_domain()) {
    scheduler::options o;
    o.mode = run_mode::threaded;
    o.poll = opts.poll;
    o.name = "ndksim-sync";
    o.gate = this;
    sched_ = std::make_unique<scheduler>(std::move(o));
    keepalive_ = std::make_unique<keepalive_timer>(sched_->io());
    NDKSIM_INFO("synchronized time: domain created (consumer grace {} ms, peer silence {} ms)",
                opts_.consumer_grace.count(), opts_.peer_silence.count());
}

sync_domain::~sync_domain() {
    unregister_domain(id_);
    {
        std::lock_guard lock(g_domain_mutex);
        sync_domain* self = this;
        g_active.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
    }
    // The timer belongs to the engine thread: it goes there, before the engine stops.
    std::promise<void> gone;
    boost::asio::post(sched_->io(), [this, &gone] {
        keepalive_.reset();
        gone.set_value();
    });
    gone.get_future().wait();
    // The engine thread reaches the scheduler through sched_ (went_idle, admit): it is joined
    // while sched_ still points at its scheduler.
    sched_->stop();
    const sync_counters c = counters();
    sched_.reset();
    NDKSIM_INFO(
        "synchronized time: domain destroyed ({} horizon waits, {} consumer stalls, {} inexact "
        "steps, {} horizon violations)",
        c.horizon_waits, c.consumer_stalls, c.inexact_steps, c.horizon_violations);
}

std::int64_t sync_domain::wall_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::uint64_t sync_domain::effect() noexcept {
    // The waiters wake once the engine stops for it (admit), after the event that showed it
    // has finished: a consumer must not look while that event still runs.
    return effects_.fetch_add(1, std::memory_order_seq_cst) + 1;
}

void sync_domain::wake_effect_waiters() noexcept {
    // Called between events only: what the waiters may look at now is complete.
    shown_.store(effects_.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
    if (effect_waiters_.load(std::memory_order_seq_cst) > 0) {
        // Taking the mutex orders the wake-up after a waiter's predicate check.
        { std::lock_guard lock(effect_mutex_); }
        effect_cv_.notify_all();
    }
}

void sync_domain::went_idle(std::chrono::nanoseconds& retry) noexcept {
    next_ = std::numeric_limits<sim_time>::max();
    retry = std::chrono::nanoseconds(0);
    if (!peers_.empty() && !gate_open()) {
        // With nothing to run, a consumer holding time holds this side's promise at the clock,
        // and a peer waiting for a frame already sent from here (or for an answer) waits with
        // it: both would stop for good. The grace runs here as it does in front of an event
        // (see held_grace).
        (void)consumer_grace_over(sched_->now(), held_grace(), retry);
    } else {
        consumer_stalled_.store(false, std::memory_order_relaxed);
    }
    advance_idle_clock();
    publish();
    wake_effect_waiters();
}

void sync_domain::advance_idle_clock() {
    // Nothing can arrive before the horizon, and the consumer waits: the clock may move up to
    // the horizon (or the next event), through an event that does nothing. That keeps this
    // domain's promises growing while it has nothing to do.
    if (peers_.empty() || !consumer_quiet()) {
        return;
    }
    const sim_time target = std::min(next_, horizon());
    if (target == std::numeric_limits<sim_time>::max() || target <= sched_->now() ||
        target <= idle_advance_) {
        return;
    }
    idle_advance_ = target;
    sched_->post_at(target, [] {});
}

void sync_domain::start_reacting() noexcept {
    t_reacting.leave_other_domains(id_);
    if (t_reacting.reacting) {
        return;
    }
    t_reacting.domain = this;
    t_reacting.domain_id = id_;
    t_reacting.count = &reacting_;
    t_reacting.reacting = true;
    reacting_.fetch_add(1, std::memory_order_seq_cst);
}

void sync_domain::consumer_acts() noexcept {
    if (!sched_->owned_here()) {
        start_reacting();
        t_reacting.acted_since_wait = true;
    }
}

void sync_domain::completion_queued() noexcept {
    unshown_.fetch_add(1, std::memory_order_seq_cst);
    effect();
}

void sync_domain::completions_announced(std::uint32_t n) noexcept {
    unshown_.fetch_add(n, std::memory_order_seq_cst);
}

void sync_domain::completions_polled(std::uint32_t counted, std::uint32_t returned) noexcept {
    if (returned == 0) {
        // An empty poll is a look at the CQs, not at what callbacks did meanwhile (a connect
        // event's flag): a thread that waits in ndksim_adapter_wait acknowledges what its
        // last wait showed it, a thread that only polls what was shown before this poll.
        // Nor is it a look at memory: a write's last byte that the last wait returned for is
        // what the thread reacts to until it acts or waits again (ib_write_lat sees the reply
        // land, drains its CQ, then posts the next write, all at the instant of the landing),
        // so until the thread has posted something the poll acknowledges only the effects
        // before it; once it has, its reaction carries its time, and a thread that spins on
        // its CQ for that post's completion lets time run on. Acknowledging an effect no one
        // has finished reacting to would let time run on while the consumer is about to act.
        if (t_reacting.shown_id != id_) {
            acknowledge(shown_.load(std::memory_order_seq_cst));
            return;
        }
        std::uint64_t upto = t_reacting.last_shown;
        const std::uint64_t placed = last_placement_.load(std::memory_order_seq_cst);
        if (!t_reacting.acted_since_wait && placed > t_reacting.last_acknowledged &&
            placed <= upto) {
            upto = placed - 1;
        }
        acknowledge(upto);
        return;
    }
    if (!sched_->owned_here()) {
        // Counted as reacting before its completions stop counting, so the engine never sees
        // neither between the two.
        start_reacting();
    }
    if (counted > 0) {
        unshown_.fetch_sub(counted, std::memory_order_seq_cst);
    }
}

void sync_domain::completions_dropped(std::uint32_t n) noexcept {
    if (n > 0) {
        unshown_.fetch_sub(n, std::memory_order_seq_cst);
        sched_->kick();
    }
}

void sync_domain::note_consumer_effect() noexcept {
    if (sched_->owned_here()) {
        effect();
    }
}

void sync_domain::data_placed() noexcept {
    if (watchers_.load(std::memory_order_seq_cst) > 0) {
        last_placement_.store(effect(), std::memory_order_seq_cst);
    }
}

void sync_domain::consumer_blocks() noexcept {
    if (t_reacting.watch_id == id_) {
        t_reacting.stop_watching();
    }
    consumer_waits();
}

void sync_domain::consumer_waits() noexcept {
    // A blocked thread is woken by whatever it waits for: it has reacted to every effect so
    // far, including one the engine has not stopped to show yet.
    acknowledge(effects_.load(std::memory_order_seq_cst));
}

void sync_domain::acknowledge(std::uint64_t effects) noexcept {
    if (sched_->owned_here()) {
        return;
    }
    if (t_reacting.reacting && t_reacting.domain_id == id_) {
        t_reacting.stop();
    }
    if (t_reacting.watch_id == id_ && t_reacting.slot != nullptr) {
        raise_to(t_reacting.slot->acked, effects);
    }
    raise_to(waited_, effects);
    sched_->kick();
}

sync_domain::watcher_slot* sync_domain::take_watcher_slot(std::uint64_t acked) noexcept {
    for (watcher_slot& slot : watcher_slots_) {
        bool expected = false;
        if (slot.used.compare_exchange_strong(expected, true, std::memory_order_seq_cst)) {
            slot.acked.store(acked, std::memory_order_seq_cst);
            return &slot;
        }
    }
    return nullptr;
}

bool sync_domain::wait_for_effect(std::chrono::milliseconds timeout) {
    if (sched_->owned_here()) {
        // A callback cannot wait for the engine that runs it.
        return false;
    }
    // What this thread was shown when its last wait returned. Something shown since (the
    // engine may have stopped for it between the thread's last look and this call) ends the
    // wait at once, before the thread says it waits: it has not reacted to that yet.
    t_reacting.leave_other_domains(id_);
    if (t_reacting.shown_id != id_) {
        t_reacting.shown_id = id_;
        t_reacting.last_shown = k_setup_effects;  // a thread new to the domain saw its setup
        t_reacting.last_acknowledged = k_setup_effects;
    }
    if (t_reacting.watch_id != id_) {
        t_reacting.watch_id = id_;
        t_reacting.watchers = &watchers_;
        watchers_.fetch_add(1, std::memory_order_seq_cst);
        t_reacting.slot = take_watcher_slot(t_reacting.last_shown);
    }
    const std::uint64_t seen = t_reacting.last_shown;
    if (shown_.load(std::memory_order_seq_cst) != seen) {
        t_reacting.last_shown = shown_.load(std::memory_order_seq_cst);
        t_reacting.acted_since_wait = false;
        return true;
    }
    effect_waiters_.fetch_add(1, std::memory_order_seq_cst);
    // Only what this thread was shown: an effect recorded by an event still running is shown
    // when the engine stops for it, and this wait returns for it then.
    t_reacting.last_acknowledged = seen;
    acknowledge(seen);
    std::unique_lock lock(effect_mutex_);
    const bool happened = effect_cv_.wait_for(lock, timeout, [&] {
        return shown_.load(std::memory_order_seq_cst) != seen || sched_->idle();
    });
    lock.unlock();
    effect_waiters_.fetch_sub(1, std::memory_order_seq_cst);
    t_reacting.last_shown = shown_.load(std::memory_order_seq_cst);
    t_reacting.acted_since_wait = false;
    return happened;
}

bool sync_domain::gate_open() const noexcept {
    const std::uint64_t effects = effects_.load(std::memory_order_seq_cst);
    if (forced_.load(std::memory_order_seq_cst) > effects) {
        return true;  // the grace expired since the last effect
    }
    if (reacting_.load(std::memory_order_seq_cst) != 0 ||
        unshown_.load(std::memory_order_seq_cst) > 0 ||
        waited_.load(std::memory_order_seq_cst) < effects) {
        return false;
    }
    if (watchers_.load(std::memory_order_seq_cst) > 0) {
        for (const watcher_slot& slot : watcher_slots_) {
            if (slot.used.load(std::memory_order_seq_cst) &&
                slot.acked.load(std::memory_order_seq_cst) < effects) {
                return false;  // a watching thread has not looked since
            }
        }
    }
    return true;
}

bool sync_domain::consumer_quiet() const noexcept {
    // The gate first: a consumer thread posts before it waits, so once its wait shows here its
    // task shows in the scheduler's inbox too, and a consumer that acted is never taken for
    // one that waits with nothing posted.
    return gate_open() && !sched_->has_foreign_tasks();
}

bool sync_domain::admit(sim_time next, std::chrono::nanoseconds& retry) noexcept {
    gate_checks_.store(gate_checks_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    retry = std::chrono::nanoseconds(0);
    next_ = next;
    if (next > horizon_.load(std::memory_order_seq_cst)) {
        // A peer could still send something due before this event: wait for its promise,
        // and tell the peers how far this side may go meanwhile.
        if (!horizon_stalled_.exchange(true, std::memory_order_relaxed)) {
            horizon_waits_.fetch_add(1, std::memory_order_relaxed);
        }
        if (!gate_open()) {
            // The consumer holds this side's promise at the clock meanwhile: if the peer
            // waits for this side too, only the grace lets either go on.
            (void)consumer_grace_over(next, held_grace(), retry);
        } else {
            consumer_stalled_.store(false, std::memory_order_relaxed);
        }
        advance_idle_clock();
        publish();
        wake_effect_waiters();
        return false;
    }
    if (!peers_.empty()) {
        publish();
    }
    horizon_stalled_.store(false, std::memory_order_relaxed);
    if (gate_open()) {
        consumer_stalled_.store(false, std::memory_order_relaxed);
        return true;
    }
    if (consumer_grace_over(next, opts_.consumer_grace, retry)) {
        return true;
    }
    publish();
    wake_effect_waiters();
    return false;
}

bool sync_domain::consumer_grace_over([[maybe_unused]] sim_time at,
                                      std::chrono::milliseconds grace_ms,
                                      std::chrono::nanoseconds& retry) noexcept {
    // A consumer that acknowledged more effects since the stall began answered in time: what
    // holds time now is a new reaction, and its grace starts afresh (the engine may not have
    // seen the gate open in between). Waits that acknowledge nothing new (a thread that waits
    // again and again while another holds time) do not restart it: effects grow only while
    // events run, so a stall restarts at most once this way.
    const std::uint64_t waited = waited_.load(std::memory_order_seq_cst);
    if (!consumer_stalled_.exchange(true, std::memory_order_relaxed) || waited != stall_waited_) {
        consumer_stalls_.fetch_add(1, std::memory_order_relaxed);
        stall_wall_ns_.store(wall_ns(), std::memory_order_relaxed);
        stall_waited_ = waited;
    }
    const auto grace = std::chrono::duration_cast<std::chrono::nanoseconds>(grace_ms);
    const std::int64_t held = wall_ns() - stall_wall_ns_.load(std::memory_order_relaxed);
    if (held >= grace.count()) {
        // The consumer did not react in time: time moves on without it, past the effects
        // shown so far. The run is no longer exact, and the counter says so.
        raise_to(forced_, effects_.load(std::memory_order_seq_cst) + 1);
        inexact_steps_.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_DEBUG("synchronized time: consumer grace expired at {} ps; inexact step", at);
        consumer_stalled_.store(false, std::memory_order_relaxed);
        wake_effect_waiters();
        return true;
    }
    retry = grace - std::chrono::nanoseconds(held);
    return false;
}

void sync_domain::running(sim_time when) noexcept {
    if (when > horizon_.load(std::memory_order_seq_cst)) [[unlikely]] {
        horizon_violations_.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_ERROR("synchronized time: an event at {} ps runs past the horizon {} ps", when,
                     horizon_.load());
    }
}

struct sync_peer {
    std::string name;
    sim_time propagation = 0;
    sync_channel* channel = nullptr;
    sim_time promise = 0;  // what it promised this domain
    // What this domain promised it last. It only grows, except that a record newly reporting
    // its frames seen may promise as little as their arrival (see publish).
    sim_time sent_promise = 0;
    bool sent_any = false;
    std::int64_t heard_ns = 0;     // wall time of its last record
    std::int64_t told_ns = 0;      // wall time of this domain's last record to it
    std::uint64_t seen_count = 0;  // of the frames sent to it, how many it reported seen
    // Of its frames, how many were read here (or known lost), and how many the last record
    // to it reported; the earliest arrival among those read since that record.
    std::uint64_t read_count = 0;
    std::uint64_t reported_read = 0;
    sim_time unreported_arrival = std::numeric_limits<sim_time>::max();
    // Departures of the frames sent to it and not yet reported seen, in the order they were
    // sent (the order the peer reads them), oldest at `head`. Departures need not grow with
    // it: a fault layer that reorders holds a frame back by raising its departure. `least`
    // holds indices into `unseen` whose departures increase, from `least_head` on: the least
    // departure still unseen is the first (a sliding-window minimum). The vectors only grow to
    // the most frames ever in flight, so the steady state allocates nothing.
    std::vector<sim_time> unseen;
    std::size_t head = 0;
    std::vector<std::size_t> least;
    std::size_t least_head = 0;

    bool has_unseen() const noexcept { return head < unseen.size(); }
    /// The least departure among the frames it has not reported seen.
    sim_time least_unseen() const noexcept { return unseen[least[least_head]]; }
    std::uint64_t sent_count() const noexcept { return seen_count + (unseen.size() - head); }

    void push_unseen(sim_time departure) {
        while (least.size() > least_head && unseen[least.back()] >= departure) {
            least.pop_back();
        }
        least.push_back(unseen.size());
        unseen.push_back(departure);
    }

    void drop_seen(std::size_t newly) {
        head = std::min(unseen.size(), head + newly);
        while (least_head < least.size() && least[least_head] < head) {
            ++least_head;
        }
        if (head == unseen.size()) {
            unseen.clear();
            least.clear();
            head = 0;
            least_head = 0;
        }
    }
};

std::chrono::milliseconds sync_domain::held_grace() const noexcept {
    // A frame sent from here that a peer has not reported seen may be what it waits for, with
    // this side's promise short of its arrival: the consumer's grace. Otherwise a peer waits
    // here only if it needs this side's promise to go on by itself, and a consumer that is
    // merely slow to react (descheduled on a busy host) should not cost an exact run its
    // exactness for that: the longer keepalive period, which still ends any such wait.
    for (const auto& p : peers_) {
        if (p->has_unseen()) {
            return opts_.consumer_grace;
        }
    }
    return std::max(opts_.consumer_grace,
                    std::chrono::duration_cast<std::chrono::milliseconds>(opts_.peer_silence / 4));
}

sync_peer* sync_domain::add_peer(std::string name, sim_time propagation, sync_channel& channel) {
    auto p = std::make_unique<sync_peer>();
    p->name = std::move(name);
    p->propagation = propagation;
    p->channel = &channel;
    p->heard_ns = wall_ns();
    NDKSIM_INFO("synchronized time: peer {} joined (lookahead {} ps)", p->name, propagation);
    sync_peer* raw = p.get();
    peers_.push_back(std::move(p));
    peer_count_.store(peers_.size(), std::memory_order_relaxed);
    recompute_horizon();
    arm_keepalive();
    publish();
    return raw;
}

bool sync_domain::peer_record(sync_peer* p, sim_time promise, std::uint64_t frames_seen,
                              std::uint64_t frames_sent) {
    if (frames_seen > p->sent_count()) {
        return false;
    }
    sync_received_.fetch_add(1, std::memory_order_relaxed);
    p->heard_ns = wall_ns();
    p->read_count = std::max(p->read_count, frames_sent);
    if (frames_seen > p->seen_count) {
        // The promise now covers the answers to the frames it reports seen: it may lie below
        // the one before, down to their arrival, which bounded the horizon until now.
        const std::uint64_t newly = frames_seen - p->seen_count;
        p->seen_count = frames_seen;
        p->drop_seen(static_cast<std::size_t>(newly));
        p->promise = promise;
    } else {
        p->promise = std::max(p->promise, promise);
    }
    recompute_horizon();
    advance_idle_clock();
    sched_->kick();
    return true;
}

void sync_domain::frame_sent(sync_peer* p, sim_time departure) {
    p->push_unseen(departure);
    recompute_horizon();
}

void sync_domain::frame_read(sync_peer* p, sim_time arrival) {
    ++p->read_count;
    p->unreported_arrival = std::min(p->unreported_arrival, arrival);
    // Its delivery is queued now: until the engine next looks at its queue, what this domain
    // promises must already count it.
    next_ = std::min(next_, sched_->now());
}

void sync_domain::frame_arrived_late() noexcept {
    late_frames_.fetch_add(1, std::memory_order_relaxed);
}

void sync_domain::remove_peer(sync_peer* p, bool lost) {
    auto it = std::find_if(peers_.begin(), peers_.end(),
                           [p](const std::unique_ptr<sync_peer>& q) { return q.get() == p; });
    if (it == peers_.end()) {
        return;
    }
    std::unique_ptr<sync_peer> gone = std::move(*it);
    peers_.erase(it);
    peer_count_.store(peers_.size(), std::memory_order_relaxed);
    recompute_horizon();
    if (lost) {
        peers_lost_.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_WARN(
            "synchronized time: peer {} lost (no sync record for {} ms); its connections fail "
            "as on a lost link",
            gone->name, opts_.peer_silence.count());
        gone->channel->lost();
    }
    sched_->kick();
}

void sync_domain::recompute_horizon() {
    sim_time h = std::numeric_limits<sim_time>::max();
    for (const auto& p : peers_) {
        // A frame the peer has not reported seen may make it send one propagation after it
        // arrives, whatever it promised before.
        sim_time bound = p->promise;
        if (p->has_unseen()) {
            bound = std::min(bound, p->least_unseen() + p->propagation);
        }
        h = std::min(h, bound + p->propagation);
    }
    horizon_.store(h, std::memory_order_seq_cst);
}

sim_time sync_domain::own_earliest() const noexcept {
    // The earliest this domain could send anything: its clock while the consumer is acting or
    // has something to react to; else its next event, but no further than k_idle_lookahead
    // past its clock (a waiting consumer may still act on its own, and its work then lands
    // at the least promise made: post_floor); and the echo of its frames still unseen (a
    // peer's answer comes back two propagations after they left).
    const sim_time now = sched_->now();
    sim_time e = consumer_quiet() ? std::min(next_, now + k_idle_lookahead) : now;
    for (const auto& p : peers_) {
        if (p->has_unseen()) {
            e = std::min(e, p->least_unseen() + 2 * p->propagation);
        }
    }
    return e;
}

void sync_domain::publish() {
    if (peers_.empty()) {
        return;
    }
    const sim_time own = own_earliest();
    const std::int64_t now_ns = wall_ns();
    const std::int64_t keepalive_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(opts_.peer_silence).count() / 4;
    const bool stalled = horizon_stalled_.load(std::memory_order_relaxed) ||
                         consumer_stalled_.load(std::memory_order_relaxed) ||
                         next_ == std::numeric_limits<sim_time>::max();
    sim_time floor = std::numeric_limits<sim_time>::max();
    for (const auto& p : peers_) {
        // What this domain promises p leaves out p's own echo (p accounts for what its
        // frames may make this side send), but not what the other peers may make it send.
        sim_time promise = own;
        for (const auto& q : peers_) {
            if (q != p) {
                promise = std::min(promise, q->promise + q->propagation);
            }
        }
        // A promise never goes back, except towards the arrival of p's frames this record
        // newly reports seen: p bounded its horizon by their arrival until now, and the
        // answers to them (a consumer's reaction included) may leave from there.
        promise = std::max(promise, std::min(p->sent_promise, p->unreported_arrival));
        // Sent when it moved by a lookahead (the peer's horizon grows by one), whenever it
        // moved while this side waits (the peer may be waiting for exactly that), when p's
        // frames were read since the last record (p's horizon waits on their echo), and as a
        // keepalive.
        const bool moved = !p->sent_any || promise >= p->sent_promise + p->propagation ||
                           (promise > p->sent_promise && stalled) ||
                           p->read_count != p->reported_read;
        if ((moved || now_ns - p->told_ns >= keepalive_ns) &&
            p->channel->send_promise(promise, p->read_count)) {
            p->sent_any = true;
            p->sent_promise = promise;
            p->reported_read = p->read_count;
            p->unreported_arrival = std::numeric_limits<sim_time>::max();
            p->told_ns = now_ns;
            sync_sent_.fetch_add(1, std::memory_order_relaxed);
        }
        floor = std::min(floor, p->sent_promise);
    }
    promised_floor_.store(floor, std::memory_order_seq_cst);
}

void sync_domain::check_silence() {
    const std::int64_t now_ns = wall_ns();
    const std::int64_t silence_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(opts_.peer_silence).count();
    for (std::size_t i = 0; i < peers_.size();) {
        if (now_ns - peers_[i]->heard_ns > silence_ns) {
            remove_peer(peers_[i].get(), true);
        } else {
            ++i;
        }
    }
}

void sync_domain::arm_keepalive() {
    if (keepalive_armed_ || peers_.empty()) {
        return;
    }
    keepalive_armed_ = true;
    keepalive_->timer.expires_after(opts_.peer_silence / 4);
    keepalive_->timer.async_wait([this](const boost::system::error_code& ec) {
        keepalive_armed_ = false;
        if (ec) {
            return;
        }
        publish();
        check_silence();
        arm_keepalive();
    });
}

void sync_domain::post_deferred() noexcept {
    deferred_posts_.fetch_add(1, std::memory_order_relaxed);
}

sim_time sync_domain::post_floor() const noexcept {
    return promised_floor_.load(std::memory_order_seq_cst);
}

sim_time sync_domain::horizon() const noexcept {
    return horizon_.load(std::memory_order_seq_cst);
}

sync_counters sync_domain::counters() const {
    sync_counters c;
    c.sync_messages_sent = sync_sent_.load(std::memory_order_relaxed);
    c.sync_messages_received = sync_received_.load(std::memory_order_relaxed);
    c.horizon_waits = horizon_waits_.load(std::memory_order_relaxed);
    c.horizon_violations = horizon_violations_.load(std::memory_order_relaxed);
    c.consumer_stalls = consumer_stalls_.load(std::memory_order_relaxed);
    c.inexact_steps = inexact_steps_.load(std::memory_order_relaxed);
    c.peers_lost = peers_lost_.load(std::memory_order_relaxed);
    c.late_frames = late_frames_.load(std::memory_order_relaxed);
    c.deferred_posts = deferred_posts_.load(std::memory_order_relaxed);
    c.horizon = horizon();
    c.peers = peer_count_.load(std::memory_order_relaxed);
    return c;
}

}  // namespace ndksim::timing
