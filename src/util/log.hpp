// SPDX-License-Identifier: MIT
#pragma once
// Logging. Every line names the object it is about (its ident(), e.g. "nic1/h1/qp#3"), so a
// consumer can follow one object through a run.
//
// Runtime level: environment variable NDKSIM_LOG (trace, debug, info, warn, error, critical,
// off; default warn). Output: stderr, or the file named by NDKSIM_LOG_FILE.
// Compile-time floor: SPDLOG_ACTIVE_LEVEL (CMake NDKSIM_LOG_FLOOR); statements below the floor
// compile to nothing, which is what keeps data-path trace lines free in release builds. Asking
// NDKSIM_LOG for a level below the floor warns once, naming the configure option.
//
// Each line carries two clocks: the wall time, and the simulated time of the adapter whose
// engine logged it, in seconds with nanoseconds as a capture's timestamps (docs/capture.md), so
// a log line can be found in a capture: "[12:00:01.123456] [sim 0.000012345] [info] ...".
// A line logged outside any engine (a consumer's call, a tool) shows "[sim -]".

#include <cstdint>
#include <memory>

#include <spdlog/spdlog.h>

namespace ndksim::log {

/// The library's logger. Created on first use, not registered in spdlog's global registry so
/// that it never collides with a consumer's own spdlog loggers.
spdlog::logger& get() noexcept;

/// Re-reads NDKSIM_LOG and NDKSIM_LOG_FILE (tests and tools call this after changing them).
void reload_from_environment();

/// Sets the runtime level directly (tools map their --log-level option to this).
void set_level(spdlog::level::level_enum level);

/// Reads the simulated clock of the engine the calling thread is running, if any: sets `ps`
/// [picoseconds] and returns true, or returns false outside every engine. Called only when a
/// line is formatted, never on a path that logs nothing.
using sim_clock_fn = bool (*)(std::uint64_t& ps) noexcept;

/// Installs the simulated-clock reader of log lines (the scheduler installs its own; util,
/// below timing, cannot call it directly).
void set_sim_clock(sim_clock_fn fn) noexcept;

/// A formatter with the library's line layout (wall time, simulated time, level, thread,
/// message), for a sink that should print lines as the library's own sinks do.
std::unique_ptr<spdlog::formatter> make_formatter();

/// Adds `sink` to the logger and to every logger a reload makes, until remove_sink() (tests
/// capture the library's output with it). Makes a new logger from the environment, so a level
/// set with set_level() must be set again afterwards.
void add_sink(spdlog::sink_ptr sink);

/// Removes a sink added by add_sink() (from the loggers made from now on).
void remove_sink(const spdlog::sink_ptr& sink);

}  // namespace ndksim::log

#define NDKSIM_TRACE(...) SPDLOG_LOGGER_TRACE(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_DEBUG(...) SPDLOG_LOGGER_DEBUG(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_INFO(...) SPDLOG_LOGGER_INFO(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_WARN(...) SPDLOG_LOGGER_WARN(&::ndksim::log::get(), __VA_ARGS__)
#define NDKSIM_ERROR(...) SPDLOG_LOGGER_ERROR(&::ndksim::log::get(), __VA_ARGS__)
