// SPDX-License-Identifier: MIT
#pragma once
// The scheduler runs an adapter's events on the simulated clock.
//
// Two run modes (ARCHITECTURE.md "Simulated time is first-class"):
//  - deterministic: no thread. The owner (a test, through ndksim_loop) drives the events with
//    run_one / run_until_idle / run_for. Several adapters can share one deterministic scheduler,
//    so one seed and one call sequence give the same events and the same results every time.
//  - threaded: one engine thread per scheduler runs a Boost.Asio io_context; simulated events
//    are drained from it in batches between I/O handlers, so sockets added later share the thread.
//    Here the simulated clock is tied to the wall clock: it never falls behind the time elapsed
//    since the process's first threaded scheduler started (one epoch for all, so that the
//    adapters' clocks agree), and an event may run at most `wall_slack` ahead of it. Work
//    that costs nanoseconds to microseconds runs at once, while timeouts and back-offs (RNR,
//    connection management, moderation) take their time on the wall clock as well, so a peer
//    thread or the consumer has the time to answer before they fire.
//    Two time modes shape that tie (ndksim_time_mode):
//      virtual - an event may run up to `wall_slack` ahead of the wall clock: short work runs as
//                fast as the host allows, long waits keep their wall duration;
//      paced   - an event at simulated time t is held until the wall time elapsed reaches
//                t x `pace_factor`, so a consumer's timeouts see the modelled delays (scaled).
//    drain() lifts the tie for an adapter being destroyed, so its leftover timers run at once.
//    A threaded scheduler given a run_gate (synchronized time, timing/sync_domain.hpp) has no
//    wall-clock tie at all: its clock is the event clock, and the gate decides when the next
//    event may run (the peers' promises and the consumer's reaction).
//
// Concurrency: every public member is thread-safe. Tasks run one at a time, in (time, sequence)
// order, on the thread that owns the event queue: the engine thread (threaded mode), or the
// thread driving run_one / run_until_idle / run_for (deterministic mode; one driver at a time).
// The owner schedules into the queue with no lock and no atomic read-modify-write, so the
// per-packet path of an adapter (every stage is a task that posts the next) takes no lock.
// Other threads (a consumer posting work, a peer adapter's engine) hand their tasks to an
// inbox under a short mutex; the owner moves the inbox into the queue before it picks the next
// event, in the order the tasks were posted.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "timing/event_queue.hpp"
#include "timing/sim_time.hpp"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace ndksim::timing {

enum class run_mode : std::uint8_t { deterministic, threaded };

/// How an idle engine thread waits (ARCHITECTURE.md: a blocked thread costs ~50 us to wake on
/// the project's machines, a spinning one ~6 us), or who runs the engine (consumer: the
/// consumer's threads, in scheduler::progress and in their waits; the engine thread only steps
/// in after they pause, so a polling consumer and its engine share one core instead of two).
enum class poll_policy : std::uint8_t { block, spin, spin_then_block, consumer };

/// Decides, for a threaded scheduler in synchronized time, when its next event may run
/// (conservative synchronization: an event runs only once nothing can still arrive before it).
/// Called on the engine thread, except consumer_waits.
class run_gate {
  public:
    virtual ~run_gate() = default;

    /// May the earliest event, due at `next` [ps], run now? When not, `retry` is the wall time
    /// after which to ask again, or 0 to ask only when the gate kicks the scheduler.
    virtual bool admit(sim_time next, std::chrono::nanoseconds& retry) noexcept = 0;

    /// The event due at `when` [ps] is about to run (after admit allowed it).
    virtual void running(sim_time when) noexcept = 0;

    /// A consumer thread blocks in wait_until: it has reacted to what it was shown.
    virtual void consumer_waits() noexcept = 0;

    /// A thread other than the engine posted a task: a consumer acting on the simulation.
    virtual void consumer_acts() noexcept = 0;

    /// The engine found no event left to run. `retry` as for admit: the wall time after which
    /// to look again (the gate may have to move time on by then), or 0.
    virtual void went_idle(std::chrono::nanoseconds& retry) noexcept = 0;

    /// The earliest time a task posted by another thread may run at [ps]: what the gate has
    /// promised others it would not act before.
    virtual sim_time post_floor() const noexcept = 0;
    /// A task posted by another thread was moved past the clock to the floor (post_floor).
    virtual void post_deferred() noexcept = 0;
};

