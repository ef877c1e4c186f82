// SPDX-License-Identifier: MIT
#include "timing/scheduler.hpp"

#include <pthread.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "util/log.hpp"

namespace ndksim::timing {
namespace {

// The scheduler whose task the current thread is running, for in_task(), and the scheduler
// whose event queue the current thread owns (its engine thread, or the thread driving a
// deterministic loop). Read on every post and run: initial-exec avoids a __tls_get_addr call
// per access from the shared library (the library is linked, never dlopen'ed late).
[[gnu::tls_model("initial-exec")]] thread_local const scheduler* t_running = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local const scheduler* t_owner = nullptr;

// The simulated time of a log line (log::set_sim_clock): the clock of the task the logging
// thread runs, or of the queue it owns (an engine thread's socket handlers run between tasks,
// and their lines carry its clock too). Read only when a line is formatted.
bool log_clock(std::uint64_t& ps) noexcept {
    const scheduler* s = t_running != nullptr ? t_running : t_owner;
    if (s == nullptr) {
        return false;
    }
    ps = s->now();
    return true;
}

// Events run per pump before the engine returns to the io_context, so socket handlers are
// never starved by a long burst of simulated events.
constexpr int k_pump_batch = 64;

// A spin_then_block engine spins this long without work before it blocks.
constexpr auto k_spin_window = std::chrono::microseconds(50);

// poll_policy::consumer: the engine thread keeps out while a consumer called progress() within
// options::consumer_hold, and looks again after each nap. A consumer that stops polling (it
// blocks on something the simulation does not know of) thus still sees its engine run within
// about consumer_hold + k_consumer_nap, and a polling one keeps its core to itself.
constexpr auto k_consumer_nap = std::chrono::microseconds(200);

// poll_policy::consumer: how long progress() waits for the engine thread to hand over, and how
// many handlers (socket reads, timers, batches of up to k_pump_batch events) one pass of
// progress() or of the engine thread runs.
constexpr auto k_handover_wait = std::chrono::microseconds(100);
constexpr std::size_t k_progress_handlers = 16;

struct running_guard {
    explicit running_guard(const scheduler* s) noexcept : prev(t_running) { t_running = s; }
    ~running_guard() { t_running = prev; }
    running_guard(const running_guard&) = delete;
    running_guard& operator=(const running_guard&) = delete;
    const scheduler* prev;
};

// Makes the current thread the owner of a scheduler's queue for its lifetime.
struct owner_guard {
    explicit owner_guard(const scheduler* s) noexcept : prev(t_owner) { t_owner = s; }
    ~owner_guard() { t_owner = prev; }
    owner_guard(const owner_guard&) = delete;
    owner_guard& operator=(const owner_guard&) = delete;
    const scheduler* prev;
};

}  // namespace

// Deterministic mode: the calling thread drives the loop, and owns its queue, while this lives.
// A thread that already drives (a task running ndksim_loop_run_one) keeps driving.
class scheduler::driver {
  public:
    explicit driver(scheduler& s) : owner_(&s) {
        if (!s.owned_here()) {
            lock_ = std::unique_lock(s.driver_mutex_);
        }
    }

