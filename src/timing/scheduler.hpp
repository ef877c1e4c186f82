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
//    since the scheduler started, and an event may run at most `wall_slack` ahead of it. Work
//    that costs nanoseconds to microseconds runs at once, while timeouts and back-offs (RNR,
//    connection management, moderation) take their time on the wall clock as well, so a peer
//    thread or the consumer has the time to answer before they fire.
//    Two time modes shape that tie (ndksim_time_mode):
//      virtual - an event may run up to `wall_slack` ahead of the wall clock: short work runs as
//                fast as the host allows, long waits keep their wall duration;
//      paced   - an event at simulated time t is held until the wall time elapsed reaches
//                t x `pace_factor`, so a consumer's timeouts see the modelled delays (scaled).
//    drain() lifts the tie for an adapter being destroyed, so its leftover timers run at once.
//
// Concurrency: every public member is thread-safe. Tasks run one at a time on the engine thread
// (or the driving thread in deterministic mode), in (time, sequence) order. The queue mutex is
// never held while a task runs, so a task may post further tasks.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "timing/event_queue.hpp"
#include "timing/sim_time.hpp"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace ndksim::timing {

enum class run_mode : std::uint8_t { deterministic, threaded };

/// How an idle engine thread waits (ARCHITECTURE.md: a blocked thread costs ~50 us to wake on
/// the project's machines, a spinning one ~6 us).
enum class poll_policy : std::uint8_t { block, spin, spin_then_block };

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
    };

    /// Creates a scheduler; a threaded one starts its engine thread at once.
    explicit scheduler(options opts);

    /// Stops the engine thread (threaded mode). Events still queued are discarded.
    ~scheduler();

    scheduler(const scheduler&) = delete;
    scheduler& operator=(const scheduler&) = delete;

    /// Current simulated time [ps]. Never decreases. In threaded mode it is at least the wall
    /// time elapsed since the scheduler started.
    sim_time now() const noexcept;

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

    /// Runs `fn` at the current simulated time, after every task already due at that time.
    void post(task fn) { post_at(now(), std::move(fn)); }

    /// Runs `fn` at simulated time `when` [ps] (or now, if `when` is in the past).
    void post_at(sim_time when, task fn);

    /// Runs `fn` after `delay` [ps] of simulated time.
    void post_after(sim_time delay, task fn) { post_at(now() + delay, std::move(fn)); }

    /// Deterministic mode: runs the earliest event, advancing the clock to its time.
    /// Returns false when no event is queued.
    bool run_one();

    /// Deterministic mode: runs events until none is left or `max_events` have run.
    /// Returns the number of events run.
    std::size_t run_until_idle(std::size_t max_events = SIZE_MAX);

    /// Deterministic mode: runs every event due within `duration` [ps] of now, then sets the
    /// clock to now + duration. Returns the number of events run.
    std::size_t run_for(sim_time duration);

    /// Waits until `pred()` holds. Deterministic mode drives events on the calling thread until
    /// pred holds or nothing is left to run; threaded mode blocks up to `timeout` of wall time.
    /// `pred` is evaluated under the queue mutex: it must read atomics only and take no lock.
    /// Returns the final value of pred(). Calling it from inside a task never blocks: it returns
    /// pred() at once, since the engine cannot wait for itself.
    template <class Pred>
    bool wait_until(Pred pred, std::chrono::milliseconds timeout);

    /// True while the calling thread is running one of this scheduler's tasks.
    bool in_task() const noexcept;

    /// True when no event is queued or running (a snapshot; lock-free, so it may be used in a
    /// wait_until predicate).
    bool idle() const noexcept { return outstanding_.load(std::memory_order_acquire) == 0; }

    run_mode mode() const noexcept { return opts_.mode; }
    const std::string& name() const noexcept { return opts_.name; }

    /// Total events run so far.
    std::uint64_t events_run() const noexcept {
        return events_run_.load(std::memory_order_relaxed);
    }

    /// The io_context of the engine thread (threaded mode), for the wire's sockets and timers.
    boost::asio::io_context& io() noexcept;

  private:
    bool run_next_locked(std::unique_lock<std::mutex>& lock);
    sim_time wall_elapsed() const noexcept;
    sim_time wall_tie() const noexcept;
    sim_time to_sim(sim_time wall) const noexcept;  // wall time [ps] -> simulated, by pace_factor
    void pump();
    void engine_main();
    void notify_waiters();

    options opts_;
    mutable std::mutex mutex_;
    std::condition_variable waiters_cv_;
    event_queue queue_;
    std::atomic<sim_time> now_{0};
    // Threaded mode: added to the wall time by advance_to(); only grows.
    std::atomic<sim_time> wall_offset_{0};
    std::atomic<bool> draining_{false};
    std::atomic<std::uint64_t> events_run_{0};
    std::atomic<int> waiters_{0};
    std::atomic<std::size_t> outstanding_{0};  // queued plus running tasks
    bool pump_posted_ = false;

    // The io_context and its work guard live in scheduler.cpp, so only code that does I/O
    // compiles Boost.Asio.
    struct io_state;
    std::unique_ptr<io_state> io_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::atomic<bool> stopping_{false};
    std::thread engine_;
};

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
    waiters_.fetch_add(1, std::memory_order_acq_rel);
    std::unique_lock lock(mutex_);
    const bool ok = waiters_cv_.wait_for(lock, timeout, pred);
    lock.unlock();
    waiters_.fetch_sub(1, std::memory_order_acq_rel);
    return ok;
}

}  // namespace ndksim::timing
