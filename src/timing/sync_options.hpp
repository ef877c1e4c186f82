// SPDX-License-Identifier: MIT
#pragma once
// What an adapter in synchronized time asks of its process's sync domain (sync_domain.hpp),
// and the hooks consumer-side code calls without knowing the domain: kept apart so that the
// device and the callback wrappers need not see the domain's type.

#include <chrono>

#include "timing/scheduler.hpp"

namespace ndksim::timing {

class sync_domain;

/// Options of a sync domain (ndksim_adapter_config's sync_* fields).
struct sync_options {
    /// Wall time a consumer may take to react before time moves on (an inexact step).
    std::chrono::milliseconds consumer_grace{50};
    /// Wall time without a sync record after which a peer is lost.
    std::chrono::milliseconds peer_silence{5000};
    poll_policy poll = poll_policy::block;
};

/// A consumer callback returned: when it ran on the engine of the process's sync domain, the
/// domain counts it as shown to the consumer (sync_domain::note_consumer_effect).
void note_callback_returned() noexcept;

/// A consumer thread blocks outside the simulation's own waits (a kernel wait): the process's
/// sync domain, if any, counts it as waiting (sync_domain::consumer_waits).
void note_consumer_blocks() noexcept;

}  // namespace ndksim::timing