  private:
    std::unique_lock<std::mutex> lock_;
    owner_guard owner_;
};

struct scheduler::io_state {
    boost::asio::io_context io;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
    // Wakes the engine when the earliest event is too far ahead of the wall clock to run yet.
    boost::asio::steady_timer wake{io};
};

sim_time scheduler::wall_elapsed() const noexcept {
    const auto elapsed = std::chrono::steady_clock::now() - started_;
    return static_cast<sim_time>(
               std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()) *
           1000;
}

sim_time scheduler::wall_tie() const noexcept {
    return to_sim(wall_elapsed()) + wall_offset_.load(std::memory_order_acquire);
}

sim_time scheduler::to_sim(sim_time wall) const noexcept {
    // The common real-time case stays exact integer arithmetic.
    return opts_.pace_factor == 1.0
               ? wall
               : static_cast<sim_time>(static_cast<double>(wall) / opts_.pace_factor);
}

void scheduler::drain() {
    if (opts_.mode != run_mode::threaded || opts_.gate != nullptr) {
        return;
    }
    draining_.store(true, std::memory_order_release);
    wake_engine();
}

void scheduler::wake_engine() {
    if (!pump_posted_.exchange(true, std::memory_order_seq_cst)) {
        boost::asio::post(io_->io, [this] { pump(); });
    }
}

sim_time scheduler::now_tied() const noexcept {
    const sim_time events = now_.load(std::memory_order_acquire);
    if (owned_here() && tie_holds_ > 0) {
        return std::max(events, held_tie_);
    }
    return std::max(events, wall_tie());
}

scheduler::clock_hold::clock_hold(scheduler& s) noexcept
    : held_(s.opts_.mode == run_mode::threaded && s.opts_.gate == nullptr && s.owned_here()
                ? &s
                : nullptr) {
    if (held_ != nullptr && held_->tie_holds_++ == 0) {
        held_->held_tie_ = held_->wall_tie();
    }
}

scheduler::clock_hold::~clock_hold() {
    if (held_ != nullptr) {
        --held_->tie_holds_;
    }
}

void scheduler::advance_to(sim_time t) noexcept {
    if (opts_.mode == run_mode::deterministic || opts_.gate != nullptr) {
        // Synchronized time: a frame arrives at its modelled time, never in the past, since
        // the gate let no event run beyond what a peer could still send.
        return;
    }
    // A held clock (clock_hold) read the wall before this call: it moves to t as well, whether
    // or not the wall has passed t meanwhile, so now() >= t holds inside the hold too.
    if (owned_here() && tie_holds_ > 0) {
        held_tie_ = std::max(held_tie_, t);
    }
    // Raising the tie (rather than the event clock) keeps now() moving with the wall clock
    // after the jump, and the pump's "not too far ahead of the wall clock" limit moves with it.
    sim_time offset = wall_offset_.load(std::memory_order_relaxed);
    for (;;) {
        const sim_time wall = to_sim(wall_elapsed());
        if (wall + offset >= t) {
            return;
        }
        if (wall_offset_.compare_exchange_weak(offset, t - wall, std::memory_order_acq_rel,
                                               std::memory_order_relaxed)) {
            return;
        }
    }
}

namespace {

// The first threaded scheduler's start: the epoch of every threaded scheduler's wall tie.
std::chrono::steady_clock::time_point process_epoch() noexcept {
    static const std::chrono::steady_clock::time_point epoch = std::chrono::steady_clock::now();
    return epoch;
}

}  // namespace

scheduler::scheduler(options opts)
    : opts_(std::move(opts)),
      io_(std::make_unique<io_state>()),
      started_(opts_.mode == run_mode::threaded ? process_epoch()
                                                : std::chrono::steady_clock::now()) {
    log::set_sim_clock(&log_clock);
    if (opts_.mode == run_mode::threaded) {
        io_->work.emplace(io_->io.get_executor());
        engine_ = std::thread([this] { engine_main(); });
    }
}

scheduler::~scheduler() {
    stop();
}

void scheduler::stop() {
    if (engine_.joinable()) {
        stopping_.store(true, std::memory_order_release);
        io_->work.reset();
        io_->io.stop();
        engine_.join();
        // Nothing queued will run any more: no reader may wait for it.
        mark_->next_event.store(progress_mark::k_none, std::memory_order_relaxed);
    }
}

boost::asio::io_context& scheduler::io() noexcept {
    return io_->io;
}

bool scheduler::in_task() const noexcept {
    return t_running == this;
}

bool scheduler::owned_here() const noexcept {
    return t_owner == this;
}

void scheduler::post_foreign(sim_time when, task fn) {
    if (opts_.gate != nullptr) {
        opts_.gate->consumer_acts();
        // The floor is applied when the engine takes the task in (take_inbox), where it is
        // counted when it defers a task posted for now.
    }
    {
        std::lock_guard lock(inbox_mutex_);
        inbox_.push_back(foreign_task{std::max(when, now()), std::move(fn)});
        inbox_count_.store(inbox_.size(), std::memory_order_release);
    }
    // seq_cst pairs with pump_idle(): either the pump sees the inbox pending after it stood
    // down, or this thread sees it stood down and posts a new one. No wake-up is lost.
    inbox_pending_.store(true, std::memory_order_seq_cst);
    if (opts_.mode == run_mode::threaded) {
        wake_engine();
    }
}

void scheduler::take_inbox() {
    if (!inbox_pending_.load(std::memory_order_acquire)) {
        return;
    }
    std::lock_guard lock(inbox_mutex_);
    inbox_pending_.store(false, std::memory_order_relaxed);
    // Synchronized time: a promise the engine made after a task's poster read the floor
    // (post_foreign) binds the task too; both sides of that are decided here, on the engine.
    const sim_time floor = opts_.gate != nullptr ? opts_.gate->post_floor() : 0;
    const sim_time clock = now_.load(std::memory_order_relaxed);
    for (foreign_task& t : inbox_) {
        if (t.when < floor && t.when <= clock) {
            // Posted for now, run later: the domain had promised not to act before the floor.
            opts_.gate->post_deferred();
        }
        queue_.push(std::max(t.when, floor), std::move(t.fn));
    }
    // Counted as queued before the inbox's count drops, so idle() never sees neither.
    count_queued(static_cast<std::ptrdiff_t>(inbox_.size()));
    inbox_.clear();
    inbox_count_.store(0, std::memory_order_release);
}

void scheduler::run_next() {
    sim_time when = 0;
    const std::uint32_t slot = queue_.pop_slot(when);
    if (when > now_.load(std::memory_order_relaxed)) {
        now_.store(when, std::memory_order_release);
    }
    struct done_guard {
        scheduler& s;
        std::uint32_t slot;
        ~done_guard() {
            s.queue_.release(slot);
            s.events_run_.store(s.events_run_.load(std::memory_order_relaxed) + 1,
                                std::memory_order_relaxed);
            s.count_queued(-1);
        }
    } done{*this, slot};
    running_guard guard(this);
    // The task runs in its slot; tasks it posts take other slots, which never move it.
    queue_.at(slot)();
}

bool scheduler::run_one() {
    if (opts_.mode != run_mode::deterministic) {
        return false;  // the engine thread owns a threaded scheduler's queue
    }
    driver d(*this);
    take_inbox();
    if (queue_.empty()) {
        return false;
    }
    run_next();
    return true;
}

std::size_t scheduler::run_until_idle(std::size_t max_events) {
    if (opts_.mode != run_mode::deterministic) {
        return 0;
    }
    driver d(*this);
    std::size_t n = 0;
    for (;;) {
        take_inbox();
        if (n >= max_events || queue_.empty()) {
            return n;
        }
        run_next();
        ++n;
    }
}

std::size_t scheduler::run_for(sim_time duration) {
    if (opts_.mode != run_mode::deterministic) {
        return 0;
    }
    driver d(*this);
    std::size_t n = 0;
    const sim_time end = now() + duration;
    for (;;) {
        take_inbox();
        if (queue_.empty() || queue_.next_time() > end) {
            break;
        }
        run_next();
        ++n;
    }
    if (now() < end) {
        now_.store(end, std::memory_order_release);
    }
    return n;
}

void scheduler::notify_waiters() {
    if (waiters_.load(std::memory_order_acquire) > 0) {
        // Taking the mutex orders this wake-up after a waiter's predicate check, so it cannot be
        // lost between the check and the wait.
        { std::lock_guard lock(waiters_mutex_); }
        waiters_cv_.notify_all();
    }
}

void scheduler::pump() {
    pumping_ = true;
    for (int i = 0; i < k_pump_batch; ++i) {
        // One read of the wall clock serves the limit below and every now() of the task.
        const clock_hold hold(*this);
        take_inbox();
        if (queue_.empty()) {
            mark_->next_event.store(progress_mark::k_none, std::memory_order_relaxed);
            pump_idle();
            notify_waiters();
            if (opts_.gate != nullptr) {
                std::chrono::nanoseconds retry{0};
                opts_.gate->went_idle(retry);
                if (retry.count() > 0) {
                    arm_wake(retry);
                }
            }
            return;
        }
        // A plain store on the engine's own line: readers look at it once per timer check.
        mark_->next_event.store(queue_.next_time(), std::memory_order_relaxed);
        if (opts_.gate != nullptr) {
            if (!gate_admits()) {
                return;
            }
        } else if (!draining_.load(std::memory_order_acquire)) {
            const sim_time limit = (tie_holds_ > 0 ? held_tie_ : wall_tie()) + opts_.wall_slack;
            if (queue_.next_time() > limit) {
                // Too far ahead of the wall clock: sleep until it catches up. A task posted
                // meanwhile wakes a new pump; the timer's later pump then finds nothing due.
                const auto wait = std::chrono::nanoseconds(
                    static_cast<std::int64_t>(static_cast<double>(queue_.next_time() - limit) *
                                              opts_.pace_factor / 1000) +
                    1);
                arm_wake(wait);
                pump_idle();
                return;
            }
        }
        run_next();
        notify_waiters();
    }
    pumping_ = false;
    // What the next batch starts with, for readers in the meantime (the last store was the
    // time of the event just run).
    mark_->next_event.store(queue_.empty() ? progress_mark::k_none : queue_.next_time(),
                            std::memory_order_relaxed);
    // The batch is done: let the io_context run socket handlers, then go on.
    boost::asio::post(io_->io, [this] { pump(); });
}

void scheduler::arm_wake(std::chrono::nanoseconds wait) {
    const auto due = std::chrono::steady_clock::now() + wait;
    if (wake_armed_ && wake_due_ <= due) {
        // Armed to fire no later: that pump looks again and re-arms if it is early. Re-arming
        // here instead cost a timerfd_settime system call each time the engine went idle in
        // front of a transport timer (three per one-way write in strace of a ping-pong). A
        // gate's retry (synchronized time) is kept the same way: while the consumer holds
        // time every pump asks it again, and the grace's end does not move.
        return;
    }
    wake_armed_ = true;
    wake_due_ = due;
    io_->wake.expires_at(due);
    io_->wake.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) {
            wake_armed_ = false;
            pump();
        }
    });
}

