// SPDX-License-Identifier: MIT
#pragma once
// Command-line options of ndksim-perf (docs/perf.md). The command line follows perftest's
// (ib_write_lat, ib_write_bw, ...): the test as the first argument, perftest's short options
// with their meanings and defaults, and a server host as the last argument.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ndksim::perf {

/// A usage or setup error: printed without a stack of context, exit status 1.
struct perf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The adapter's address and port are held by another socket (STATUS_ADDRESS_ALREADY_EXISTS)
/// and the role may not search further: a two-process run then starts over on the next port.
struct port_taken_error : perf_error {
    using perf_error::perf_error;
};

enum class test_kind { write, read, send };
enum class run_mode { lat, bw };
enum class wire_kind { inproc, udp, tcp };
/// Where the two sides run: both in this process (local), or one per process over a socket
/// wire (server: side b, client: side a, both: this process as the client and a child process,
/// this program re-executed, as the server).
enum class role { local, server, client, both };
/// How a waiting thread (the tool's, and the engine threads of a threaded run) waits: polls
/// without sleeping, sleeps until woken, or polls for a millisecond and then sleeps; or
/// (consumer) the tool's thread runs its adapters' engines itself while it polls.
enum class poll_kind { spin, block, spin_then_block, consumer };

/// How simulated time runs in a threaded run (ndksim_time_mode; docs/timing.md): tied to the
/// wall clock (virtual), held to it (paced), or exact across the engines and processes
/// (synchronized).
enum class time_kind { virtual_time, paced, synchronized };

/// perftest's defaults, by mode.
inline constexpr std::uint64_t k_lat_default_size = 2;
inline constexpr std::uint64_t k_bw_default_size = 65536;
inline constexpr std::uint32_t k_lat_default_iterations = 1000;
inline constexpr std::uint32_t k_bw_default_iterations = 5000;
inline constexpr std::uint32_t k_lat_default_tx_depth = 1;
inline constexpr std::uint32_t k_bw_default_tx_depth = 128;
/// -a: every power of two from 2 to 2^23 bytes (8 MiB).
inline constexpr const char* k_all_sizes = "2..8M";
/// The largest InlineDataSize the adapters accept (NDK_ADAPTER_INFO.MaxInlineDataSize).
inline constexpr std::uint32_t k_max_inline = 256;

struct options {
    test_kind test = test_kind::write;
    run_mode mode = run_mode::lat;
    std::vector<std::uint64_t> sizes;  ///< message sizes [bytes], ascending as given
    std::uint32_t iterations = k_lat_default_iterations;  ///< measured messages per QP and size
    std::uint32_t warmup = 0;    ///< messages per QP and size run before the measurement
    std::uint32_t duration = 0;  ///< -D: seconds of wall time per size instead of iterations
    std::uint32_t qps = 1;
    std::uint32_t outstanding = k_lat_default_tx_depth;  ///< bw: requests kept posted per QP
    std::uint32_t inline_size = 0;     ///< NDK_OP_FLAG_INLINE for writes and sends up to this size
    bool bidirectional = false;        ///< bw: side b runs the same flow towards side a
    std::string profile;               ///< NIC profile name or file; empty: the default
    std::uint32_t ack_timeout_us = 0;  ///< ndksim_adapter_config.ack_timeout_us; 0: default
    wire_kind wire = wire_kind::inproc;
    bool threaded = false;  ///< engine threads instead of one deterministic loop
    /// Threaded runs: how waits wait. Unless given: spin for latency, spin_then_block for
    /// bandwidth.
    poll_kind poll = poll_kind::spin_then_block;
    /// Threaded runs: the time mode of both sides (--time). Synchronized makes a run threaded.
    time_kind time = time_kind::virtual_time;
    role who = role::local;
    std::string local;  ///< this process's adapter address; empty: the role's default
    std::string peer;   ///< client: the server's address; empty: 127.0.0.2
    /// UDP/TCP port of the wire; 0: 4791 for server and client, a port derived from the
    /// process id (the next one while taken) for local and both.
    std::uint16_t port = 0;
    bool port_search = false;  ///< server: try the next ports while the port is taken
    int ready_fd = -1;         ///< server: write the bound port (2 bytes) here once listening
    std::string sizes_text;    ///< the sizes as a --sizes argument (handed to a child server)
    std::string pcap;
    std::string csv;
    std::string json;
    std::string stats_json;
    bool quiet = false;  ///< no progress display
};

/// Name of each enum value as the command line spells it.
const char* name_of(test_kind t) noexcept;
const char* name_of(run_mode m) noexcept;
const char* name_of(wire_kind w) noexcept;
const char* name_of(time_kind t) noexcept;
const char* name_of(role r) noexcept;
const char* name_of(poll_kind p) noexcept;

/// The perftest name of a test and mode ("write_lat") and its title ("RDMA Write latency").
const char* test_name(test_kind t, run_mode m) noexcept;
const char* test_title(test_kind t, run_mode m) noexcept;

/// The first port to try when options::port is 0 and the role searches for a free one.
std::uint16_t per_process_port() noexcept;

/// The adapter addresses of each side: side a (client) and side b (server).
inline constexpr const char* k_client_address = "127.0.0.1";
inline constexpr const char* k_server_address = "127.0.0.2";
/// The default port of the UDP and TCP wires (RoCEv2's).
inline constexpr std::uint16_t k_default_port = 4791;

/// Parses one size: a whole number of bytes with an optional binary K, M or G suffix. Throws
/// perf_error naming the text otherwise.
std::uint64_t parse_size(const std::string& text);

/// Parses "2..8M" (powers of two from 2 to 8 MiB), "2,4096,65536" or one size; K, M and G
/// suffixes are binary. Throws perf_error on anything else.
std::vector<std::uint64_t> parse_sizes(const std::string& text);

/// What parse_options decided, and what to print.
struct parse_outcome {
    bool run = false;   ///< false: exit with exit_code after printing out and err
    int exit_code = 0;  ///< 0 after --help, 1 after an error
    std::string out;    ///< for stdout (--help)
    std::string err;    ///< for stderr (the error, naming the valid values)
};

/// Parses and validates argv into `o`: every value is checked, and every output file opened,
/// before anything runs.
parse_outcome parse_options(int argc, const char* const* argv, options& o);

}  // namespace ndksim::perf
