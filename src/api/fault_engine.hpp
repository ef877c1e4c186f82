// SPDX-License-Identifier: MIT
#pragma once
// The fault engine of one adapter: it runs the adapter's fault script (fault_script.hpp)
// between the consumer and the provider, and keeps the error-path coverage record of every
// status the consumer saw (docs/fault-injection.md, docs/coverage in docs/fault-injection.md).
//
// It is the adapter's core::call_hooks: objects created while it exists get the hooked
// dispatch tables (fault_tables.cpp), whose entries call before_call and after_call around the
// provider function, and the engine passes every request completion through on_completion.
// Every decision is drawn under one mutex from a generator seeded by the script (or the
// adapter's seed), so a deterministic run repeats the same faults at the same calls.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <utility>

#include "api/call_context.hpp"
#include "api/fault_script.hpp"
#include "core/call_hooks.hpp"

namespace ndksim::api {

/// How a status reached the consumer.
enum class seen_as : std::uint8_t { returned, callback, completion };

/// Counts of one status on one path, and how many of them the script injected.
struct coverage_cell {
    std::uint64_t count = 0;
    std::uint64_t injected = 0;
};

class fault_engine final : public core::call_hooks {
  public:
    /// `kill_peer` cuts the adapter's link (the kill_peer action); `adapter_seed` seeds the
    /// draws when the script gives no seed.
    fault_engine(fault_script script, std::uint64_t adapter_seed, std::function<void()> kill_peer);

    status before_call(const char* function, core::object& o) override;
    void after_call(const char* function, status s) override;
    void on_callback(const char* function, status s) override;
    core::completion_verdict on_completion(core::qp& q, core::completion& c,
                                           std::uint64_t bytes) override;

    /// Faults that fired so far (every action).
    std::uint64_t fired() const;

    /// The coverage record: (path, function or request type) -> status -> cell.
    using coverage_map =
        std::map<std::pair<seen_as, std::string>, std::map<std::int32_t, coverage_cell>>;
    coverage_map coverage() const;

  private:
    void record_locked(seen_as path, std::string_view name, status s, bool injected);

    mutable std::mutex mutex_;
    fault_script script_;
    std::mt19937_64 rng_;
    std::function<void()> kill_peer_;
    std::uint64_t fired_ = 0;
    coverage_map coverage_;
};

}  // namespace ndksim::api

struct ndksim_adapter;

namespace ndksim::api {

/// At adapter destroy: adds the adapter's coverage record to the process's
/// (ndksim_process_coverage) and, when the adapter was asked for coverage, logs its table and
/// writes its JSON to <NDKSIM_COVERAGE><name>.json when that variable names a prefix.
void retire_coverage(const ndksim_adapter& a);

/// The record of every adapter retired so far, added up.
fault_engine::coverage_map process_coverage();

/// Coverage as one JSON document (docs/fault-injection.md, "Coverage").
std::string coverage_json(const fault_engine::coverage_map& m);

/// Coverage as a table for people: one line per function or request type, its statuses.
std::string coverage_table(const fault_engine::coverage_map& m);

}  // namespace ndksim::api
