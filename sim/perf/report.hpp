// SPDX-License-Identifier: MIT
#pragma once
// The results of a run: perftest's table on stdout, and optionally CSV and JSON files.

#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"
#include "runner.hpp"

namespace ndksim::perf {

/// Whether the modelled figures of a run with `o` include host time: threaded engines keep
/// simulated time no slower than the wall clock (docs/engine.md, "Simulated time").
bool modelled_includes_host(const options& o) noexcept;

/// The run's description, what each clock means, and the table's header (before the first
/// size).
void print_header(std::FILE* out, const options& o);

/// One table row.
void print_row(std::FILE* out, const options& o, const size_result& r);

/// The line that closes the table.
void print_footer(std::FILE* out, const options& o);

/// Writes the CSV file (columns in docs/perf.md). Throws perf_error when it cannot.
void write_csv(const std::string& path, const options& o, const std::vector<size_result>& rows);

/// Writes the JSON file (schema in docs/perf.md). Throws perf_error when it cannot.
void write_json(const std::string& path, const options& o, const std::vector<size_result>& rows);

/// Writes {"adapters": [...]} from the adapters' statistics documents (side a first; a
/// two-process server or client has only its own). "-" prints it on stdout.
void write_stats_json(const std::string& path, const std::vector<std::string>& adapters);

}  // namespace ndksim::perf
