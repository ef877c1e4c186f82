// SPDX-License-Identifier: MIT
#pragma once
// The capabilities an adapter reports in NDK_ADAPTER_INFO and enforces on every create and
// post (REFERENCE.md section 3, NDK_ADAPTER_INFO; rule 11). C-ABI-free: src/api copies the
// fields into the public structure.

#include <cstdint>

namespace ndksim::core {

struct adapter_limits {
    std::uint32_t vendor_id;
    std::uint32_t device_id;
    std::uint64_t max_registration_size;  ///< [bytes]
    std::uint64_t max_window_size;        ///< [bytes]
    std::uint32_t frmr_page_count;        ///< preferred and maximum pages per fast-register MR
    std::uint32_t max_initiator_request_sge;
    std::uint32_t max_receive_request_sge;
    std::uint32_t max_read_request_sge;
    std::uint32_t max_transfer_length;   ///< [bytes] over all SGEs of one request
    std::uint32_t max_inline_data_size;  ///< [bytes]
    std::uint32_t max_inbound_read_limit;
    std::uint32_t max_outbound_read_limit;
    std::uint32_t max_receive_queue_depth;
    std::uint32_t max_initiator_queue_depth;
    std::uint32_t max_srq_depth;
    std::uint32_t max_cq_depth;
    std::uint32_t large_request_threshold;  ///< [bytes]
    std::uint32_t max_caller_data;          ///< [bytes] of private data on connect
    std::uint32_t max_callee_data;          ///< [bytes] of private data on accept/reject
    std::uint32_t adapter_flags;            ///< NDK_ADAPTER_FLAG_* bits
    std::uint32_t rdma_technology;          ///< NDK_RDMA_TECHNOLOGY value
    std::uint64_t control_latency_ps;       ///< modelled time of a control operation [ps]
};

/// Adapter flag bits (REFERENCE.md 2.6), repeated here because core does not see ndkpi.h;
/// src/api static_asserts that they equal the header's values.
namespace adapter_flag {
inline constexpr std::uint32_t in_order_dma = 0x00000001;
inline constexpr std::uint32_t read_sink_not_required = 0x00000002;
inline constexpr std::uint32_t cq_interrupt_moderation = 0x00000004;
inline constexpr std::uint32_t multi_engine = 0x00000008;
inline constexpr std::uint32_t read_local_invalidate = 0x00000010;
inline constexpr std::uint32_t cq_resize = 0x00000100;
inline constexpr std::uint32_t loopback_connections = 0x00010000;
}  // namespace adapter_flag

/// ConnectX-like defaults (../shared/calibration: max_qp_wr 32768, max_sge 30,
/// max_qp_rd_atom 16; IBA CM private data over RoCE: 56 bytes on connect, 148 on accept and
/// reject).
adapter_limits connectx_like_limits() noexcept;

}  // namespace ndksim::core
