#pragma once
// One measurement: a test (write, read, send) in one mode (lat, bw) at one message size, on
// every QP pair of a rig.

#include <cstdint>
#include <functional>

#include "options.hpp"
#include "rig.hpp"

namespace ndksim::perf {

/// What one size measured. Latencies and bandwidth are modelled (simulated time); the host
/// figures are the simulator's own speed (wall time).
struct size_result {
    std::uint64_t size = 0;      ///< message size [bytes]
    std::uint64_t messages = 0;  ///< measured messages (iterations x QPs)
    std::uint64_t bytes = 0;     ///< messages x size
    double lat_median_us = 0;    ///< lat: one-way (round trip / 2; read: the read itself);
    double lat_p99_us = 0;       ///< bw: post to completion of each request
    double lat_min_us = 0;
    double lat_max_us = 0;
    std::uint64_t sim_elapsed_ps = 0;  ///< simulated time of the whole measurement
    double bw_gbps = 0;                ///< bytes x 8 / simulated time [Gb/s]
    double msg_rate_mps = 0;           ///< messages / simulated time [millions per second]
    double wall_s = 0;                 ///< wall time of the measurement [s]
    double host_ops_per_s = 0;         ///< messages / wall second
    double host_mb_per_s = 0;          ///< bytes / wall second [MB/s, 10^6]
};

/// Called with the messages finished so far in the current size (for the progress display).
using progress_fn = std::function<void(std::uint64_t)>;

/// Runs `o.iterations` messages of `size` bytes on every QP pair of `r`. Throws perf_error on
/// a failed post or completion.
size_result run_size(rig& r, const options& o, std::uint64_t size, const progress_fn& progress);

}  // namespace ndksim::perf
