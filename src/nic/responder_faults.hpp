// SPDX-License-Identifier: MIT
#pragma once
// The responder's fault table: every rule a request packet can break, what the responder
// answers, what the requester's request completes with, what becomes of a receive the packet
// was landing in, and whether the QP goes to error (which also tears the connection down, so
// that both consumers see a disconnect event). responder.cpp looks each refusal up here; the
// unit tests (tests/unit/nic/test_responder_faults.cpp) drive one negative test per row.
//
// References: IBA vol. 1 chapter 9 (transport layer) names the NAK codes and the RNR NAK; the
// Linux soft-RoCE responder (drivers/infiniband/sw/rxe/rxe_resp.c) names the same checks as
// RESPST_ERR_* states; REFERENCE.md is the NDKPI behaviour digest; docs/completion-statuses.md
// lists the statuses a consumer sees.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nic/nak_outcomes.hpp"
#include "util/status.hpp"
#include "wire/proto.hpp"

namespace ndksim::nic {

/// Every rule the responder enforces on a request packet; indexes k_responder_faults.
enum class responder_fault : std::uint8_t {
    psn_sequence_error,  ///< the packet's PSN is ahead of the expected one
    receiver_not_ready,  ///< a SEND found no posted receive
    packet_too_long,     ///< the payload is longer than the path MTU
    opcode_sequence,     ///< a middle/last packet outside a message, or a first inside one
    unsupported_opcode,  ///< an RC request NDKPI has no operation for (atomics)
    receive_too_small,   ///< a SEND is longer than the receive it lands in
    receive_refused,     ///< the memory unit refused the receive's SGEs
    invalidate_refused,  ///< SendAndInvalidate names a token not valid at the receiver
    write_refused,       ///< the memory unit refused the WRITE's target (token, range, access)
    write_too_long,      ///< a WRITE carries more bytes than its RETH DMA length
    write_too_short,     ///< a WRITE ends with fewer bytes than its RETH DMA length
    read_beyond_ird,     ///< a new READ while the inbound read limit (IRD) is held
    read_refused,        ///< the memory unit refused the READ's source (token, range, access)
    count
};

/// How the responder answers a fault.
enum class fault_answer : std::uint8_t {
    nak,      ///< a NAK with the row's code
    rnr_nak,  ///< an RNR NAK with the adapter's RNR timer code
};

/// What becomes of the receive a SEND was landing in.
enum class receive_outcome : std::uint8_t {
    none,         ///< no receive is involved (or none was taken)
    row_status,   ///< it completes with the row's receive_status
    memory_unit,  ///< it completes with the status the memory unit refused the SGE with
};

struct responder_fault_rule {
    responder_fault fault;
    std::string_view name;
    fault_answer answer;
    wire::nak_code nak;  ///< for fault_answer::nak
    /// The requester's completion of the request: what k_nak_outcomes maps the NAK to, or, for
    /// a retried row, what it gets when its retries run out.
    status requester;
    bool retried;  ///< the requester resends rather than completing at once
    receive_outcome receive;
    status receive_status;  ///< for receive_outcome::row_status
    bool fatal;             ///< both QPs go to error and the connection is torn down
    bool protocol_error;    ///< counted in protocol_errors: the peer broke the protocol
    std::string_view reference;
};

inline constexpr std::array<responder_fault_rule, static_cast<std::size_t>(responder_fault::count)>
    k_responder_faults{{
        {responder_fault::psn_sequence_error, "psn_sequence_error", fault_answer::nak,
         wire::nak_code::psn_sequence_error, status::io_timeout, true, receive_outcome::none,
         status::success, false, false,
         "IBA ch. 9 NAK PSN Sequence Error (once per gap; the requester goes back to the PSN, "
         "a transport retry); rxe RESPST_ERR_PSN_OUT_OF_SEQ"},
        {responder_fault::receiver_not_ready, "receiver_not_ready", fault_answer::rnr_nak,
         wire::nak_code::psn_sequence_error, status::io_timeout, true, receive_outcome::none,
         status::success, false, false,
         "IBA ch. 9 RNR NAK (the requester retries after the RNR timer; STATUS_IO_TIMEOUT after "
         "rnr_retry_limit); rxe RESPST_ERR_RNR"},
        {responder_fault::packet_too_long, "packet_too_long", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, true,
         "IBA ch. 9 NAK Invalid Request: a packet never carries more than the path MTU; rxe "
         "RESPST_ERR_LENGTH"},
        {responder_fault::opcode_sequence, "opcode_sequence", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, true,
         "IBA ch. 9 NAK Invalid Request (opcode sequence); rxe RESPST_ERR_MISSING_OPCODE_FIRST, "
         "RESPST_ERR_MISSING_OPCODE_LAST_C"},
        {responder_fault::unsupported_opcode, "unsupported_opcode", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, true,
         "IBA ch. 9 NAK Invalid Request; NDKPI has no atomics (REFERENCE.md section 4, "
         "NDK_QP_DISPATCH); rxe RESPST_ERR_UNSUPPORTED_OPCODE"},
        {responder_fault::receive_too_small, "receive_too_small", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false,
         receive_outcome::row_status, status::buffer_overflow, true, false,
         "IBA ch. 9 NAK Invalid Request (length); rxe RESPST_ERR_LENGTH; "
         "docs/completion-statuses.md"},
        {responder_fault::receive_refused, "receive_refused", fault_answer::nak,
         wire::nak_code::remote_operational_error, status::connection_aborted, false,
         receive_outcome::memory_unit, status::success, true, false,
         "IBA ch. 9 NAK Remote Operational Error (the responder failed placing it); "
         "docs/completion-statuses.md"},
        {responder_fault::invalidate_refused, "invalidate_refused", fault_answer::nak,
         wire::nak_code::remote_operational_error, status::connection_aborted, false,
         receive_outcome::row_status, status::connection_aborted, true, false,
         "REFERENCE.md rule 22: the receiving provider aborts the connection; rxe "
         "RESPST_ERR_INVALIDATE_RKEY"},
        {responder_fault::write_refused, "write_refused", fault_answer::nak,
         wire::nak_code::remote_access_error, status::access_violation, false,
         receive_outcome::none, status::success, true, false,
         "IBA ch. 9 NAK Remote Access Error; the whole range is checked before any byte moves "
         "(ARCHITECTURE.md invariant 7); rxe RESPST_ERR_RKEY_VIOLATION"},
        {responder_fault::write_too_long, "write_too_long", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, false,
         "IBA ch. 9 NAK Invalid Request (length beyond the RETH DMA length); rxe "
         "RESPST_ERR_LENGTH"},
        {responder_fault::write_too_short, "write_too_short", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, false,
         "IBA ch. 9 NAK Invalid Request (length short of the RETH DMA length); rxe "
         "RESPST_ERR_LENGTH"},
        {responder_fault::read_beyond_ird, "read_beyond_ird", fault_answer::nak,
         wire::nak_code::invalid_request, status::remote_resources, false, receive_outcome::none,
         status::success, true, true,
         "IBA ch. 9 responder RDMA READ resources, NAK Invalid Request; the InboundReadLimit of "
         "NdkConnect/NdkAccept (REFERENCE.md section 5.9); rxe RESPST_ERR_TOO_MANY_RDMA_ATM_REQ"},
        {responder_fault::read_refused, "read_refused", fault_answer::nak,
         wire::nak_code::remote_access_error, status::access_violation, false,
         receive_outcome::none, status::success, true, false,
         "IBA ch. 9 NAK Remote Access Error; rxe RESPST_ERR_RKEY_VIOLATION"},
    }};

/// The row of `f`.
constexpr const responder_fault_rule& fault_rule(responder_fault f) noexcept {
    return k_responder_faults[static_cast<std::size_t>(f)];
}

// The table is indexed by its enum, a NAK row states what the completer makes of its NAK, and
// only fatal rows are completed at once.
constexpr bool k_responder_faults_consistent = [] {
    for (std::size_t i = 0; i < k_responder_faults.size(); ++i) {
        const responder_fault_rule& r = k_responder_faults[i];
        if (static_cast<std::size_t>(r.fault) != i || r.retried == r.fatal) {
            return false;
        }
        if (r.answer == fault_answer::nak && !r.retried &&
            nak_outcome_of(static_cast<std::uint8_t>(r.nak)).result != r.requester) {
            return false;
        }
    }
    return true;
}();
static_assert(k_responder_faults_consistent);

}  // namespace ndksim::nic
