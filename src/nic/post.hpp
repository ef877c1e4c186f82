// SPDX-License-Identifier: MIT
#pragma once
// Posting work requests (consumer threads; the consumer serializes posts per queue, REFERENCE.md
// rule 8). Each function validates inline and returns the NTSTATUS the post returns: success
// means exactly one completion will follow (none for a successful SILENT_SUCCESS request);
// any failure means none (rule 9).

#include <cstdint>
#include <span>

#include "core/qp.hpp"
#include "mem/ids.hpp"
#include "util/status.hpp"

namespace ndksim::nic {

class engine;

/// The engine of the adapter an object belongs to.
engine& engine_of(core::object& o) noexcept;

/// Arguments of a data-movement request.
struct transfer_args {
    void* context = nullptr;
    const core::sge* sges = nullptr;
    std::uint32_t sge_count = 0;
    std::uint32_t flags = 0;           ///< NDK_OP_FLAG_*
    std::uint64_t remote_address = 0;  ///< write/read
    std::uint32_t remote_token = 0;    ///< write/read target; SendAndInvalidate token
};

/// NdkSend (kind send), NdkSendAndInvalidate (send_invalidate), NdkWrite (write), NdkRead
/// (read). Returns success; connection_invalid on a QP that is not connected (rule 10);
/// invalid_parameter for more SGEs than the QP allows (reads: also MaxReadRequestSge), inline
/// data above the QP's inline size, INLINE on a read, or more than MaxTransferLength bytes;
/// insufficient_resources when the initiator queue is full.
[[nodiscard]] status post_transfer(engine& e, core::qp& q, core::wr_kind kind,
                                   const transfer_args& a);

/// NdkBind: the memory unit's post-time checks (access_violation, invalid_parameter) plus the
/// checks of post_transfer that apply.
[[nodiscard]] status post_bind(engine& e, core::qp& q, void* context, mem::region_id region,
                               mem::window_id window, std::uint64_t va, std::uint64_t length,
                               std::uint32_t flags);

/// NdkFastRegister: the memory unit's post-time checks (access_violation, invalid_parameter,
/// invalid_device_request, invalid_device_state); the page list is copied.
[[nodiscard]] status post_fast_register(engine& e, core::qp& q, void* context,
                                        mem::region_id region, std::span<const std::uint64_t> pages,
                                        std::uint32_t fbo, std::uint64_t length,
                                        std::uint64_t base_va, std::uint32_t flags);

/// NdkInvalidate of a fast-registered region or of a window.
[[nodiscard]] status post_invalidate(engine& e, core::qp& q, void* context, mem::region_id region,
                                     mem::window_id window, std::uint32_t flags);

/// NdkReceive: queues a receive (any QP state: receives are posted before connecting). On a
/// QP in error the receive completes with STATUS_CANCELLED. invalid_parameter for more SGEs
/// than the QP allows, insufficient_resources when the receive queue is full,
/// invalid_device_request on a QP that uses an SRQ.
[[nodiscard]] status post_receive(engine& e, core::qp& q, void* context, const core::sge* sges,
                                  std::uint32_t count);

/// NdkFlush: every outstanding request and receive completes with STATUS_CANCELLED and the QP
/// moves to error (rule 12). Returns at once; the completions follow from the engine.
void flush(engine& e, core::qp& q);

}  // namespace ndksim::nic
