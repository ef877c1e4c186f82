// SPDX-License-Identifier: MIT
#pragma once
// What the requester makes of a NAK (completer.cpp): the completion status of the request the
// NAK names and the ProviderErrorCode reported with it (docs/completion-statuses.md). Shared
// with the responder's fault table, which states for each rule what the requester sees and is
// checked against this mapping at compile time.

#include <array>
#include <cstdint>

#include "util/status.hpp"
#include "wire/proto.hpp"

namespace ndksim::nic {

struct nak_outcome {
    status result;
    std::uint32_t provider_error;  ///< NDK_RESULT_EX.ProviderErrorCode: 0x100 | NAK code
};

/// Indexed by wire::nak_code.
inline constexpr std::array<nak_outcome, 5> k_nak_outcomes{{
    {status::internal_error, 0x100},      // psn_sequence_error: retried, never completes
    {status::remote_resources, 0x101},    // invalid_request
    {status::access_violation, 0x102},    // remote_access_error
    {status::connection_aborted, 0x103},  // remote_operational_error
    {status::remote_resources, 0x104},    // invalid_rd_request
}};

/// The outcome of NAK `code` (a code beyond the table: the connection was aborted).
constexpr nak_outcome nak_outcome_of(std::uint8_t code) noexcept {
    return code < k_nak_outcomes.size() ? k_nak_outcomes[code]
                                        : nak_outcome{status::connection_aborted, 0x100U | code};
}

}  // namespace ndksim::nic