class scheduler {
  public:
    struct options {
        run_mode mode = run_mode::deterministic;
        poll_policy poll = poll_policy::block;
        std::string name = "sched";  ///< used in log lines and the engine thread's name
        /// threaded mode: how far the simulated clock may run ahead of the wall clock [ps]
        sim_time wall_slack = milliseconds(1);
        /// threaded mode: wall time per unit of simulated time (1 = real time; 10 = ten times
        /// slower than modelled). Paced schedulers use it with a wall_slack of 0.
        double pace_factor = 1.0;
        /// threaded mode: synchronized time; the gate (which outlives the scheduler) decides
        /// when events run, and the clock is the event clock alone.
        run_gate* gate = nullptr;
        /// poll_policy::consumer: how long after a consumer's last progress() call the engine
        /// thread keeps out of the engine.
        std::chrono::nanoseconds consumer_hold = std::chrono::milliseconds(1);
    };

    /// Creates a scheduler; a threaded one starts its engine thread at once.
    explicit scheduler(options opts);

    /// Stops the engine thread (threaded mode). Events still queued are discarded.
    ~scheduler();

    /// Stops and joins the engine thread now (threaded mode; idempotent; the destructor calls
    /// it). An owner whose engine-thread code reaches the scheduler through the owner stops it
    /// first, so that code never runs while the owner takes the scheduler down. Must not be
    /// called from the engine thread.
    void stop();

    scheduler(const scheduler&) = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Current simulated time [ps]. Never decreases. In threaded mode it is at least the wall
    /// time elapsed since the scheduler started; on the engine thread, while a task runs or a
    /// clock_hold lives, that wall time is the one read when it began (see clock_hold).
    /// The event clock alone (deterministic mode, synchronized time) is read inline: the
    /// engine reads the time a few dozen times per packet.
    sim_time now() const noexcept {
        if (opts_.mode == run_mode::deterministic || opts_.gate != nullptr) {
            return now_.load(std::memory_order_acquire);
        }
        return now_tied();
    }

    /// Threaded mode, on the engine thread: for its lifetime, now() reads the wall clock once
    /// (when the outermost hold began) instead of at every call. A task is one instant of
    /// simulated time, and so is a batch of frames read from a socket; reading the clock at
    /// each of the dozen now() calls a packet makes cost a receiving engine 6 % of its time
    /// (clock_gettime in perf record -g of a 1 MiB write stream). advance_to() still moves a
    /// held clock forward. Elsewhere (another thread, deterministic mode, a gate) a no-op.
    class clock_hold {
      public:
        explicit clock_hold(scheduler& s) noexcept;
        ~clock_hold();
        clock_hold(const clock_hold&) = delete;
        clock_hold& operator=(const clock_hold&) = delete;

      private:
        scheduler* held_;  // nullptr when this hold does nothing
    };

    /// Moves the simulated clock forward to at least `t` [ps]: a frame that left a peer adapter
    /// (another process) at its time t must not arrive in this adapter's past, so the receiver's
    /// clock never runs behind its sender's. Threaded mode raises an offset added to the
    /// wall-clock tie (it never decreases), so now() >= t from then on and the events already
    /// queued keep their order. Deterministic mode: no-op (the loop's owner drives the clock).
    void advance_to(sim_time t) noexcept;

    /// Threaded mode: from now on events run as soon as they are due by the event clock alone,
    /// ignoring the wall-clock tie. For an adapter being destroyed after every object closed:
    /// its remaining timers (retransmission checks, connection-management timeouts) then find
    /// nothing to do, and the destroy does not wait for them on the wall clock. Irreversible.
    void drain();

    /// Synchronized time: the gate's state changed, so the engine asks it again. Any thread.
    void kick() { wake_engine(); }

    /// Runs `fn` at the current simulated time, after every task already due at that time.
    template <class F>
    void post(F&& fn) {
        post_at(now(), std::forward<F>(fn));
    }

    /// Runs `fn` at simulated time `when` [ps] (or now, if `when` is in the past). On the
    /// owning thread the task is built in its queue slot, with no lock.
    template <class F>
    void post_at(sim_time when, F&& fn);

