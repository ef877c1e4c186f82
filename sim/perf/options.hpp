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

enum class test_kind { write, read, send };
enum class run_mode { lat, bw };
enum class wire_kind { inproc, udp, tcp };
enum class role { both, server, client };

struct options {
    test_kind test = test_kind::write;
    run_mode mode = run_mode::lat;
    std::vector<std::uint64_t> sizes;  ///< message sizes [bytes], ascending as given
    std::uint32_t iterations = 1000;   ///< per QP and size
    std::uint32_t qps = 1;
    std::uint32_t outstanding = 16;  ///< bandwidth mode: requests kept posted per QP
    bool inline_data = false;        ///< NDK_OP_FLAG_INLINE for sizes within the inline limit
    std::string profile;             ///< NIC profile name or file; empty: the default
    wire_kind wire = wire_kind::inproc;
    bool threaded = false;  ///< engine threads instead of one deterministic loop
    role who = role::both;
    std::string peer;  ///< client: the server's address
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

/// Parses "2..8M" (powers of two from 2 to 8 MiB), "2,4096,65536" or one size; K, M and G
/// suffixes are binary. Throws perf_error on anything else.
std::vector<std::uint64_t> parse_sizes(const std::string& text);

/// Parses argv into options. Returns false after printing help or an error (exit code in
/// `exit_code`).
bool parse_options(int argc, char** argv, options& out, int& exit_code);

}  // namespace ndksim::perf