bool scheduler::gate_admits() {
    std::chrono::nanoseconds retry{0};
    const sim_time next = queue_.next_time();
    if (opts_.gate->admit(next, retry)) {
        opts_.gate->running(next);
        return true;
    }
    if (retry.count() > 0) {
        arm_wake(retry);
    }
    pump_idle();
    // A kick that came between admit() and pump_idle() saw the pump still posted and posted
    // none: ask again now that the flag is down (seq_cst on both sides, as for the inbox).
    // The gate may have queued an earlier event meanwhile, so the queue's head is read again.
    std::chrono::nanoseconds ignored{0};
    if (opts_.gate->admit(queue_.next_time(), ignored)) {
        wake_engine();
    }
    return false;
}

void scheduler::pump_idle() {
    pumping_ = false;
    pump_posted_.store(false, std::memory_order_seq_cst);
    // A foreign post that saw the flag still set before it was cleared did not wake the engine:
    // its task is in the inbox, so a pump is posted for it now.
    if (inbox_pending_.load(std::memory_order_seq_cst)) {
        wake_engine();
    }
}

bool scheduler::consumer_drives() noexcept {
    // The consumer only counts its calls (the clock already took 10 % of a polling consumer's
    // samples without a read per call); this thread notes when it last saw the count move.
    const std::uint64_t calls = consumer_calls_.load(std::memory_order_relaxed);
    if (calls == 0) {
        return false;  // no consumer has called yet
    }
    const auto now = std::chrono::steady_clock::now();
    if (calls != consumer_calls_seen_) {
        consumer_calls_seen_ = calls;
        consumer_seen_at_ = now;
        return true;
    }
    return now - consumer_seen_at_ < opts_.consumer_hold;
}