    /// Runs `fn` after `delay` [ps] of simulated time.
    template <class F>
    void post_after(sim_time delay, F&& fn) {
        post_at(now() + delay, std::forward<F>(fn));
    }

    /// Runs `fn` after `delay` [ps] of simulated time, like post_after, for a timer: an event
    /// usually far ahead of the per-packet ones (a transport or connection-management timeout).
    /// It keeps its place in the (time, sequence) order; on the owning thread it waits in the
    /// queue's timer heap (event_queue::push_timer), so many armed timers do not deepen the
    /// heap every packet event goes through. Returns what names the timer to cancel_timer
    /// until it runs: k_no_timer when posted off the owning thread (such a timer cannot be
    /// cancelled; it runs).
    template <class F>
    timer_id post_timer_after(sim_time delay, F&& fn);

    /// Owner only: the timer `id` (from post_timer_after) will not run: its task is destroyed
    /// now, and the queue no longer holds it. The caller must know the timer has not run yet
    /// (its id may name a later timer once it has). Returns false, changing nothing, for
    /// k_no_timer or an id that names no queued timer.
    bool cancel_timer(timer_id id) noexcept {
        if (id == k_no_timer || !owned_here() || !queue_.cancel_timer(id)) {
            return false;
        }
        count_queued(-1);
        return true;
    }

    /// Owner only (owned_here()): takes the place in the (time, sequence) order that a post
    /// made now would get, for a task posted later with post_reserved. A stage that holds
    /// work in a FIFO of its own and posts only the FIFO's head keeps, that way, the order
    /// it would have had with one event per item.
    std::uint64_t reserve() noexcept { return queue_.reserve_seq(); }

    /// Owner only: runs `fn` at simulated time `when` [ps] at the place `seq` (from reserve()).
    template <class F>
    void post_reserved(sim_time when, std::uint64_t seq, F&& fn) {
        queue_.push(std::max(when, now()), seq, std::forward<F>(fn));
        count_queued(1);
    }

    /// Deterministic mode: runs the earliest event, advancing the clock to its time.
    /// Returns false when no event is queued. One thread drives at a time: another thread's
    /// call waits for the driver's to return (a task may drive the loop it runs on).
    bool run_one();

    /// Deterministic mode: runs events until none is left or `max_events` have run.
    /// Returns the number of events run.
    std::size_t run_until_idle(std::size_t max_events = SIZE_MAX);

    /// Deterministic mode: runs every event due within `duration` [ps] of now, then sets the
    /// clock to now + duration. Returns the number of events run.
    std::size_t run_for(sim_time duration);

    /// poll_policy::consumer (threaded mode): runs the engine on the calling thread for one
    /// bounded pass of its io_context (socket handlers, due timers, batches of the events due),
    /// as the engine thread would. Returns the handlers run; 0 when nothing was ready, when
    /// another thread kept the engine for more than 100 us (the engine thread hands over once
    /// it sees a consumer calling), on the engine's own thread, inside a task or handler of
    /// this engine, or under any other policy, mode, or a gate.
    std::size_t progress();

    /// True for a threaded scheduler with poll_policy::consumer: its engine runs in
    /// progress() on the consumer's threads.
    bool consumer_driven() const noexcept {
        return opts_.mode == run_mode::threaded && opts_.poll == poll_policy::consumer;
    }

    /// Waits until `pred()` holds. Deterministic mode drives events on the calling thread until
    /// pred holds or nothing is left to run; threaded mode blocks up to `timeout` of wall time
    /// (poll_policy::consumer: runs the engine on the calling thread meanwhile).
    /// `pred` is evaluated under the waiters' mutex: it must read atomics only and take no lock.
    /// Returns the final value of pred(). Calling it from inside a task never blocks: it returns
    /// pred() at once, since the engine cannot wait for itself.
    template <class Pred>
    bool wait_until(Pred pred, std::chrono::milliseconds timeout);

    /// True while the calling thread is running one of this scheduler's tasks.
    bool in_task() const noexcept;

    /// True when no event is queued or running (a snapshot; lock-free, so it may be used in a
    /// wait_until predicate). The inbox is read first: the owner adds what it takes from the
    /// inbox to its own count before it empties the inbox's.
    bool idle() const noexcept {
        return inbox_count_.load(std::memory_order_acquire) == 0 &&
               queued_.load(std::memory_order_acquire) == 0;
    }

