#include "timing/scheduler.hpp"

#include <pthread.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "util/log.hpp"

namespace ndksim::timing {
namespace {

// The scheduler whose task the current thread is running, for in_task().
thread_local const scheduler* t_running = nullptr;

// The scheduler whose engine thread this is (threaded mode): its socket handlers run between
// tasks, and their log lines carry its clock too.
thread_local const scheduler* t_engine = nullptr;

// The simulated time of a log line (log::set_sim_clock): the clock of the task or engine the
// logging thread runs. Read only when a line is formatted.
bool log_clock(std::uint64_t& ps) noexcept {
    const scheduler* s = t_running != nullptr ? t_running : t_engine;
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

struct running_guard {
    explicit running_guard(const scheduler* s) noexcept : prev(t_running) { t_running = s; }
    ~running_guard() { t_running = prev; }
    running_guard(const running_guard&) = delete;
    running_guard& operator=(const running_guard&) = delete;
    const scheduler* prev;
};

}  // namespace

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
    if (opts_.mode != run_mode::threaded) {
        return;
    }
    draining_.store(true, std::memory_order_release);
    bool post_pump = false;
    {
        std::lock_guard lock(mutex_);
        if (!pump_posted_) {
            pump_posted_ = true;
            post_pump = true;
        }
    }
    if (post_pump) {
        boost::asio::post(io_->io, [this] { pump(); });
    }
}

sim_time scheduler::now() const noexcept {
    const sim_time events = now_.load(std::memory_order_acquire);
    if (opts_.mode == run_mode::deterministic) {
        return events;
    }
    return std::max(events, wall_tie());
}

void scheduler::advance_to(sim_time t) noexcept {
    if (opts_.mode == run_mode::deterministic) {
        return;
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

scheduler::scheduler(options opts) : opts_(std::move(opts)), io_(std::make_unique<io_state>()) {
    log::set_sim_clock(&log_clock);
    if (opts_.mode == run_mode::threaded) {
        io_->work.emplace(io_->io.get_executor());
        engine_ = std::thread([this] { engine_main(); });
    }
}

scheduler::~scheduler() {
    if (engine_.joinable()) {
        stopping_.store(true, std::memory_order_release);
        io_->work.reset();
        io_->io.stop();
        engine_.join();
    }
}

boost::asio::io_context& scheduler::io() noexcept {
    return io_->io;
}

bool scheduler::in_task() const noexcept {
    return t_running == this;
}

void scheduler::post_at(sim_time when, task fn) {
    bool post_pump = false;
    {
        std::lock_guard lock(mutex_);
        queue_.push(std::max(when, now()), std::move(fn));
        outstanding_.fetch_add(1, std::memory_order_acq_rel);
        if (opts_.mode == run_mode::threaded && !pump_posted_) {
            pump_posted_ = true;
            post_pump = true;
        }
    }
    if (post_pump) {
        boost::asio::post(io_->io, [this] { pump(); });
    }
}

bool scheduler::run_next_locked(std::unique_lock<std::mutex>& lock) {
    if (queue_.empty()) {
        return false;
    }
    sim_time when = 0;
    task fn = queue_.pop(when);
    if (when > now_.load(std::memory_order_relaxed)) {
        now_.store(when, std::memory_order_release);
    }
    lock.unlock();
    {
        running_guard guard(this);
        fn();
    }
    events_run_.fetch_add(1, std::memory_order_relaxed);
    outstanding_.fetch_sub(1, std::memory_order_acq_rel);
    lock.lock();
    return true;
}

bool scheduler::run_one() {
    std::unique_lock lock(mutex_);
    return run_next_locked(lock);
}

std::size_t scheduler::run_until_idle(std::size_t max_events) {
    std::size_t n = 0;
    std::unique_lock lock(mutex_);
    while (n < max_events && run_next_locked(lock)) {
        ++n;
    }
    return n;
}

std::size_t scheduler::run_for(sim_time duration) {
    std::size_t n = 0;
    std::unique_lock lock(mutex_);
    const sim_time end = now() + duration;
    while (!queue_.empty() && queue_.next_time() <= end) {
        run_next_locked(lock);
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
        { std::lock_guard lock(mutex_); }
        waiters_cv_.notify_all();
    }
}

void scheduler::pump() {
    std::unique_lock lock(mutex_);
    for (int i = 0; i < k_pump_batch; ++i) {
        if (!queue_.empty() && !draining_.load(std::memory_order_acquire)) {
            const sim_time limit = wall_tie() + opts_.wall_slack;
            if (queue_.next_time() > limit) {
                // Too far ahead of the wall clock: sleep until it catches up. A task posted
                // meanwhile posts its own pump; the timer's later pump then finds nothing due.
                const auto wait = std::chrono::nanoseconds(
                    static_cast<std::int64_t>(static_cast<double>(queue_.next_time() - limit) *
                                              opts_.pace_factor / 1000) +
                    1);
                pump_posted_ = false;
                lock.unlock();
                io_->wake.expires_after(wait);
                io_->wake.async_wait([this](const boost::system::error_code& ec) {
                    if (!ec) {
                        pump();
                    }
                });
                return;
            }
        }
        if (!run_next_locked(lock)) {
            pump_posted_ = false;
            lock.unlock();
            notify_waiters();
            return;
        }
        lock.unlock();
        notify_waiters();
        lock.lock();
    }
    lock.unlock();
    boost::asio::post(io_->io, [this] { pump(); });
}

void scheduler::engine_main() {
    pthread_setname_np(pthread_self(), opts_.name.substr(0, 15).c_str());
    t_engine = this;
    NDKSIM_DEBUG("{}: engine thread started", opts_.name);
    switch (opts_.poll) {
        case poll_policy::block:
            io_->io.run();
            break;
        case poll_policy::spin:
            while (!stopping_.load(std::memory_order_acquire) && !io_->io.stopped()) {
                io_->io.poll();
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
                }
            }
            break;
        }
    }
    NDKSIM_DEBUG("{}: engine thread stopped", opts_.name);
}

}  // namespace ndksim::timing
