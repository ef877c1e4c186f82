// SPDX-License-Identifier: MIT
#include "util/status.hpp"
#include "util/status_names.hpp"

#include <array>
#include <cstdio>

namespace ndksim {
namespace {

struct status_info {
    status value;
    std::string_view name;
};

constexpr std::array k_status_table{
    status_info{status::success, "STATUS_SUCCESS"},
    status_info{status::timeout, "STATUS_TIMEOUT"},
    status_info{status::pending, "STATUS_PENDING"},
    status_info{status::buffer_overflow, "STATUS_BUFFER_OVERFLOW"},
    status_info{status::device_busy, "STATUS_DEVICE_BUSY"},
    status_info{status::unsuccessful, "STATUS_UNSUCCESSFUL"},
    status_info{status::not_implemented, "STATUS_NOT_IMPLEMENTED"},
    status_info{status::access_violation, "STATUS_ACCESS_VIOLATION"},
    status_info{status::invalid_handle, "STATUS_INVALID_HANDLE"},
    status_info{status::invalid_parameter, "STATUS_INVALID_PARAMETER"},
    status_info{status::invalid_device_request, "STATUS_INVALID_DEVICE_REQUEST"},
    status_info{status::no_memory, "STATUS_NO_MEMORY"},
    status_info{status::buffer_too_small, "STATUS_BUFFER_TOO_SMALL"},
    status_info{status::invalid_parameter_mix, "STATUS_INVALID_PARAMETER_MIX"},
    status_info{status::data_overrun, "STATUS_DATA_OVERRUN"},
    status_info{status::data_error, "STATUS_DATA_ERROR"},
    status_info{status::sharing_violation, "STATUS_SHARING_VIOLATION"},
    status_info{status::insufficient_resources, "STATUS_INSUFFICIENT_RESOURCES"},
    status_info{status::device_data_error, "STATUS_DEVICE_DATA_ERROR"},
    status_info{status::device_not_ready, "STATUS_DEVICE_NOT_READY"},
    status_info{status::io_timeout, "STATUS_IO_TIMEOUT"},
    status_info{status::not_supported, "STATUS_NOT_SUPPORTED"},
    status_info{status::internal_error, "STATUS_INTERNAL_ERROR"},
    status_info{status::cancelled, "STATUS_CANCELLED"},
    status_info{status::local_disconnect, "STATUS_LOCAL_DISCONNECT"},
    status_info{status::remote_disconnect, "STATUS_REMOTE_DISCONNECT"},
    status_info{status::remote_resources, "STATUS_REMOTE_RESOURCES"},
    status_info{status::invalid_connection, "STATUS_INVALID_CONNECTION"},
    status_info{status::invalid_address, "STATUS_INVALID_ADDRESS"},
    status_info{status::invalid_device_state, "STATUS_INVALID_DEVICE_STATE"},
    status_info{status::invalid_buffer_size, "STATUS_INVALID_BUFFER_SIZE"},
    status_info{status::too_many_addresses, "STATUS_TOO_MANY_ADDRESSES"},
    status_info{status::address_already_exists, "STATUS_ADDRESS_ALREADY_EXISTS"},
    status_info{status::address_closed, "STATUS_ADDRESS_CLOSED"},
    status_info{status::connection_disconnected, "STATUS_CONNECTION_DISCONNECTED"},
    status_info{status::connection_reset, "STATUS_CONNECTION_RESET"},
    status_info{status::not_found, "STATUS_NOT_FOUND"},
    status_info{status::connection_refused, "STATUS_CONNECTION_REFUSED"},
    status_info{status::graceful_disconnect, "STATUS_GRACEFUL_DISCONNECT"},
    status_info{status::connection_invalid, "STATUS_CONNECTION_INVALID"},
    status_info{status::connection_active, "STATUS_CONNECTION_ACTIVE"},
    status_info{status::network_unreachable, "STATUS_NETWORK_UNREACHABLE"},
    status_info{status::host_unreachable, "STATUS_HOST_UNREACHABLE"},
    status_info{status::port_unreachable, "STATUS_PORT_UNREACHABLE"},
    status_info{status::request_aborted, "STATUS_REQUEST_ABORTED"},
    status_info{status::connection_aborted, "STATUS_CONNECTION_ABORTED"},
    status_info{status::nointerface, "STATUS_NOINTERFACE"},
    status_info{status::implementation_limit, "STATUS_IMPLEMENTATION_LIMIT"},
    status_info{status::ndis_bad_version, "NDIS_STATUS_BAD_VERSION"},
    status_info{status::ndis_adapter_not_ready, "NDIS_STATUS_ADAPTER_NOT_READY"},
};

consteval bool table_has_unique_values() {
    for (std::size_t i = 0; i < k_status_table.size(); ++i) {
        for (std::size_t j = i + 1; j < k_status_table.size(); ++j) {
            if (k_status_table[i].value == k_status_table[j].value) {
                return false;
            }
        }
    }
    return true;
}
static_assert(table_has_unique_values(), "each status value has exactly one name");

// Names for values outside the table are formatted into a per-thread slot so the view stays
// valid until the same thread asks again; this keeps the function allocation-free.
thread_local std::array<char, 24> t_unknown_name{};

}  // namespace

std::string_view status_name(status s) noexcept {
    for (const auto& e : k_status_table) {
        if (e.value == s) {
            return e.name;
        }
    }
    const int n = std::snprintf(t_unknown_name.data(), t_unknown_name.size(), "STATUS_0x%08X",
                                static_cast<unsigned>(s));
    return {t_unknown_name.data(), static_cast<std::size_t>(n)};
}

std::string_view status_name(std::int32_t raw) noexcept {
    return status_name(static_cast<status>(raw));
}

bool status_from_name(std::string_view name, status& out) noexcept {
    for (const auto& e : k_status_table) {
        if (e.name == name) {
            out = e.value;
            return true;
        }
    }
    return false;
}

}  // namespace ndksim
