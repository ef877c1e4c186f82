// SPDX-License-Identifier: MIT
#pragma once
// Builds an adapter's end of the link from its configuration: the base transport (in-process,
// UDP or TCP), then the layers over it (fault injection, capture). The composition root of the
// wire: nothing below src/api names a concrete transport.

#include <memory>
#include <stdexcept>

#include "core/device.hpp"
#include "ndksim.h"
#include "nic/engine.hpp"
#include "wire/faulty_link.hpp"
#include "wire/transport.hpp"

namespace ndksim::api {

/// What the link of one adapter is made of; filled from ndksim_adapter_config.
struct link_options {
    core::wire_kind wire = core::wire_kind::inproc;
    std::uint16_t port = 4791;
    timing::sim_time latency = 0;  ///< one-way propagation of the modelled cable [ps]
    ndksim_link_faults faults{};
    const char* pcap_path = nullptr;
};

/// The layers of one adapter's link that the control API reaches after creation.
struct link_layers {
    wire::transport* base = nullptr;
    wire::faulty_link* faults = nullptr;  ///< fault injection over the base transport
    /// The link's outermost receive entry (through the capture layer when there is one, then
    /// the engine's on_frame); ndksim_adapter_inject_frame delivers through it.
    wire::transport::receive_fn receive;
};

/// A link option that cannot be honoured (e.g. a pcap_path that cannot be opened): the
/// adapter is not created and ndksim_adapter_create returns STATUS_INVALID_PARAMETER.
class link_config_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Whether every rate of `faults` is at most 1'000'000 parts per million.
bool valid_faults(const ndksim_link_faults& faults) noexcept;

/// The fault layer's settings for `faults`; seed 0 becomes the adapter's `adapter_seed`.
wire::fault_settings to_fault_settings(const ndksim_link_faults& faults,
                                       std::uint64_t adapter_seed);

/// Registers the counters of the link's layers in `stats` under the statistics document's paths
/// (link.*, drops.unroutable, faults.*, sockets.*): a layer this link lacks registers its
/// counters as absent (they read 0). Called once, after the engine built the link.
void register_link_counters(const link_layers& layers, nic::stats_registry& stats);

/// Returns the factory the engine calls with its frame entry point. `layers` is filled when the
/// engine builds the link and must outlive it.
nic::engine::transport_factory make_link_factory(core::device& dev, const link_options& opts,
                                                 link_layers& layers);

}  // namespace ndksim::api
