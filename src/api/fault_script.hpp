// SPDX-License-Identifier: MIT
#pragma once
// A fault script (docs/fault-injection.md): which consumer-visible failures an adapter makes
// happen, read from TOML (the same toml++ as the NIC profiles).
//
//   seed = 7                      # draws of share_percent; 0 or absent: the adapter's seed
//   [link]                        # the link faults of ndksim_link_faults
//   drop_ppm = 1000
//   [[call]]                      # an NDK function's calls
//   function = "NdkCreateMr"
//   nth = 2                       # the 2nd call, or share_percent = 25 for a seeded share
//   action = "fail"               # fail | pend | inline | delay | kill_peer
//   status = "STATUS_INSUFFICIENT_RESOURCES"
//   [[completion]]                # request completions of a QP
//   qp = "qp#7"                   # optional: the QP's identity suffix; absent: any QP
//   nth = 3                       # the 3rd request completed, or after_bytes = N
//   action = "error"              # error | overrun_cq | disconnect
//   status = "STATUS_IO_TIMEOUT"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ndksim.h"
#include "timing/sim_time.hpp"
#include "util/status.hpp"

namespace ndksim::api {

enum class call_action : std::uint8_t { fail, pend, inline_, delay, kill_peer };
enum class completion_action : std::uint8_t { error, overrun_cq, disconnect };

/// Which calls of a function a fault hits: the nth (1-based), or a seeded share of them, at most
/// `times` times (0: no bound; an nth fault fires once).
struct call_fault {
    std::string function;
    std::uint64_t nth = 0;
    std::uint32_t share_percent = 0;
    std::uint64_t times = 0;
    call_action action = call_action::fail;
    status with = status::unsuccessful;
    timing::sim_time delay = 0;  ///< delay: added to the callback's latency [ps]
    // Progress, kept by the fault engine.
    std::uint64_t calls = 0;
    std::uint64_t fired = 0;
};

/// Which request completion of a QP a fault hits: the nth (1-based), or the one that brings the
/// QP's completed bytes to `after_bytes` or beyond. Fires once.
struct completion_fault {
    std::string qp;  ///< identity suffix ("qp#7"); empty: any QP
    std::uint64_t nth = 0;
    std::uint64_t after_bytes = 0;
    completion_action action = completion_action::error;
    status with = status::unsuccessful;
    // Progress, kept by the fault engine.
    std::uint64_t seen = 0;
    std::uint64_t bytes = 0;
    bool fired = false;
};

struct fault_script {
    std::uint64_t seed = 0;
    bool has_link = false;
    ndksim_link_faults link{};
    std::vector<call_fault> calls;
    std::vector<completion_fault> completions;
};

/// Parses `text` (named `origin` in messages). Returns "" and fills `out`, or the reason the
/// script was refused (an unknown key, action, status or function, a fault with neither nth
/// nor share, a rate out of range).
std::string parse_fault_script(std::string_view text, std::string_view origin, fault_script& out);

/// Reads and parses the file at `path` (see parse_fault_script).
std::string load_fault_file(const std::string& path, fault_script& out);

}  // namespace ndksim::api
