// SPDX-License-Identifier: MIT
#pragma once
// bench_roce_floor's `bw` mode: large RDMA writes as the socket wires carry them, with only the
// work the wire's format requires and nothing of the simulator's.

#include <cstddef>
#include <cstdint>

namespace ndksim::bench {

/// What a bulk run moves, and over which socket.
struct bulk_options {
    bool tcp = false;                   ///< TCP records instead of UDP datagrams
    std::uint16_t port = 0;             ///< A's port on 127.0.0.1; B takes the next one
    std::size_t message = 1024 * 1024;  ///< bytes of one write
    std::uint32_t window = 16;          ///< writes outstanding at most
    std::uint64_t messages = 400;       ///< writes to move
    double timeout_s = 10;              ///< a side that sees nothing this long gives up
};

/// Checks, before the sides start, what a run needs of the host: over UDP, a receive buffer
/// that holds the whole window. Throws std::runtime_error saying what is missing.
void bulk_check(const bulk_options& o);

/// Runs one side: A (`first`) sends, B receives and acknowledges. Returns the seconds from A's
/// first send to the ACK of its last write (B: 0). Throws std::runtime_error on a socket error,
/// a frame that fails its CRC, or the timeout.
double bulk_side(const bulk_options& o, bool first);

}  // namespace ndksim::bench
