// SPDX-License-Identifier: MIT
#pragma once
// Internal status codes. The numeric values are the NTSTATUS values of REFERENCE.md section 7,
// so the one mapping to the C ABI (api/ntstatus_map.hpp) is a checked cast, not a table.

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace ndksim {

enum class status : std::int32_t {
    success = 0x00000000,
    timeout = 0x00000102,
    pending = 0x00000103,
    buffer_overflow = static_cast<std::int32_t>(0x80000005),
    device_busy = static_cast<std::int32_t>(0x80000011),
    unsuccessful = static_cast<std::int32_t>(0xC0000001),
    not_implemented = static_cast<std::int32_t>(0xC0000002),
    access_violation = static_cast<std::int32_t>(0xC0000005),
    invalid_handle = static_cast<std::int32_t>(0xC0000008),
    invalid_parameter = static_cast<std::int32_t>(0xC000000D),
    invalid_device_request = static_cast<std::int32_t>(0xC0000010),
    no_memory = static_cast<std::int32_t>(0xC0000017),
    buffer_too_small = static_cast<std::int32_t>(0xC0000023),
    invalid_parameter_mix = static_cast<std::int32_t>(0xC0000030),
    data_overrun = static_cast<std::int32_t>(0xC000003C),
    data_error = static_cast<std::int32_t>(0xC000003E),
    sharing_violation = static_cast<std::int32_t>(0xC0000043),
    insufficient_resources = static_cast<std::int32_t>(0xC000009A),
    device_data_error = static_cast<std::int32_t>(0xC000009C),
    device_not_ready = static_cast<std::int32_t>(0xC00000A3),
    io_timeout = static_cast<std::int32_t>(0xC00000B5),
    not_supported = static_cast<std::int32_t>(0xC00000BB),
    internal_error = static_cast<std::int32_t>(0xC00000E5),
    cancelled = static_cast<std::int32_t>(0xC0000120),
    local_disconnect = static_cast<std::int32_t>(0xC000013B),
    remote_disconnect = static_cast<std::int32_t>(0xC000013C),
    remote_resources = static_cast<std::int32_t>(0xC000013D),
    invalid_connection = static_cast<std::int32_t>(0xC0000140),
    invalid_address = static_cast<std::int32_t>(0xC0000141),
    invalid_device_state = static_cast<std::int32_t>(0xC0000184),
    invalid_buffer_size = static_cast<std::int32_t>(0xC0000206),
    too_many_addresses = static_cast<std::int32_t>(0xC0000209),
    address_already_exists = static_cast<std::int32_t>(0xC000020A),
    address_closed = static_cast<std::int32_t>(0xC000020B),
    connection_disconnected = static_cast<std::int32_t>(0xC000020C),
    connection_reset = static_cast<std::int32_t>(0xC000020D),
    not_found = static_cast<std::int32_t>(0xC0000225),
    connection_refused = static_cast<std::int32_t>(0xC0000236),
    graceful_disconnect = static_cast<std::int32_t>(0xC0000237),
    connection_invalid = static_cast<std::int32_t>(0xC000023A),
    connection_active = static_cast<std::int32_t>(0xC000023B),
    network_unreachable = static_cast<std::int32_t>(0xC000023C),
    host_unreachable = static_cast<std::int32_t>(0xC000023D),
    port_unreachable = static_cast<std::int32_t>(0xC000023F),
    request_aborted = static_cast<std::int32_t>(0xC0000240),
    connection_aborted = static_cast<std::int32_t>(0xC0000241),
    nointerface = static_cast<std::int32_t>(0xC00002B9),
    implementation_limit = static_cast<std::int32_t>(0xC000042B),
    ndis_bad_version = static_cast<std::int32_t>(0xC0010004),
    ndis_adapter_not_ready = static_cast<std::int32_t>(0xC0010011),
};

/// True for success and informational codes, as NT_SUCCESS: warnings such as buffer_overflow
/// count as failures.
constexpr bool succeeded(status s) noexcept {
    return static_cast<std::int32_t>(s) >= 0;
}

/// The Windows name of a status ("STATUS_INVALID_PARAMETER"), or "STATUS_0x........" when the
/// value is not one the simulator knows. The returned view has static storage.
std::string_view status_name(status s) noexcept;

/// Same as status_name() for a raw 32-bit NTSTATUS value.
std::string_view status_name(std::int32_t raw) noexcept;

}  // namespace ndksim

template <>
struct fmt::formatter<ndksim::status> : fmt::formatter<std::string_view> {
    template <class Ctx>
    auto format(ndksim::status s, Ctx& ctx) const {
        return fmt::formatter<std::string_view>::format(ndksim::status_name(s), ctx);
    }
};
