// SPDX-License-Identifier: MIT
#pragma once
// Recording of completions into the statistics (stats_registry.hpp): the completer calls these
// as it queues each completion, on the engine.

#include <cstdint>

#include "core/qp.hpp"
#include "core/send_queue.hpp"
#include "util/status.hpp"

namespace ndksim::nic {

class engine;

/// Counts the completion of initiator request `w` of `q` (its kind, bytes and the simulated
/// time since it was posted) in the QP's and the adapter's statistics.
void record_request(engine& e, core::qp& q, const core::send_wqe& w) noexcept;

/// Counts one receive completion of `q` (`bytes` placed when `result` is success).
void record_receive(engine& e, core::qp& q, status result, std::uint32_t bytes) noexcept;

}  // namespace ndksim::nic
