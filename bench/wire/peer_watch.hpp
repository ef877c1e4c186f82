// SPDX-License-Identifier: MIT
#pragma once
// bench_roce_floor's two processes: the parent (side A) notices at once when the forked side B
// failed, instead of waiting out its timeout, and side B dies with the parent.

#include <sys/types.h>

namespace ndksim::bench {

/// In the parent: `child` is side B, whose exit peer_failed() and peer_exit_status() report.
void watch_peer(pid_t child) noexcept;

/// In the child: it is killed when the parent dies, so a failed parent leaves no side B behind
/// holding its port.
void die_with_parent() noexcept;

/// True when side B has exited with a failure (a nonzero status or a signal). It never waits,
/// and it is always false in side B itself.
bool peer_failed() noexcept;

/// Side B's exit status as waitpid(2) reports it, waiting for it to exit; -1 when it could
/// not be collected.
int peer_exit_status() noexcept;

}  // namespace ndksim::bench
