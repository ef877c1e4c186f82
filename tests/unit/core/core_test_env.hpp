// SPDX-License-Identifier: MIT
#pragma once
// A simulated NIC for core unit tests, driven directly (no C ABI): a device with
// connectx_like_limits() on a deterministic scheduler the test drives, or on its own engine
// thread (threaded mode), with one adapter handle open. Also a recorder for CQ / SRQ
// notification callbacks and helpers to post completions from engine tasks and to close
// objects.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/adapter.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/work_request.hpp"
#include "timing/scheduler.hpp"
#include "util/status.hpp"

namespace ndksim::core::test {

/// One device with one adapter handle. Deterministic unless `threaded`.
class env {
  public:
    /// `interrupt`: the device's notification interrupt [ps]; 0 by default, so the tests of
    /// the arm and moderation rules see notifications at the time they are requested.
    explicit env(bool threaded = false, timing::sim_time interrupt = 0) {
        if (!threaded) {
            loop_ = std::make_unique<timing::scheduler>(timing::scheduler::options{
                timing::run_mode::deterministic, timing::poll_policy::block, "test-loop"});
        }
        device_config cfg;
        cfg.name = "nic1";
        cfg.address = "10.0.0.1";
        cfg.loop = loop_.get();
        cfg.close_timeout = std::chrono::milliseconds(30'000);  // a loaded host's engine thread
        cfg.notification_interrupt = interrupt;
        dev_ = std::make_unique<device>(std::move(cfg), connectx_like_limits());
        handle_ = adapter::open(*dev_, adapter::k_highest_v2).detach();
    }

    ~env() {
        if (loop_) {
            loop_->run_until_idle();
        }
        handle_->close_blocking();
        if (loop_) {
            loop_->run_until_idle();
        }
        EXPECT_EQ(dev_->leaked_objects(), 0U);
        dev_.reset();
    }

    env(const env&) = delete;
    env& operator=(const env&) = delete;

    device& dev() { return *dev_; }
    adapter& handle() { return *handle_; }
    timing::scheduler& sched() { return dev_->sched(); }

    /// Deterministic mode: runs every event (advancing simulated time as far as needed).
    void run() { loop_->run_until_idle(); }

    /// Deterministic mode: runs the events due within `d` [ps] and advances the clock by `d`.
    void run_for(timing::sim_time d) { loop_->run_for(d); }

    /// Queues `c` on `q` from an engine task and waits for that task; in deterministic mode it
    /// runs the loop only until that task has run, so a notification it schedules has not run
    /// yet. Returns post()'s status.
    status post(cq& q, const completion& c) {
        constexpr auto k_pending = static_cast<std::int32_t>(status::pending);
        std::atomic<std::int32_t> result{k_pending};
        sched().post([&q, c, &result] { result = static_cast<std::int32_t>(q.post(c)); });
        if (loop_) {
            // Tasks due before this one (already at the current time) run first, as they would.
            while (result.load() == k_pending && loop_->run_one()) {
            }
        } else {
            sched().wait_until([&result] { return result.load() != k_pending; },
                               std::chrono::milliseconds(30'000));
        }
        return static_cast<status>(result.load());
    }

    /// Closes `o` and waits until the close has completed (deterministic mode: runs the loop;
    /// threaded: waits for the close completion). Returns close()'s status.
    status close(object& o) {
        auto done = std::make_shared<std::atomic<bool>>(false);
        const status s = o.close([done] { done->store(true); });
        if (loop_) {
            loop_->run_until_idle();
        } else if (s == status::pending) {
            EXPECT_TRUE(sched().wait_until([&done] { return done->load(); },
                                           std::chrono::milliseconds(30'000)));
        }
        return s;
    }

  private:
    std::unique_ptr<timing::scheduler> loop_;
    std::unique_ptr<device> dev_;
    adapter* handle_ = nullptr;
};

/// The request context numbered `n` (contexts are opaque pointers; tests number them).
inline void* ctx(std::uintptr_t n) {
    return reinterpret_cast<void*>(n);
}

/// The number of a context made by ctx().
inline std::uintptr_t num(void* p) {
    return reinterpret_cast<std::uintptr_t>(p);
}

/// A completion of kind `type` with `status_value`, numbered by `n` through its contexts.
inline completion make_completion(std::uintptr_t n, status s = status::success,
                                  bool solicited = false, op_type type = op_type::receive) {
    completion c{};
    c.status = static_cast<std::int32_t>(s);
    c.bytes_transferred = static_cast<std::uint32_t>(n * 10);
    c.qp_context = reinterpret_cast<void*>(std::uintptr_t{0x1000});
    c.request_context = reinterpret_cast<void*>(n);
    c.type = type;
    c.provider_error = 0;
    c.type_specific = 0;
    c.solicited = solicited;
    return c;
}

/// Records notification callbacks (CQ or SRQ: both report a status). `on_call` runs
/// inside the callback. Thread-safe counters; `statuses` is guarded by `mutex`.
struct notify_recorder {
    std::atomic<int> calls{0};
    std::atomic<int> running{0};
    std::atomic<int> max_running{0};
    std::mutex mutex;
    std::vector<std::int32_t> statuses;
    std::vector<std::string> events;  // "enter", "exit" and whatever on_call adds
    std::function<void(notify_recorder&, std::int32_t)> on_call;

    static void callback(void* context, std::int32_t s) {
        auto* self = static_cast<notify_recorder*>(context);
        const int now_running = self->running.fetch_add(1) + 1;
        int prev = self->max_running.load();
        while (now_running > prev && !self->max_running.compare_exchange_weak(prev, now_running)) {
        }
        {
            std::lock_guard lock(self->mutex);
            self->statuses.push_back(s);
            self->events.emplace_back("enter");
        }
        if (self->on_call) {
            self->on_call(*self, s);
        }
        {
            std::lock_guard lock(self->mutex);
            self->events.emplace_back("exit");
        }
        self->running.fetch_sub(1);
        self->calls.fetch_add(1);
    }

    void event(std::string e) {
        std::lock_guard lock(mutex);
        events.push_back(std::move(e));
    }

    /// callback() bound to this recorder, as core stores a notification.
    notify_fn bound() {
        return [this](std::int32_t s) { callback(this, s); };
    }
};

/// Polls up to `max` entries from `q` into a vector.
inline std::vector<completion> poll(cq& q, std::uint32_t max = 1024) {
    std::vector<completion> out(max);
    const std::uint32_t n =
        q.poll(max, [&out](std::uint32_t i, const completion& c) { out[i] = c; });
    out.resize(n);
    return out;
}

/// The request contexts of `v`, as numbers.
inline std::vector<std::uintptr_t> contexts(const std::vector<completion>& v) {
    std::vector<std::uintptr_t> out;
    for (const completion& c : v) {
        out.push_back(reinterpret_cast<std::uintptr_t>(c.request_context));
    }
    return out;
}

}  // namespace ndksim::core::test
