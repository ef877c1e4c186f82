// SPDX-License-Identifier: MIT
#include "core/adapter_limits.hpp"

namespace ndksim::core {

adapter_limits connectx_like_limits() noexcept {
    adapter_limits l{};
    l.vendor_id = 0x000002C9;  // Mellanox OUI
    l.device_id = 0x1013;      // ConnectX-4
    l.max_registration_size = std::uint64_t{1} << 40;
    l.max_window_size = std::uint64_t{1} << 40;
    l.frmr_page_count = 256;
    l.max_initiator_request_sge = 30;
    l.max_receive_request_sge = 30;
    l.max_read_request_sge = 30;
    l.max_transfer_length = 1U << 30;
    l.max_inline_data_size = 256;
    l.max_inbound_read_limit = 16;
    l.max_outbound_read_limit = 16;
    l.max_receive_queue_depth = 32768;
    l.max_initiator_queue_depth = 32768;
    l.max_srq_depth = 32768;
    l.max_cq_depth = 4194303;
    l.large_request_threshold = 16384;
    // The consumer's share of IBA CM private data over RoCE (IBA vol. 1 12.6, annex A11): a
    // REQ's 92 bytes less the 36-byte IP CM header; the smaller of a REP's 196 and a REJ's 148
    // bytes, as both NdkAccept and NdkReject are bounded by MaxCalleeData (WinOF's ND
    // providers advertise the same 56 and 148).
    l.max_caller_data = 56;
    l.max_callee_data = 148;
    l.adapter_flags = adapter_flag::in_order_dma | adapter_flag::read_sink_not_required |
                      adapter_flag::cq_interrupt_moderation | adapter_flag::multi_engine |
                      adapter_flag::read_local_invalidate | adapter_flag::cq_resize |
                      adapter_flag::loopback_connections;
    l.rdma_technology = 4;             // NdkRoCEv2
    l.control_latency_ps = 2'000'000;  // 2 us: a firmware command round trip
    return l;
}

}  // namespace ndksim::core
