// SPDX-License-Identifier: MIT
#pragma once
// One measurement: a test (write, read, send) in one mode (lat, bw) at one message size, on
// every QP pair of a rig.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "options.hpp"
#include "rig.hpp"

namespace ndksim::perf {

/// What one size measured. The t_* latencies and the bandwidth are modelled (simulated time);
/// the host figures are the simulator's own speed (wall time).
struct size_result {
    std::uint64_t size = 0;        ///< message size [bytes]
    std::uint64_t iterations = 0;  ///< measured messages per QP and direction
    std::uint64_t messages = 0;    ///< measured messages (iterations x QPs x directions)
    std::uint64_t bytes = 0;       ///< messages x size
    /// Latency tests: one-way (round trip / 2; read: the read itself). Bandwidth tests: each
    /// request's post to completion. [us]
    double t_min_us = 0;
    double t_max_us = 0;
    double t_typical_us = 0;  ///< the median
    double t_avg_us = 0;
    double t_stdev_us = 0;
    double t_p99_us = 0;
    double t_p999_us = 0;
    /// The best bandwidth over any tenth of the measurement's completions (at least tx depth x
    /// QPs x directions) [MB = 2^20 bytes/s].
    double bw_peak_mb_s = 0;
    double bw_avg_mb_s = 0;            ///< bytes over the simulated time of the measurement
    double bw_gbps = 0;                ///< the same in Gb/s (10^9 bits)
    double msg_rate_mpps = 0;          ///< messages / simulated time [millions per second]
    std::uint64_t sim_elapsed_ps = 0;  ///< simulated time of the whole measurement
    double wall_s = 0;                 ///< wall time of the measurement [s]
    double host_msgs_per_s = 0;        ///< messages / wall second
    double host_mb_per_s = 0;          ///< bytes / wall second [MB = 2^20 bytes]
};

// The watched byte's accesses race with the engine thread's placement in ThreadSanitizer's
// view only (see runner.cpp).
#if defined(__SANITIZE_THREAD__)
#define NDKSIM_PERF_NO_TSAN __attribute__((no_sanitize("thread")))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NDKSIM_PERF_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef NDKSIM_PERF_NO_TSAN
#define NDKSIM_PERF_NO_TSAN
#endif

/// Posts one request of the test's kind, `size` bytes from `from`'s buffer on `ep` (to `to`'s
/// buffer for a write or read). Throws perf_error when the post is refused.
void post(const options& o, endpoint& ep, const side& from, const side& to, std::uint64_t size);

/// Posts a receive of `size` bytes into `s`'s buffer on `ep`.
void post_receive(endpoint& ep, const side& s, std::uint64_t size);

/// Posts a receive as post_receive does, but returns false when the receive queue is full.
/// In threaded mode a receive's slot is freed just after its completion is queued, so a receive
/// posted at once after reaping may still find the queue full: the caller tries again later.
bool try_post_receive(endpoint& ep, const side& s, std::uint64_t size);

/// The byte a write ping-pong watches in `s`'s buffer: the message's last, which lands last.
std::byte watched(const side& s, std::uint64_t size);

/// Puts `tag` in that byte before the message is written.
void set_watched(side& s, std::uint64_t size, std::byte tag);

/// The tag of a ping of `iteration` on QP `qp` of `qps`; its reply carries tag + 1. Both
/// processes of a two-process run compute the same sequence.
std::byte ping_tag(std::uint32_t iteration, std::size_t qp, std::size_t qps);

/// Called with the messages finished so far in the current size (for the progress display).
using progress_fn = std::function<void(std::uint64_t)>;

/// Runs `o.warmup` messages of `size` bytes on every QP pair of `r`, then measures
/// `o.iterations` more (or as many as `o.duration` seconds allow). `progress` sees the measured
/// messages only. Throws perf_error on a failed post or completion.
size_result run_size(rig& r, const options& o, std::uint64_t size, const progress_fn& progress);

}  // namespace ndksim::perf
