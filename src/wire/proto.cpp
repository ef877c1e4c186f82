// SPDX-License-Identifier: MIT
#include "wire/proto.hpp"

namespace ndksim::wire {
namespace {

constexpr std::array<std::string_view, 5> nak_names = {
    "psn_sequence_error",       "invalid_request",    "remote_access_error",
    "remote_operational_error", "invalid_rd_request",
};

static_assert(psn_diff(0, psn_mask) == 1 && psn_diff(psn_mask, 0) == -1);
static_assert(psn_diff(0x7F'FFFF, 0) == 0x7F'FFFF && psn_diff(0x80'0000, 0) == -0x80'0000);
static_assert(psn_add(psn_mask) == 0);
static_assert(syndrome_type(nak_syndrome(nak_code::remote_access_error)) == aeth_type::nak);
static_assert(rnr_timer(0) == timing::milliseconds(655) + timing::microseconds(360));

}  // namespace

std::string_view nak_code_name(std::uint8_t code) noexcept {
    return code < nak_names.size() ? nak_names[code] : std::string_view{"reserved"};
}

}  // namespace ndksim::wire
