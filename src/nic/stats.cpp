// SPDX-License-Identifier: MIT
#include "nic/stats.hpp"

#include <array>

#include "core/device.hpp"
#include "nic/engine.hpp"
#include "nic/qp_context.hpp"

namespace ndksim::nic {
namespace {

// Indexed by core::wr_kind. Both kinds of invalidate count as one type, as NDK reports them
// (NdkOperationTypeInvalidate).
constexpr std::array<stat_op, 8> k_stat_of_kind{
    stat_op::send,             // send
    stat_op::send_invalidate,  // send_invalidate
    stat_op::write,            // write
    stat_op::read,             // read
    stat_op::bind,             // bind
    stat_op::fast_register,    // fast_register
    stat_op::invalidate,       // invalidate_region
    stat_op::invalidate,       // invalidate_window
};

// The bytes an operation counts: the message length of a transfer, the length of the range a
// bind or fast-register makes accessible, nothing for an invalidate.
std::uint64_t bytes_of(const core::send_wqe& w) noexcept {
    switch (w.kind) {
        case core::wr_kind::bind:
        case core::wr_kind::fast_register:
            return w.local_length;
        case core::wr_kind::invalidate_region:
        case core::wr_kind::invalidate_window:
            return 0;
        default:
            return w.length;
    }
}

static_assert(static_cast<std::size_t>(core::wr_kind::invalidate_window) + 1 ==
              k_stat_of_kind.size());

}  // namespace

void record_request(engine& e, core::qp& q, const core::send_wqe& w) noexcept {
    const stat_op op = k_stat_of_kind[static_cast<std::size_t>(w.kind)];
    const bool ok = w.result == status::success;
    const timing::sim_time now = e.dev().sched().now();
    const std::uint64_t latency = now > w.posted_at ? now - w.posted_at : 0;
    const std::uint64_t bytes = bytes_of(w);
    if (qp_stats* s = context_of(q).stats.get()) {
        s->ops.record(op, ok, bytes, true, latency);
    }
    e.stats().totals().record(op, ok, bytes, true, latency);
}

void record_receive(engine& e, core::qp& q, status result, std::uint32_t bytes) noexcept {
    // A receive has no post-to-completion latency of its own: it waits for the peer's send.
    const bool ok = result == status::success;
    if (qp_stats* s = context_of(q).stats.get()) {
        s->ops.record(stat_op::receive, ok, bytes, false, 0);
    }
    e.stats().totals().record(stat_op::receive, ok, bytes, false, 0);
}

}  // namespace ndksim::nic
