// SPDX-License-Identifier: MIT
#pragma once
// A classic pcap file of RoCEv2 frames, readable by tshark and Wireshark.
//
// Format: the pcap global header with the nanosecond magic (0xA1B23C4D, written in host byte
// order as libpcap does) and LINKTYPE_ETHERNET (1); then one record per frame holding
//   Ethernet II (14) | IPv4 (20) or IPv6 (40) | UDP (8, destination port 4791) | frame
// where the frame is BTH ... ICRC exactly as the engine sent or received it. Nanoseconds are
// chosen because the simulated clock counts picoseconds: microseconds would merge distinct
// events of a 100 Gb/s port into one timestamp. The timestamp of a record is the frame's
// simulated time (departure for a frame sent, arrival for one received) counted from the
// epoch, so captures of a deterministic run are byte-identical from run to run.
//
// The IP and UDP headers are the ones the ICRC pseudo header of wire/icrc.cpp assumes for the
// frame's flow (docs/wire-format.md, "ICRC"): IPv4 identification from the flow (0 by
// default), DF set, fragment offset 0, protocol 17; IPv6 with traffic class and flow label 0;
// UDP ports from the flow; lengths from the frame. The masked fields get ordinary values (TOS 0,
// TTL/hop limit 64) and correct checksums, so a tool that recomputes the ICRC over the captured
// headers gets the one in the frame. MAC addresses are locally administered and derived from
// the IP addresses (02:00:a:b:c:d for IPv4 a.b.c.d; 02 and the last five bytes for IPv6).
//
// Writes go through a 64 KiB stdio buffer: no allocation per record. close() (or destruction)
// flushes. Not thread-safe: the shared writer of capture_link serializes its callers.

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "timing/sim_time.hpp"
#include "wire/icrc.hpp"

namespace ndksim::wire {

/// The pcap magic number this writer uses (nanosecond timestamps).
inline constexpr std::uint32_t pcap_magic_ns = 0xA1B2'3C4Du;
/// LINKTYPE_ETHERNET.
inline constexpr std::uint32_t pcap_linktype_ethernet = 1;
/// Bytes of the pcap global header and of each record header.
inline constexpr std::size_t pcap_global_header_size = 24;
inline constexpr std::size_t pcap_record_header_size = 16;
/// Largest outer header (Ethernet + IPv6 + UDP) written before a frame [bytes].
inline constexpr std::size_t pcap_max_outer_size = 14 + 40 + 8;

/// Builds the Ethernet, IP and UDP headers of a frame of `frame_size` bytes on `f` into `out`
/// (at least pcap_max_outer_size bytes); returns how many bytes were written (42 or 62).
std::size_t build_outer_headers(const flow& f, std::size_t frame_size, std::byte* out) noexcept;

class pcap_writer {
  public:
    /// Creates (truncates) `path` and writes the global header. Throws std::runtime_error with
    /// a message naming the path and strerror(errno) when the file cannot be opened or written.
    explicit pcap_writer(const std::string& path);

    /// Flushes and closes (errors are logged).
    ~pcap_writer();

    pcap_writer(const pcap_writer&) = delete;
    pcap_writer& operator=(const pcap_writer&) = delete;

    /// Appends one record: `frame` (BTH ... ICRC) on flow `f` at simulated time `when` [ps].
    /// A write error is logged once (path and strerror) and later records are dropped.
    void write(const flow& f, std::span<const std::byte> frame, timing::sim_time when) noexcept;

    /// Flushes the buffer to the file. Returns false (and logs) on a write error.
    bool flush() noexcept;

    /// Flushes and closes the file; later writes are ignored. Returns false on an error.
    bool close() noexcept;

    const std::string& path() const noexcept { return path_; }

    /// Records written so far.
    std::uint64_t records() const noexcept { return records_; }

  private:
    void fail(const char* what, int error) noexcept;

    std::string path_;
    std::FILE* file_ = nullptr;
    bool failed_ = false;
    std::uint64_t records_ = 0;
    char buffer_[64 * 1024];
};

}  // namespace ndksim::wire