    /// True when another thread posted a task the owner has not yet taken into its queue
    /// (sequentially consistent with the poster's later atomics: a gate that sees the poster's
    /// next step sees its task here too).
    bool has_foreign_tasks() const noexcept {
        return inbox_pending_.load(std::memory_order_seq_cst);
    }

    /// True when the calling thread owns the event queue (the engine thread, or the thread
    /// driving a deterministic scheduler).
    bool owned_here() const noexcept;

    run_mode mode() const noexcept { return opts_.mode; }
    /// True for a threaded scheduler whose events a run_gate admits (synchronized time).
    bool gated() const noexcept { return opts_.gate != nullptr; }
    /// Threaded mode: wall time per unit of simulated time (options::pace_factor).
    double pace_factor() const noexcept { return opts_.pace_factor; }
    const std::string& name() const noexcept { return opts_.name; }

    /// Total events run so far.
    std::uint64_t events_run() const noexcept {
        return events_run_.load(std::memory_order_relaxed);
    }

    /// The io_context of the engine thread (threaded mode), for the wire's sockets and timers.
    boost::asio::io_context& io() noexcept;

    /// What other threads may read of a threaded engine's progress. Shared, so that a reader
    /// holding it (an in-process peer, which may outlive the adapter) never reads freed memory.
    struct alignas(64) progress_mark {
        static constexpr sim_time k_none = std::numeric_limits<sim_time>::max();
        /// The time of the earliest event queued when the engine last looked at its queue
        /// (before each event it runs, and when it found the queue empty: k_none). An engine
        /// still busy with, or not yet back to, events due before t reads at most t here.
        std::atomic<sim_time> next_event{k_none};
    };

    /// This scheduler's progress mark (threaded mode; stays k_none in the other modes).
    std::shared_ptr<const progress_mark> progress_mark_of() const noexcept { return mark_; }

  private:
    class driver;
    struct foreign_task {
        sim_time when;
        task fn;
    };

    void run_next();
    void take_inbox();
    void post_foreign(sim_time when, task fn);
    void wake_engine();
    /// Owner only: counts a task queued (+1) or done (-1) with a plain store, since nothing
    /// else writes the count.
    void count_queued(std::ptrdiff_t delta) noexcept {
        queued_.store(queued_.load(std::memory_order_relaxed) + static_cast<std::size_t>(delta),
                      std::memory_order_release);
    }
    sim_time wall_elapsed() const noexcept;
    sim_time wall_tie() const noexcept;
    /// now() in threaded mode without a gate: the event clock tied to the wall clock.
    sim_time now_tied() const noexcept;
    sim_time to_sim(sim_time wall) const noexcept;  // wall time [ps] -> simulated, by pace_factor
    void pump();
    void pump_idle();
    void arm_wake(std::chrono::nanoseconds wait);  // the pump runs again after `wait` at most
    bool gate_admits();
    void engine_main();
    void engine_behind_consumer();
    std::size_t run_pass();           // poll_policy::consumer: a bounded pass of the io_context
    bool consumer_drives() noexcept;  // engine thread only
    void notify_waiters();

    options opts_;
    event_queue queue_;  // owner thread only
    std::atomic<sim_time> now_{0};
    // Written by the pump only; read by other threads rarely (a transport timer's check).
    std::shared_ptr<progress_mark> mark_ = std::make_shared<progress_mark>();
    // Threaded mode: added to the wall time by advance_to(); only grows.
    std::atomic<sim_time> wall_offset_{0};
    std::atomic<bool> draining_{false};
    std::atomic<std::uint64_t> events_run_{0};  // written by the owner only
    std::atomic<std::size_t> queued_{0};        // queued plus running tasks; owner writes

    // Tasks posted by threads that do not own the queue, oldest first.
    std::mutex inbox_mutex_;
    std::vector<foreign_task> inbox_;
    std::atomic<bool> inbox_pending_{false};
    std::atomic<std::size_t> inbox_count_{0};

    // Deterministic mode: held by the thread driving the loop.
    std::mutex driver_mutex_;

