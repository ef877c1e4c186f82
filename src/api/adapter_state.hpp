// SPDX-License-Identifier: MIT
#pragma once
// What the opaque handles of ndksim.h are: a deterministic loop, and a simulated adapter (its
// device, NIC engine, link layers and the NDK_ADAPTER handles open on it). Shared by the
// files of src/api that implement ndksim.h.

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "api/fault_engine.hpp"
#include "api/interface_registry.hpp"
#include "api/link_factory.hpp"
#include "core/adapter.hpp"
#include "core/device.hpp"
#include "ndksim.h"
#include "nic/engine.hpp"
#include "timing/scheduler.hpp"

struct ndksim_loop {
    ndksim::timing::scheduler sched{ndksim::timing::scheduler::options{
        ndksim::timing::run_mode::deterministic, ndksim::timing::poll_policy::block, "loop"}};
    std::atomic<int> adapters{0};
};

struct ndksim_adapter {
    ndksim_adapter(ndksim::core::device_config cfg, const ndksim::core::adapter_limits& limits,
                   ndksim_loop* l)
        : dev(std::move(cfg), limits), loop(l) {}
    /// The fault engine (fault script and coverage record), or null. Declared before the
    /// device so it is destroyed after it: the device's last tasks may still complete requests.
    std::unique_ptr<ndksim::api::fault_engine> faults;
    /// Whether the coverage record is reported when the adapter is destroyed.
    bool coverage_at_destroy = false;
    ndksim::core::device dev;
    ndksim::api::link_layers link;
    std::unique_ptr<ndksim::nic::engine> engine;
    ndksim_loop* loop;
    std::mutex handles_mutex;
    std::vector<ndksim::core::adapter*> handles;
    /// Its network interface identity (index, LUID, alias, address) in the process registry.
    std::shared_ptr<ndksim::api::interface_entry> iface;
};
