// SPDX-License-Identifier: MIT
#pragma once
// The sync record: what a synchronized adapter's socket wire tells the peer at the other end
// besides its frames (docs/wire-format.md, "Sync records"; docs/timing.md, "Synchronized time").
// It travels on the same socket and the same flow as the frames, so the peer reads every frame
// sent before a record before it reads the record.
//
// Layout (40 bytes, big-endian, no departure trailer):
//   0  marker 0xFF: an IBA manufacturer-specific opcode (0xC0-0xFF, IBA 9.2), which no RoCEv2
//      frame the simulator builds or accepts carries, so a record is never taken for a frame
//   1  'N' 'D' 'S'
//   4  version (1)
//   5  flags: bit 0 "leaving": the sender's adapter closes and sends nothing more
//   6  reserved, zero
//   8  promise [ps]: the sender sends nothing to the recipient that departs before it
//  16  frames seen: of the frames the recipient sent the sender, how many it has read (or
//      knows lost: see frames_sent)
//  24  frames sent: how many frames the sender had sent the recipient before this record
//  32  reserved, zero

#include <cstddef>
#include <cstdint>
#include <span>

#include "timing/sim_time.hpp"

namespace ndksim::wire {

/// Bytes of a sync record on the socket.
inline constexpr std::size_t sync_record_size = 40;

/// A sync record's fields.
struct sync_record {
    timing::sim_time promise = 0;
    std::uint64_t frames_seen = 0;
    std::uint64_t frames_sent = 0;
    bool leaving = false;
};

/// What a body read from a socket is, by its first bytes alone.
enum class sync_body : std::uint8_t {
    not_a_record,  ///< not marked as a record: a frame (or junk) for the frame path
    record,        ///< a well-formed record; `out` holds its fields
    bad_record,    ///< marked as a record but of the wrong size, version or reserved bits
};

/// Writes `r` into `out` (sync_record_size bytes).
void encode_sync_record(const sync_record& r, std::span<std::byte, sync_record_size> out) noexcept;

/// Checks `body` and, when it is a well-formed record, decodes it into `out`. Reads nothing
/// past `body`; allocates and logs nothing.
[[nodiscard]] sync_body decode_sync_record(std::span<const std::byte> body,
                                           sync_record& out) noexcept;

}  // namespace ndksim::wire
