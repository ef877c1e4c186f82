// SPDX-License-Identifier: MIT
#pragma once
// --role both: this program re-executed as the server in a child process, and the client here,
// over the UDP or TCP wire on two loopback addresses.

#include <functional>
#include <string>

#include "options.hpp"

namespace ndksim::perf {

/// Runs one side of the measurement as the client with options `o`; fills `stats` with the
/// client adapter's statistics document. Returns the exit status.
using client_fn = std::function<int(const options& o, std::string& stats)>;

/// Starts the server child (on a free port from `o.port`, found by the child, which reports it
/// once it listens), runs `client` against it, then waits for the child. When `client` throws
/// port_taken_error (the client's address is held on that port), the child is killed and both
/// start over from the next port, up to 16 times. With --stats-json the file holds both
/// adapters, the client's first. Returns 0 only if both sides succeeded; throws perf_error
/// when the child cannot be started.
int run_both(const options& o, const client_fn& client);

}  // namespace ndksim::perf
