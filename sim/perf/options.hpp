#pragma once
// Command-line options of ndksim-perf (docs/perf.md).

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
/// without sleeping, sleeps until woken, or polls for a millisecond and then sleeps.
enum class poll_kind { spin, block, spin_then_block };

struct options {
    test_kind test = test_kind::write;
    run_mode mode = run_mode::lat;
    std::vector<std::uint64_t> sizes;  ///< message sizes [bytes], ascending as given
    std::uint32_t iterations = 1000;   ///< per QP and size
    std::uint32_t qps = 1;
    std::uint32_t outstanding = 16;    ///< bandwidth mode: requests kept posted per QP
    bool inline_data = false;          ///< NDK_OP_FLAG_INLINE for sizes within the inline limit
    std::string profile;               ///< NIC profile name or file; empty: the default
    std::uint32_t ack_timeout_us = 0;  ///< ndksim_adapter_config.ack_timeout_us; 0: default
    wire_kind wire = wire_kind::inproc;
    bool threaded = false;  ///< engine threads instead of one deterministic loop
    /// Threaded runs: how waits wait. Unless given: spin for latency, spin_then_block for
    /// bandwidth.
    poll_kind poll = poll_kind::spin_then_block;
    role who = role::local;
    std::string local;  ///< this process's adapter address; empty: the role's default
    std::string peer;   ///< client: the server's address; empty: 127.0.0.2
    /// UDP/TCP port of the wire; 0: 4791 for server and client, a port derived from the
    /// process id (the next one while taken) for local and both.
    std::uint16_t port = 0;
    bool port_search = false;  ///< server: try the next ports while the port is taken
    int ready_fd = -1;         ///< server: write the bound port (2 bytes) here once listening
    std::string sizes_text = "2..8M";  ///< --sizes as given (handed to a child server)
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
const char* name_of(role r) noexcept;
const char* name_of(poll_kind p) noexcept;

/// The first port to try when options::port is 0 and the role searches for a free one.
std::uint16_t per_process_port() noexcept;

/// The adapter addresses of each side: side a (client) and side b (server).
inline constexpr const char* k_client_address = "127.0.0.1";
inline constexpr const char* k_server_address = "127.0.0.2";
/// The default port of the UDP and TCP wires (RoCEv2's).
inline constexpr std::uint16_t k_default_port = 4791;

/// Parses "2..8M" (powers of two from 2 to 8 MiB), "2,4096,65536" or one size; K, M and G
/// suffixes are binary. Throws perf_error on anything else.
std::vector<std::uint64_t> parse_sizes(const std::string& text);

/// Parses argv into options. Returns false after printing help or an error (exit code in
/// `exit_code`).
bool parse_options(int argc, char** argv, options& out, int& exit_code);

}  // namespace ndksim::perf
