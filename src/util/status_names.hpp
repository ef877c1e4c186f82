// SPDX-License-Identifier: MIT
#pragma once
// Reading a status back from its Windows name (fault scripts name the status to inject).

#include <string_view>

#include "util/status.hpp"

namespace ndksim {

/// The status named `name` ("STATUS_CONNECTION_REFUSED"); false when no known status has it.
bool status_from_name(std::string_view name, status& out) noexcept;

}  // namespace ndksim
