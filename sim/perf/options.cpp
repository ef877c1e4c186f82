#include "options.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <map>

namespace ndksim::perf {
namespace {

std::uint64_t parse_size(std::string t) {
    if (t.empty()) {
        throw perf_error("empty size");
    }
    std::uint64_t scale = 1;
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
    if (last == 'K' || last == 'M' || last == 'G') {
        scale = last == 'K' ? 1ULL << 10 : last == 'M' ? 1ULL << 20 : 1ULL << 30;
        t.pop_back();
    }
    std::size_t used = 0;
    std::uint64_t v = 0;
    try {
        v = std::stoull(t, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != t.size() || v == 0) {
        throw perf_error("'" + t + "' is not a size (e.g. 64, 4K, 8M)");
    }
    return v * scale;
}

}  // namespace

const char* name_of(test_kind t) noexcept {
    return t == test_kind::write ? "write" : t == test_kind::read ? "read" : "send";
}
const char* name_of(run_mode m) noexcept {
    return m == run_mode::lat ? "lat" : "bw";
}
const char* name_of(wire_kind w) noexcept {
    return w == wire_kind::inproc ? "inproc" : w == wire_kind::udp ? "udp" : "tcp";
}

const char* name_of(role r) noexcept {
    return r == role::local    ? "local"
           : r == role::server ? "server"
           : r == role::client ? "client"
                               : "both";
}

const char* name_of(poll_kind p) noexcept {
    return p == poll_kind::spin ? "spin" : p == poll_kind::block ? "block" : "spin-then-block";
}

std::uint16_t per_process_port() noexcept {
    // Tests run in parallel: spreading the start over 20000 ports keeps concurrent runs apart,
    // and the search moves on from a taken one.
    return static_cast<std::uint16_t>(30000 + (static_cast<unsigned>(::getpid()) * 13U) % 20000U);
}

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
    std::vector<std::uint64_t> out;
    const std::size_t range = text.find("..");
    if (range != std::string::npos) {
        const std::uint64_t from = parse_size(text.substr(0, range));
        const std::uint64_t to = parse_size(text.substr(range + 2));
        if (from > to) {
            throw perf_error("size range " + text + " runs backwards");
        }
        // Powers of two within the range (the first size kept even when it is not one).
        out.push_back(from);
        std::uint64_t p = 1;
        while (p <= from) {
            p <<= 1;
        }
        for (; p <= to; p <<= 1) {
            out.push_back(p);
        }
        return out;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        out.push_back(parse_size(text.substr(start, comma - start)));
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return out;
}

bool parse_options(int argc, char** argv, options& o, int& exit_code) {
    CLI::App app{
        "ndksim-perf: perftest-like latency and bandwidth runs on simulated NICs.\n"
        "Latency and bandwidth are the engine's model (simulated time); the host-side\n"
        "columns measure the simulator itself."};
    std::string& sizes = o.sizes_text;
    const std::map<std::string, test_kind> tests{
        {"write", test_kind::write}, {"read", test_kind::read}, {"send", test_kind::send}};
    const std::map<std::string, run_mode> modes{{"lat", run_mode::lat}, {"bw", run_mode::bw}};
    const std::map<std::string, wire_kind> wires{
        {"inproc", wire_kind::inproc}, {"udp", wire_kind::udp}, {"tcp", wire_kind::tcp}};
    const std::map<std::string, role> roles{{"local", role::local},
                                            {"both", role::both},
                                            {"server", role::server},
                                            {"client", role::client}};
    app.add_option("--test", o.test, "operation: write, read or send")
        ->transform(CLI::CheckedTransformer(tests, CLI::ignore_case));
    app.add_option("--mode", o.mode, "lat (ping-pong) or bw (keep --outstanding posted)")
        ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case));
    app.add_option("--sizes", sizes, "message sizes: FROM..TO (powers of two) or a list")
        ->capture_default_str();
    app.add_option("--iterations,-n", o.iterations, "messages per QP and size")
        ->check(CLI::Range(1U, 100'000'000U))
        ->capture_default_str();
    app.add_option("--qps", o.qps, "connected QP pairs")
        ->check(CLI::Range(1U, 1024U))
        ->capture_default_str();
    app.add_option("--outstanding", o.outstanding, "bandwidth mode: requests posted per QP")
        ->check(CLI::Range(1U, 4096U))
        ->capture_default_str();
    app.add_flag("--inline", o.inline_data, "send or write sizes up to 256 bytes inline");
    app.add_option("--profile", o.profile, "NIC profile name or file (default cx4-edr)");
    app.add_option("--ack-timeout-us", o.ack_timeout_us,
                   "transport timer of the connections [us of simulated time]; 0: the "
                   "adapter's default (16000)")
        ->check(CLI::Range(0U, 60'000'000U));
    app.add_option("--wire", o.wire, "inproc, udp or tcp")
        ->transform(CLI::CheckedTransformer(wires, CLI::ignore_case));
    app.add_flag("--threaded", o.threaded,
                 "engine threads (the default for the socket wires) instead of one loop");
    const std::map<std::string, poll_kind> polls{{"spin", poll_kind::spin},
                                                 {"block", poll_kind::block},
                                                 {"spin-then-block", poll_kind::spin_then_block}};
    CLI::Option* poll = app.add_option("--poll", o.poll,
                                       "threaded runs: how this tool and the engine threads wait: "
                                       "spin, block or spin-then-block (default: spin for lat, "
                                       "spin-then-block for bw)")
                            ->transform(CLI::CheckedTransformer(polls, CLI::ignore_case));
    app.add_option("--role", o.who,
                   "local (both sides here), server, client, or both (a server child process "
                   "and the client here)")
        ->transform(CLI::CheckedTransformer(roles, CLI::ignore_case));
    app.add_option("--local", o.local,
                   "this process's adapter address (default 127.0.0.2 for the server, "
                   "127.0.0.1 for the client)");
    app.add_option("--peer", o.peer, "client: the server's address (default 127.0.0.2)");
    app.add_option("--port", o.port,
                   "UDP/TCP port of the wire; 0: 4791 for server and client, a free one "
                   "from a per-process start for local and both")
        ->capture_default_str();
    app.add_flag("--port-search", o.port_search, "server: take the next port while it is taken")
        ->group("");
    app.add_option("--ready-fd", o.ready_fd, "server: write the bound port here once listening")
        ->group("");
    app.add_option("--pcap", o.pcap, "record the first adapter's frames to this pcap file");
    app.add_option("--csv", o.csv, "write one row per size to this CSV file");
    app.add_option("--json", o.json, "write the results to this JSON file");
    app.add_option("--stats-json", o.stats_json,
                   "write both adapters' statistics (ndksim_adapter_stats_json) at the end");
    app.add_flag("--quiet,-q", o.quiet, "no progress display");
    try {
        app.parse(argc, argv);
        o.sizes = parse_sizes(sizes);
    } catch (const CLI::ParseError& e) {
        exit_code = app.exit(e);
        return false;
    } catch (const perf_error& e) {
        std::fprintf(stderr, "ndksim-perf: --sizes: %s\n", e.what());
        exit_code = 1;
        return false;
    }
    if (o.wire != wire_kind::inproc) {
        o.threaded = true;
    }
    if (poll->count() == 0) {
        // A latency run measures the wake-ups too: a sleeping thread costs tens of
        // microseconds to wake, a polling one a few (docs/perf.md, "--poll").
        o.poll = o.mode == run_mode::lat ? poll_kind::spin : poll_kind::spin_then_block;
    }
    if (o.who != role::local && o.wire == wire_kind::inproc) {
        std::fprintf(stderr,
                     "ndksim-perf: --role %s runs the sides in two processes, which needs "
                     "--wire udp or --wire tcp\n",
                     name_of(o.who));
        exit_code = 1;
        return false;
    }
    if (o.who == role::server || o.who == role::client) {
        if (o.port == 0) {
            o.port = k_default_port;
        }
    } else if (o.port == 0) {
        o.port = per_process_port();
        o.port_search = true;
    }
    return true;
}

}  // namespace ndksim::perf
