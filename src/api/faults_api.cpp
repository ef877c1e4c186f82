// SPDX-License-Identifier: MIT
// The ndksim_faults.h entry points, and the coverage report an adapter gives when destroyed.

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <string>

#include "api/adapter_state.hpp"
#include "api/fault_engine.hpp"
#include "ndksim_faults.h"
#include "util/log.hpp"

namespace ndksim::api {

namespace {

std::mutex g_process_mutex;
fault_engine::coverage_map g_process;

}  // namespace

fault_engine::coverage_map process_coverage() {
    std::lock_guard lock(g_process_mutex);
    return g_process;
}

void retire_coverage(const ndksim_adapter& a) {
    const fault_engine::coverage_map m = a.faults->coverage();
    {
        std::lock_guard lock(g_process_mutex);
        for (const auto& [key, statuses] : m) {
            for (const auto& [raw, cell] : statuses) {
                coverage_cell& total = g_process[key][raw];
                total.count += cell.count;
                total.injected += cell.injected;
            }
        }
    }
    if (!a.coverage_at_destroy) {
        return;
    }
    NDKSIM_INFO("{}: error-path coverage:\n{}", a.dev.name(), coverage_table(m));
    const char* prefix = std::getenv("NDKSIM_COVERAGE");
    if (prefix == nullptr || *prefix == '\0') {
        return;
    }
    const std::string path = std::string(prefix) + a.dev.name() + ".json";
    std::ofstream out(path);
    out << coverage_json(m) << '\n';
    if (!out) {
        NDKSIM_ERROR("{}: the coverage record could not be written to {}", a.dev.name(), path);
    }
}

}  // namespace ndksim::api

using namespace ndksim;

extern "C" {

namespace {

// Writes the record `m` in `format` (ndksim_adapter_coverage's contract).
NTSTATUS write_coverage(const api::fault_engine::coverage_map& m, int format, char* buffer,
                        SIZE_T* length) {
    try {
        const std::string text =
            format == NDKSIM_COVERAGE_JSON ? api::coverage_json(m) : api::coverage_table(m);
        const SIZE_T needed = text.size() + 1;
        const SIZE_T given = *length;
        *length = needed;
        if (buffer == nullptr || given < needed) {
            return STATUS_BUFFER_TOO_SMALL;
        }
        std::memcpy(buffer, text.c_str(), needed);
        return STATUS_SUCCESS;
    } catch (const std::bad_alloc&) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
}

bool valid_format(ndksim_coverage_format format, int& value) noexcept {
    std::memcpy(&value, &format, sizeof value);  // any int a C caller stored
    return value == NDKSIM_COVERAGE_JSON || value == NDKSIM_COVERAGE_TABLE;
}

}  // namespace

NDKSIM_API NTSTATUS ndksim_adapter_coverage(const struct ndksim_adapter* adapter,
                                            ndksim_coverage_format format, char* buffer,
                                            SIZE_T* length) {
    int value = 0;
    if (adapter == nullptr || length == nullptr || !valid_format(format, value)) {
        return STATUS_INVALID_PARAMETER;
    }
    if (adapter->faults == nullptr) {
        return STATUS_INVALID_DEVICE_STATE;
    }
    return write_coverage(adapter->faults->coverage(), value, buffer, length);
}

NDKSIM_API NTSTATUS ndksim_process_coverage(ndksim_coverage_format format, char* buffer,
                                            SIZE_T* length) {
    int value = 0;
    if (length == nullptr || !valid_format(format, value)) {
        return STATUS_INVALID_PARAMETER;
    }
    return write_coverage(api::process_coverage(), value, buffer, length);
}

NDKSIM_API ULONG64 ndksim_adapter_faults_fired(const struct ndksim_adapter* adapter) {
    return adapter == nullptr || adapter->faults == nullptr ? 0 : adapter->faults->fired();
}

}  // extern "C"
