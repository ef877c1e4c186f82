// SPDX-License-Identifier: MIT
#pragma once
// The connected pair of RcPair plus what the reliability tests need: the engine's and the
// fault layer's counters (this suite links the modules, so it may look inside an adapter),
// faults set through the public ndksim_adapter_set_faults, and a mixed workload that checks
// every completion: exactly once, in posting order, with its data.

#include <array>
#include <cstdint>
#include <cstring>

#include <ndksim/testkit/rc_pair.hpp>

#include "api/adapter_state.hpp"
#include "nic/engine.hpp"
#include "wire/faulty_link.hpp"

namespace ndksim::testkit {

/// A deterministic generator for the workload's choices (splitmix64).
struct workload_rng {
    std::uint64_t state;
    std::uint64_t next() {
        state += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

/// The counters of one run that must repeat for the same seed.
struct run_figures {
    std::uint64_t sim_time = 0;
    std::array<std::uint64_t, 14> values{};
    bool operator==(const run_figures&) const = default;
};

class Reliability : public RcPair {
  protected:
    static constexpr std::uint32_t k_window = 16;     // requests in flight at once
    static constexpr std::size_t k_slot = 64 * 1024;  // largest operation [bytes]
    static constexpr std::size_t k_area = k_window * k_slot;

    void SetUp() override;

    nic::engine_counters& counters(side& s) { return s.nic->engine->counters(); }
    const wire::fault_counters& faults(side& s) { return s.nic->link.faults->faults(); }
    std::uint64_t bad_icrc(side& s) {
        return counters(s)
            .bad_frames[static_cast<std::size_t>(wire::decode_error::bad_icrc)]
            .load();
    }

    /// The same faults on both adapters' links.
    void set_faults(ULONG drop, ULONG duplicate, ULONG reorder, ULONG corrupt, ULONG64 seed = 0);

    /// Posts `ops` operations from a (RDMA writes and reads to b, sends into receives b posts),
    /// at most k_window in flight, sizes 1 B to 64 KiB (mostly small). Checks every initiator
    /// completion (success, exactly once, in posting order, data moved) and every receive.
    void run_mixed(std::uint32_t ops, std::uint64_t seed);

    /// The figures of the run so far (simulated time and every counter).
    run_figures figures();

    buffer a_source_;   // what a writes and sends
    buffer a_sink_;     // where a's reads land
    buffer b_target_;   // what a writes into and reads from
    buffer b_receive_;  // where a's sends land
};

}  // namespace ndksim::testkit
