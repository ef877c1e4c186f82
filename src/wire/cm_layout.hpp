// SPDX-License-Identifier: MIT
#pragma once
// InfiniBand Communication Management MADs as they sit in a CM datagram's payload, in network
// byte order: the MAD common header (IBA vol. 1 13.4.3), the bodies of the CM messages ndksim
// sends (12.6, the "Message Contents" tables of REQ, REJ, REP, RTU, DREQ and DREP) and the
// RDMA IP CM service's header at the start of a REQ's private data (annex A11). As in proto.hpp,
// the layout structs only describe offsets and sizes (each field is a byte array: no padding, no
// alignment); cm_proto.cpp reads and writes them through load_be / store_be. Every layout starts
// with the MAD header, so offsetof() gives the offset from the first byte of the MAD. A field that
// shares a byte with others is one byte here, and its bits are named by the *_shift / *_mask
// constants beside it (bit 7 is the first bit IBA draws). docs/wire-format.md has the same tables.

#include <cstddef>
#include <cstdint>

namespace ndksim::wire {

/// A MAD on a UD QP is exactly 256 bytes, header included (IBA vol. 1 13.4.2).
inline constexpr std::size_t cm_mad_size = 256;

/// MAD common header (IBA vol. 1 13.4.3).
struct mad_header_layout {
    std::uint8_t base_version;           ///< 0: 1
    std::uint8_t mgmt_class;             ///< 1: 0x07, Communication Management
    std::uint8_t class_version;          ///< 2: 2 for the CM class
    std::uint8_t method;                 ///< 3: R [7], method [6:0]; CM messages are Send (0x03)
    std::uint8_t status[2];              ///< 4: 0 in a Send
    std::uint8_t class_specific[2];      ///< 6: 0 (reserved for the CM class)
    std::uint8_t transaction_id[8];      ///< 8: identifies the exchange (see cm_proto.hpp)
    std::uint8_t attribute_id[2];        ///< 16: the message (REQ 0x0010 ... DREP 0x0016)
    std::uint8_t reserved[2];            ///< 18: 0
    std::uint8_t attribute_modifier[4];  ///< 20: ndksim: the consumer's private-data length
};
static_assert(sizeof(mad_header_layout) == 24);

/// REQ: ConnectRequest (IBA vol. 1 12.6, "REQ Message Contents").
struct cm_req_layout {
    mad_header_layout mad;                   ///< 0
    std::uint8_t local_comm_id[4];           ///< 24: the sender's communication id
    std::uint8_t reserved0[4];               ///< 28
    std::uint8_t service_id[8];              ///< 32: IP CM service id (annex A11.2)
    std::uint8_t local_ca_guid[8];           ///< 40: the sender's CA GUID
    std::uint8_t reserved1[4];               ///< 48
    std::uint8_t local_qkey[4];              ///< 52: UD/RD only; 0 for RC
    std::uint8_t local_qpn[3];               ///< 56: the sender's QP number
    std::uint8_t responder_resources;        ///< 59: RDMA reads the sender accepts at once (IRD)
    std::uint8_t local_eecn[3];              ///< 60: RD only; 0
    std::uint8_t initiator_depth;            ///< 63: RDMA reads the sender issues at once (ORD)
    std::uint8_t remote_eecn[3];             ///< 64: RD only; 0
    std::uint8_t remote_timeout_tst_e2e;     ///< 67: remote CM response timeout [7:3],
                                             ///<     transport service type [2:1], E2E credits [0]
    std::uint8_t starting_psn[3];            ///< 68: first PSN the sender sends
    std::uint8_t local_timeout_retry;        ///< 71: local CM response timeout [7:3], retry count
                                             ///<     [2:0]
    std::uint8_t partition_key[2];           ///< 72
    std::uint8_t mtu_rdc_rnr;                ///< 74: path MTU [7:4], RDC exists [3], RNR retry
                                             ///<     count [2:0]
    std::uint8_t max_cm_retries_srq;         ///< 75: max CM retries [7:4], SRQ [3], extended
                                             ///<     transport type [2:0]
    std::uint8_t primary_local_lid[2];       ///< 76: 0xFFFF (permissive) on RoCE
    std::uint8_t primary_remote_lid[2];      ///< 78: 0xFFFF
    std::uint8_t primary_local_gid[16];      ///< 80: the sender's IP address as a GID
    std::uint8_t primary_remote_gid[16];     ///< 96: the receiver's IP address as a GID
    std::uint8_t primary_flow_rate[4];       ///< 112: flow label [31:12], packet rate [5:0]
    std::uint8_t primary_traffic_class;      ///< 116
    std::uint8_t primary_hop_limit;          ///< 117
    std::uint8_t primary_sl_subnet_local;    ///< 118: SL [7:4], subnet local [3]
    std::uint8_t primary_local_ack_timeout;  ///< 119: local ACK timeout [7:3]
    std::uint8_t alternate_path[44];         ///< 120: no alternate path: all 0
    std::uint8_t private_data[92];           ///< 164: IP CM header, then the consumer's data
};
static_assert(sizeof(cm_req_layout) == cm_mad_size);
static_assert(offsetof(cm_req_layout, local_qpn) == 56 &&
              offsetof(cm_req_layout, primary_local_gid) == 80 &&
              offsetof(cm_req_layout, private_data) == 164);

inline constexpr std::uint8_t cm_timeout_shift = 3;  ///< 5-bit timeouts sit in bits [7:3]
inline constexpr std::uint8_t cm_req_tst_shift = 1;  ///< transport service type, bits [2:1]
inline constexpr std::uint8_t cm_req_tst_mask = 0x06;
inline constexpr std::uint8_t cm_req_tst_rc = 0;      ///< reliable connection
inline constexpr std::uint8_t cm_low3_mask = 0x07;    ///< retry and RNR retry counts [2:0]
inline constexpr std::uint8_t cm_high4_shift = 4;     ///< path MTU, max CM retries [7:4]
inline constexpr std::uint8_t cm_req_srq_bit = 0x08;  ///< max_cm_retries_srq [3]
inline constexpr std::uint16_t cm_permissive_lid = 0xFFFF;

/// REP: ConnectReply (IBA vol. 1 12.6, "REP Message Contents").
struct cm_rep_layout {
    mad_header_layout mad;             ///< 0
    std::uint8_t local_comm_id[4];     ///< 24
    std::uint8_t remote_comm_id[4];    ///< 28: the REQ's local comm id
    std::uint8_t local_qkey[4];        ///< 32: 0 for RC
    std::uint8_t local_qpn[3];         ///< 36
    std::uint8_t reserved0;            ///< 39
    std::uint8_t local_eecn[3];        ///< 40: 0
    std::uint8_t reserved1;            ///< 43
    std::uint8_t starting_psn[3];      ///< 44
    std::uint8_t reserved2;            ///< 47
    std::uint8_t responder_resources;  ///< 48: IRD
    std::uint8_t initiator_depth;      ///< 49: ORD
    std::uint8_t ack_delay_failover;   ///< 50: target ACK delay [7:3], failover accepted [2:1],
                                       ///<     E2E credits [0]
    std::uint8_t rnr_retry_srq;        ///< 51: RNR retry count [7:5], SRQ [4]
    std::uint8_t local_ca_guid[8];     ///< 52
    std::uint8_t private_data[196];    ///< 60
};
static_assert(sizeof(cm_rep_layout) == cm_mad_size);
static_assert(offsetof(cm_rep_layout, starting_psn) == 44 &&
              offsetof(cm_rep_layout, private_data) == 60);

inline constexpr std::uint8_t cm_rep_rnr_shift = 5;   ///< rnr_retry_srq [7:5]
inline constexpr std::uint8_t cm_rep_srq_bit = 0x10;  ///< rnr_retry_srq [4]

/// RTU: ReadyToUse (IBA vol. 1 12.6, "RTU Message Contents"); DREP: DisconnectReply
/// ("DREP Message Contents") has the same layout.
struct cm_rtu_layout {
    mad_header_layout mad;           ///< 0
    std::uint8_t local_comm_id[4];   ///< 24
    std::uint8_t remote_comm_id[4];  ///< 28
    std::uint8_t private_data[224];  ///< 32
};
static_assert(sizeof(cm_rtu_layout) == cm_mad_size);

/// REJ: ConnectReject (IBA vol. 1 12.6, "REJ Message Contents").
struct cm_rej_layout {
    mad_header_layout mad;            ///< 0
    std::uint8_t local_comm_id[4];    ///< 24
    std::uint8_t remote_comm_id[4];   ///< 28: 0 when the sender never learnt it
    std::uint8_t message_rejected;    ///< 32: [7:6] (cm_rejected)
    std::uint8_t reject_info_length;  ///< 33: ARI length [7:1] [bytes]
    std::uint8_t reason[2];           ///< 34: cm_reject_reason
    std::uint8_t ari[72];             ///< 36: additional rejection information
    std::uint8_t private_data[148];   ///< 108
};
static_assert(sizeof(cm_rej_layout) == cm_mad_size);
static_assert(offsetof(cm_rej_layout, reason) == 34 &&
              offsetof(cm_rej_layout, private_data) == 108);

inline constexpr std::uint8_t cm_rej_message_shift = 6;  ///< message_rejected [7:6]
inline constexpr std::uint8_t cm_rej_info_shift = 1;     ///< reject_info_length [7:1]

/// DREQ: DisconnectRequest (IBA vol. 1 12.6, "DREQ Message Contents").
struct cm_dreq_layout {
    mad_header_layout mad;           ///< 0
    std::uint8_t local_comm_id[4];   ///< 24
    std::uint8_t remote_comm_id[4];  ///< 28
    std::uint8_t remote_qpn[3];      ///< 32: the receiver's QP number
    std::uint8_t reserved;           ///< 35
    std::uint8_t private_data[220];  ///< 36
};
static_assert(sizeof(cm_dreq_layout) == cm_mad_size);

/// The RDMA IP CM service's header: the first bytes of a REQ's private data (IBA vol. 1
/// annex A11, RDMA IP CM Service). An IPv4 address takes the last 4 bytes of its field,
/// after 12 zero bytes.
struct ip_cm_header_layout {
    std::uint8_t version;      ///< 0: major [7:4], minor [3:0]: both 0
    std::uint8_t ip_version;   ///< 1: IP version [7:4] (4 or 6), reserved [3:0]
    std::uint8_t src_port[2];  ///< 2: the sender's port (ND port)
    std::uint8_t src_ip[16];   ///< 4
    std::uint8_t dst_ip[16];   ///< 20
};
static_assert(sizeof(ip_cm_header_layout) == 36);

/// Where the IP CM header's fields sit in a REQ [bytes from the MAD's start].
inline constexpr std::size_t cm_req_ip_cm_offset = offsetof(cm_req_layout, private_data);
/// The consumer's part of a REQ's private data [bytes]: 92 - 36 = 56.
inline constexpr std::size_t cm_req_consumer_data =
    sizeof(cm_req_layout::private_data) - sizeof(ip_cm_header_layout);
static_assert(cm_req_consumer_data == 56);

/// IP CM service id: 0x0000000001 | protocol (8 bits) | port (16 bits) (annex A11).
inline constexpr std::uint64_t ip_cm_service_id_prefix = 0x0000000001000000;
inline constexpr std::uint64_t ip_cm_service_id_prefix_mask = 0xFFFFFFFFFF000000;
inline constexpr std::uint8_t ip_cm_protocol_tcp = 0x06;  ///< RDMA_PS_TCP: RC connections

}  // namespace ndksim::wire