std::size_t scheduler::progress() {
    if (!consumer_driven() || opts_.gate != nullptr || owned_here() || in_task() ||
        io_->io.get_executor().running_in_this_thread()) {
        // A handler or task of this engine calling back in (a completion callback that polls,
        // directly or through another adapter's engine it runs) is already this engine:
        // running the io_context again from inside it would nest, and its lock is held.
        return 0;
    }
    consumer_calls_.store(consumer_calls_.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
    std::unique_lock drive(drive_mutex_, std::try_to_lock);
    if (!drive.owns_lock()) {
        // The engine thread (or another consumer) runs it. An engine thread blocked in the
        // io_context wakes for this no-op, sees a consumer polling, and hands over within
        // microseconds, so this call waits that long for it: a consumer that calls only now
        // and then would otherwise find the engine thread holding the lock every time. It
        // does not wait longer, since a handler running there may wait for a lock of the
        // caller's.
        if (!poke_posted_.exchange(true, std::memory_order_acq_rel)) {
            boost::asio::post(io_->io,
                              [this] { poke_posted_.store(false, std::memory_order_release); });
        }
        const auto until = std::chrono::steady_clock::now() + k_handover_wait;
        while (!drive.try_lock()) {
            if (std::chrono::steady_clock::now() > until) {
                return 0;
            }
            std::this_thread::yield();
        }
    }
    if (stopping_.load(std::memory_order_acquire)) {
        return 0;
    }
    const owner_guard owner(this);
    return run_pass();
}

std::size_t scheduler::run_pass() {
    // Bounded: io_context::poll() would go on while handlers keep coming (a pump re-posts
    // itself after each batch of events, a busy socket stays readable), and the runner would
    // not get back to what it polls for, nor the engine thread to seeing a consumer call.
    std::size_t ran = 0;
    while (ran < k_progress_handlers && io_->io.poll_one() > 0) {
        ++ran;
    }
    return ran;
}

// poll_policy::consumer, on the engine thread: runs the io_context only while no consumer
// polls (spinning 50 us after its last work, then blocking), and naps while one does.
void scheduler::engine_behind_consumer() {
    auto last_work = std::chrono::steady_clock::now();
    while (!stopping_.load(std::memory_order_acquire) && !io_->io.stopped()) {
        if (consumer_drives()) {
            std::this_thread::sleep_for(k_consumer_nap);
            continue;
        }
        std::unique_lock drive(drive_mutex_);
        if (consumer_drives()) {
            // A consumer came while this thread waited for the lock (it held it): its turn.
            continue;
        }
        const owner_guard owner(this);
        if (run_pass() > 0) {
            last_work = std::chrono::steady_clock::now();
        } else if (std::chrono::steady_clock::now() - last_work <= k_spin_window) {
            drive.unlock();
            std::this_thread::yield();
        } else {
            // Blocks until a handler is ready: a socket, a timer, a post, or a consumer's poke.
            io_->io.run_one();
            last_work = std::chrono::steady_clock::now();
        }
    }
}

void scheduler::engine_main() {
    pthread_setname_np(pthread_self(), opts_.name.substr(0, 15).c_str());
    NDKSIM_DEBUG("{}: engine thread started", opts_.name);
    if (opts_.poll == poll_policy::consumer) {
        // Owner only while it holds the engine: outside, a consumer may be running it, and
        // this thread's now() (a log line's clock) must not read the owner's state then.
        engine_behind_consumer();
        NDKSIM_DEBUG("{}: engine thread stopped", opts_.name);
        return;
    }
    const owner_guard owner(this);
    switch (opts_.poll) {
        case poll_policy::block:
            io_->io.run();
            break;
        case poll_policy::spin:
            while (!stopping_.load(std::memory_order_acquire) && !io_->io.stopped()) {
                // Nothing ran: give the core to a runnable thread, if any (on a host with more
                // polling threads than cores, the peer's engine, whose frame this one awaits),
                // and look again at once when there is none.
                if (io_->io.poll() == 0) {
                    std::this_thread::yield();
                }
            }
            break;
        case poll_policy::spin_then_block: {
            auto last_work = std::chrono::steady_clock::now();
            while (!stopping_.load(std::memory_order_acquire) && !io_->io.stopped()) {
                if (io_->io.poll() > 0) {
                    last_work = std::chrono::steady_clock::now();
                } else if (std::chrono::steady_clock::now() - last_work > k_spin_window) {
                    io_->io.run_one();
                    last_work = std::chrono::steady_clock::now();
                } else {
                    // Spinning, as poll_policy::spin does: the core goes to a runnable thread
                    // meanwhile (the peer engine or the consumer this one waits on, on a host
                    // with more polling threads than cores).
                    std::this_thread::yield();
                }
            }
            break;
        }
        case poll_policy::consumer:
            break;  // above
    }
    NDKSIM_DEBUG("{}: engine thread stopped", opts_.name);
}

}  // namespace ndksim::timing