    // Threaded mode: a pump is posted to (or running on) the io_context.
    std::atomic<bool> pump_posted_{false};
    bool pumping_ = false;  // engine thread only: inside pump()
    // clock_hold: the wall tie read when the outermost hold began, and how many holds live.
    // Engine thread only (now() reads them only when owned_here()).
    sim_time held_tie_ = 0;
    int tie_holds_ = 0;
    // arm_wake: the wake timer is armed, to fire at wake_due_. Owner thread only.
    bool wake_armed_ = false;
    std::chrono::steady_clock::time_point wake_due_{};

    // wait_until's threaded waiters.
    mutable std::mutex waiters_mutex_;
    std::condition_variable waiters_cv_;
    std::atomic<int> waiters_{0};

    // The io_context and its work guard live in scheduler.cpp, so only code that does I/O
    // compiles Boost.Asio.
    struct io_state;
    std::unique_ptr<io_state> io_;
    // Where the wall tie counts from: for every threaded scheduler the process's first one's
    // start (process_epoch in scheduler.cpp), so that the clocks of two threaded adapters
    // agree. Each from its own start, an adapter made later ran behind the first by the gap,
    // and every frame from the first landed that far in its future: a test that made its
    // second adapter 50 ms after the first waited about 49 ms per frame one way.
    std::chrono::steady_clock::time_point started_;
    std::atomic<bool> stopping_{false};
    // poll_policy::consumer: whoever runs the io_context holds drive_mutex_ (the engine
    // thread, or a consumer thread in progress()). consumer_calls_ counts progress() calls;
    // the engine thread keeps the count it last saw and when it saw it move. poke_posted_ is
    // set while a no-op handler is posted to wake an engine thread blocked in the io_context
    // so that it hands over.
    std::mutex drive_mutex_;
    std::atomic<std::uint64_t> consumer_calls_{0};
    std::uint64_t consumer_calls_seen_ = 0;                     // engine thread only
    std::chrono::steady_clock::time_point consumer_seen_at_{};  // engine thread only
    std::atomic<bool> poke_posted_{false};
    std::thread engine_;
};

template <class F>
void scheduler::post_at(sim_time when, F&& fn) {
    if (owned_here()) {
        queue_.push(std::max(when, now()), std::forward<F>(fn));
        count_queued(1);
        if (opts_.mode == run_mode::threaded && !pumping_) {
            // An I/O handler on the engine thread, outside the pump: the pump must run.
            wake_engine();
        }
        return;
    }
    post_foreign(when, task(std::forward<F>(fn)));
}

template <class F>
timer_id scheduler::post_timer_after(sim_time delay, F&& fn) {
    if (!owned_here()) {
        post_after(delay, std::forward<F>(fn));
        return k_no_timer;
    }
    const timer_id id = queue_.push_timer(now() + delay, std::forward<F>(fn));
    count_queued(1);
    if (opts_.mode == run_mode::threaded && !pumping_) {
        wake_engine();
    }
    return id;
}

template <class Pred>
bool scheduler::wait_until(Pred pred, std::chrono::milliseconds timeout) {
    if (in_task()) {
        return pred();
    }
    if (opts_.mode == run_mode::deterministic) {
        while (!pred()) {
            if (!run_one()) {
                return pred();
            }
        }
        return true;
    }
    if (consumer_driven() && opts_.gate == nullptr) {
        if (owned_here()) {
            return pred();  // a handler of this engine (a socket's, a timer's) cannot wait for it
        }
        // The waiting thread runs the engine itself (the engine thread keeps out while it does).
        // pred is read outside the waiters' mutex: it reads atomics only.
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!pred()) {
            if (std::chrono::steady_clock::now() >= deadline) {
                return pred();
            }
            if (progress() == 0) {
                std::this_thread::yield();
            }
        }
        return true;
    }
    waiters_.fetch_add(1, std::memory_order_acq_rel);
    std::unique_lock lock(waiters_mutex_);
    bool ok = false;
    if (opts_.gate == nullptr) {
        ok = waiters_cv_.wait_for(lock, timeout, pred);
    } else {
        // Synchronized time: this thread waits for the simulation, so simulated time may move
        // on; it says so again after each event that did not satisfy it.
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!(ok = pred())) {
            opts_.gate->consumer_waits();
            if (waiters_cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
                ok = pred();
                break;
            }
        }
    }
    lock.unlock();
    waiters_.fetch_sub(1, std::memory_order_acq_rel);
    return ok;
}

}  // namespace ndksim::timing
