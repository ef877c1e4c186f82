// SPDX-License-Identifier: MIT
#pragma once
// SOCKADDR_IN / SOCKADDR_IN6 <-> core::net_address. IPv6 is accepted with the Windows family
// value (23, WS_AF_INET6) and with the platform's AF_INET6 (10 on Linux); addresses handed back
// carry the family value the consumer used (wdm.h explains the rule).

#include "core/net_address.hpp"
#include "ndkpi.h"
#include "util/status.hpp"

namespace ndksim::api {

/// Parses a consumer address: invalid_address for NULL, a length shorter than the family's
/// structure, or a family other than IPv4/IPv6.
[[nodiscard]] status from_sockaddr(const SOCKADDR* address, ULONG length, core::net_address& out);

/// Writes `a` to a consumer buffer with the address-getter protocol: *length receives the
/// required size (16 or 28 bytes); a NULL buffer or a short length gives
/// STATUS_BUFFER_TOO_SMALL, otherwise STATUS_SUCCESS. NULL `length` is STATUS_INVALID_PARAMETER.
NTSTATUS to_sockaddr(const core::net_address& a, SOCKADDR* out, ULONG* length) noexcept;

}  // namespace ndksim::api
