// SPDX-License-Identifier: MIT
#pragma once
// The server's half of a two-process run (--role server): side b answers the client's
// ping-pongs and keeps receives posted for its sends, replaying the same workload from its own
// options, until the client disconnects.

#include "options.hpp"
#include "rig.hpp"

namespace ndksim::perf {

/// Accepts the client's connections on the listening rig `r`, serves every size of `o`, and
/// returns once the client has disconnected every connection. Throws perf_error on a failed
/// post or completion, or a client that runs another workload.
void serve(rig& r, const options& o);

}  // namespace ndksim::perf
