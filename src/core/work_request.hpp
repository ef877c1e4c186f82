// SPDX-License-Identifier: MIT
#pragma once
// The data that flows between the consumer's posts, the engine and the completion queues, in
// core's own terms (no C ABI types). src/api copies NDK_SGE into sge and completion into
// NDK_RESULT / NDK_RESULT_EX.

#include <cstdint>

#include "mem/sge_cursor.hpp"

namespace ndksim::core {

/// One scatter-gather element, as NDK_SGE carries it (REFERENCE.md section 3): `address` is a
/// registered virtual address, or a logical address when `token` is the PD's privileged token.
/// The memory unit's type, so posted lists go to its SGE cursor without conversion.
using sge = mem::sge;

/// NDK_OPERATION_TYPE values (REFERENCE.md 2.2).
enum class op_type : std::uint32_t {
    receive = 0x0001,
    send = 0x0002,
    fast_register = 0x0004,
    bind = 0x0008,
    invalidate = 0x0010,
    read = 0x0020,
    write = 0x0040,
    receive_and_invalidate = 0x8001,
};

/// One completion queue entry: the fields of NDK_RESULT_EX plus what notification needs.
struct completion {
    std::int32_t status;              ///< NTSTATUS value
    std::uint32_t bytes_transferred;  ///< receive completions only
    void* qp_context;                 ///< the QPContext given at QP creation
    void* request_context;            ///< the RequestContext given at post time
    op_type type;
    std::uint32_t provider_error;  ///< 0 on success; optional detail on failure (2.1+)
    std::uintptr_t type_specific;  ///< ReceiveAndInvalidate: the invalidated token
    bool solicited;                ///< the sender set NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT
    /// The device's id of the work queue the request was posted to (the QP's initiator or
    /// receive queue, or the SRQ; outstanding_contexts::new_queue), for the verifier's rule 17.
    std::uint32_t queue;
};
static_assert(sizeof(void*) != 8 || sizeof(completion) == 48,
              "completion::queue fills what was padding: a CQ ring entry keeps its size");

/// True for a completion that satisfies an NDK_CQ_NOTIFY_ERRORS arm (any failure status).
constexpr bool is_error(const completion& c) noexcept {
    return c.status < 0;
}

}  // namespace ndksim::core
