// SPDX-License-Identifier: MIT
// DbgPrint and its relatives: driver debug output goes to the library's logger, one log line per
// line of text, prefixed so that it stands apart from the simulator's own messages. Windows
// filters these messages per component with debugger-controlled masks; here the logger's level
// (NDKSIM_LOG) decides what appears, after the importance level has been mapped to a log level.

#include <cstdarg>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kernel/code_page.hpp"
#include "kernel/irql.hpp"
#include "kernel/rtl_format.hpp"
#include "kernel/violation.hpp"
#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

// DbgPrintEx: a Level of 0-31 is the index of one importance bit; a larger Level is a mask of
// bits (DPFLTR_MASK set or not), for which the lowest importance bit counts.
spdlog::level::level_enum log_level(ULONG level) {
    ULONG index = level;
    if (level > 31) {
        const ULONG mask = level & ~DPFLTR_MASK;
        index = mask == 0 ? 32 : static_cast<ULONG>(__builtin_ctz(mask));
    }
    switch (index) {
        case DPFLTR_ERROR_LEVEL:
            return spdlog::level::err;
        case DPFLTR_WARNING_LEVEL:
            return spdlog::level::warn;
        case DPFLTR_TRACE_LEVEL:
            return spdlog::level::debug;
        case DPFLTR_INFO_LEVEL:
            return spdlog::level::info;
        default:
            return spdlog::level::trace;
    }
}

std::string component_name(ULONG id) {
    switch (id) {
        case DPFLTR_SYSTEM_ID:
            return "SYSTEM";
        case DPFLTR_TCPIP_ID:
            return "TCPIP";
        case DPFLTR_NTOSPNP_ID:
            return "NTOSPNP";
        case DPFLTR_NETAPI_ID:
            return "NETAPI";
        case DPFLTR_IHVDRIVER_ID:
            return "IHVDRIVER";
        case DPFLTR_IHVVIDEO_ID:
            return "IHVVIDEO";
        case DPFLTR_IHVAUDIO_ID:
            return "IHVAUDIO";
        case DPFLTR_IHVNETWORK_ID:
            return "IHVNETWORK";
        case DPFLTR_IHVSTREAMING_ID:
            return "IHVSTREAMING";
        case DPFLTR_IHVBUS_ID:
            return "IHVBUS";
        case DPFLTR_DEFAULT_ID:
            return "DEFAULT";
        case DPFLTR_NDIS_ID:
            return "NDIS";
        default:
            return fmt::format("component {}", id);
    }
}

ULONG print(const char* function, const char* prefix, ULONG component, ULONG level,
            const char* format, std::va_list args) {
    const formatted result = format_windows(format, args);
    // DbgPrint: "the Unicode format codes (%C, %S, %lc, %ls, %wc, %ws, and %wZ) can only be
    // used with IRQL = PASSIVE_LEVEL" (they convert through pageable tables).
    if (result.unicode_conversion) {
        require_irql_at_most(function, PASSIVE_LEVEL,
                             "Unicode format codes (%C, %S, %lc, %ls, %wc, %ws, %wZ) need "
                             "IRQL == PASSIVE_LEVEL");
    }
    const std::string text = unicode_to_ansi(result.text);
    const std::string tag = component == DPFLTR_DEFAULT_ID
                                ? std::string("[driver] ")
                                : fmt::format("[driver {}] ", component_name(component));
    const spdlog::level::level_enum target = log_level(level);
    std::string_view rest(text);
    // One log line per line of text; the newline that ends a message adds no empty line.
    while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        const std::string_view line = rest.substr(0, end);
        log::get().log(target, "{}{}{}", tag, prefix, line);
        if (end == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(end + 1);
    }
    return static_cast<ULONG>(STATUS_SUCCESS);
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API ULONG DbgPrint(PCSTR Format, ...) {
    va_list args;
    va_start(args, Format);
    const ULONG status = print("DbgPrint", "", DPFLTR_DEFAULT_ID, DPFLTR_INFO_LEVEL, Format, args);
    va_end(args);
    return status;
}

NDKSIM_API ULONG DbgPrintEx(ULONG ComponentId, ULONG Level, PCSTR Format, ...) {
    va_list args;
    va_start(args, Format);
    const ULONG status = print("DbgPrintEx", "", ComponentId, Level, Format, args);
    va_end(args);
    return status;
}

NDKSIM_API ULONG vDbgPrintEx(ULONG ComponentId, ULONG Level, PCCH Format, va_list arglist) {
    return print("vDbgPrintEx", "", ComponentId, Level, Format, arglist);
}

NDKSIM_API ULONG vDbgPrintExWithPrefix(PCCH Prefix, ULONG ComponentId, ULONG Level, PCCH Format,
                                       va_list arglist) {
    return print("vDbgPrintExWithPrefix", Prefix, ComponentId, Level, Format, arglist);
}

}  // extern "C"
