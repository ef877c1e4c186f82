#pragma once
// Logging. Every line names the object it is about (its ident(), e.g. "nic1/h1/qp#3"), so a
// consumer can follow one object through a run.
//
// Runtime level: environment variable NDKSIM_LOG (trace, debug, info, warn, error, critical,
// off; default warn). Output: stderr, or the file named by NDKSIM_LOG_FILE.
// Compile-time floor: SPDLOG_ACTIVE_LEVEL (CMake NDKSIM_LOG_FLOOR); statements below the floor
// compile to nothing, which is what keeps data-path trace lines free in release builds.

#include <spdlog/spdlog.h>

namespace ndksim::log {

/// The library's logger. Created on first use, not registered in spdlog's global registry so
/// that it never collides with a consumer's own spdlog loggers.
spdlog::logger& get() noexcept;

/// Re-reads NDKSIM_LOG and NDKSIM_LOG_FILE (tests and tools call this after changing them).
void reload_from_environment();

/// Sets the runtime level directly (tools map their --log-level option to this).
void set_level(spdlog::level::level_enum level);

}  // namespace ndksim::log

#define NDKSIM_TRACE(...) SPDLOG_LOGGER_TRACE(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_DEBUG(...) SPDLOG_LOGGER_DEBUG(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_INFO(...) SPDLOG_LOGGER_INFO(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_WARN(...) SPDLOG_LOGGER_WARN(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_ERROR(...) SPDLOG_LOGGER_ERROR(&::ndksim::log::get(), __VA_ARGS__)
