// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <string_view>

namespace ndksim::perf {
namespace {

// The tests as perftest names its programs (ib_write_lat is "write_lat" here).
struct test_entry {
    const char* name;
    test_kind test;
    run_mode mode;
    const char* title;
};
constexpr std::array<test_entry, 6> k_tests{{
    {"write_lat", test_kind::write, run_mode::lat, "RDMA Write latency"},
    {"write_bw", test_kind::write, run_mode::bw, "RDMA Write bandwidth"},
    {"read_lat", test_kind::read, run_mode::lat, "RDMA Read latency"},
    {"read_bw", test_kind::read, run_mode::bw, "RDMA Read bandwidth"},
    {"send_lat", test_kind::send, run_mode::lat, "Send latency"},
    {"send_bw", test_kind::send, run_mode::bw, "Send bandwidth"},
}};

// Each enum's spelling on the command line, in declaration order.
constexpr std::array<const char*, 3> k_test_names{"write", "read", "send"};
constexpr std::array<const char*, 2> k_mode_names{"lat", "bw"};
constexpr std::array<const char*, 3> k_wire_names{"inproc", "udp", "tcp"};
constexpr std::array<const char*, 4> k_role_names{"local", "server", "client", "both"};
constexpr std::array<const char*, 4> k_poll_names{"spin", "block", "spin-then-block", "consumer"};
constexpr std::array<const char*, 3> k_time_names{"virtual", "paced", "synchronized"};

// "a, b or c" for messages; "a|b|c" (joint "|") for help.
template <std::size_t N>
std::string listed(const std::array<const char*, N>& names, const char* joint = nullptr) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
        out += i == 0 ? "" : joint != nullptr ? joint : i + 1 == N ? " or " : ", ";
        out += names[i];
    }
    return out;
}

std::string test_list() {
    std::array<const char*, k_tests.size()> names{};
    for (std::size_t i = 0; i < k_tests.size(); ++i) {
        names[i] = k_tests[i].name;
    }
    return listed(names);
}

// A string option restricted to `names`: the error names every valid value, and help shows
// them as words (CLI11's enum mapping would print their integers).
template <std::size_t N>
CLI::Validator one_of(const std::array<const char*, N>& names) {
    return CLI::Validator(
        [names](std::string& v) -> std::string {
            for (const char* n : names) {
                if (std::string_view(n).size() == v.size() &&
                    std::equal(v.begin(), v.end(), n, [](char a, char b) {
                        return std::tolower(static_cast<unsigned char>(a)) == b;
                    })) {
                    v = n;
                    return {};
                }
            }
            return "'" + v + "' is not one of " + listed(names);
        },
        "");
}

// Stores the value named `text` of `names` in `out` (the value's index is its enumerator).
template <class Enum, std::size_t N>
void to_enum(const std::array<const char*, N>& names, const std::string& text, Enum& out) {
    for (std::size_t i = 0; i < N; ++i) {
        if (text == names[i]) {
            out = static_cast<Enum>(i);
        }
    }
}

// A whole number in [lo, hi]; the error names the range. Checked on the text, before CLI11
// converts it, so no "Could not convert" reaches the user.
CLI::Validator whole(std::uint64_t lo, std::uint64_t hi, const std::string& note = "") {
    const std::string range = std::to_string(lo) + " to " + std::to_string(hi) + note;
    return CLI::Validator(
        [lo, hi, range](std::string& v) -> std::string {
            const bool digits = !v.empty() && v.size() <= 19 &&
                                v.find_first_not_of("0123456789") == std::string::npos;
            if (!digits) {
                return "'" + v + "' is not a whole number: give " + range;
            }
            const std::uint64_t n = std::stoull(v);
            if (n < lo || n > hi) {
                return v + " is out of range: give " + range;
            }
            return {};
        },
        std::to_string(lo) + ".." + std::to_string(hi));
}

// A size or size list, checked as parse_sizes will read it.
CLI::Validator size_text(bool list) {
    return CLI::Validator(
        [list](std::string& v) -> std::string {
            try {
                (void)(list ? parse_sizes(v) : std::vector<std::uint64_t>{parse_size(v)});
            } catch (const perf_error& e) {
                return e.what();
            }
            return {};
        },
        "");
}

// An output file must be writable before a run that may take long produces its contents. The
// file is opened without truncation, and removed again if this check created it.
std::string check_writable(const std::string& path, const char* option) {
    if (path.empty() || path == "-") {
        return {};
    }
    const bool existed = ::access(path.c_str(), F_OK) == 0;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return std::string(option) + " " + path +
               ": cannot open for writing: " + std::strerror(errno);
    }
    ::close(fd);
    if (!existed) {
        ::unlink(path.c_str());
    }
    return {};
}

// What the command line gave, before the defaults that depend on the test are applied.
struct given {
    std::string test_arg;  // first positional: the test (or the host, see below)
    std::string host;      // second positional: the server host
    std::string test;      // --test
    std::string mode;      // --mode
    std::string wire = "inproc";
    std::string role;
    std::string size;
    std::string sizes;
    bool all = false;
    std::uint32_t iterations = 0;
    std::uint32_t tx_depth = 0;
    std::uint32_t inline_size = 0;
    bool inline_flag = false;
    std::uint32_t port = 0;
    std::string poll;
    std::string time;
};

// Every option, one statement each, grouped as the help shows them.
void define(CLI::App& app, options& o, given& g) {
    app.add_option("TEST", g.test_arg, "the test: " + test_list() + " (default write_lat)")
        ->type_name("");
    app.add_option("HOST", g.host,
                   "the server's address: this process runs the client (side a) and connects "
                   "to it over a socket wire (udp unless --wire says tcp)")
        ->type_name("");

    // perftest's options, with its meanings and defaults.
    app.add_option("-s,--size", g.size,
                   "message size [bytes, K/M/G binary] (default 2 for "
                   "latency tests, 65536 for bandwidth tests)")
        ->type_name("SIZE")
        ->check(size_text(false));
    app.add_flag("-a,--all", g.all, "run every size from 2 to 2^23 bytes");
    app.add_option("-n,--iters,--iterations", g.iterations,
                   "measured messages per QP and size (default 1000 for latency tests, 5000 "
                   "for bandwidth tests)")
        ->check(whole(1, 100'000'000));
    app.add_option("-D,--duration", o.duration,
                   "run each size for this many seconds of wall time instead of -n")
        ->check(whole(1, 86'400));
    app.add_option("--warmup", o.warmup, "messages per QP and size run before the measurement")
        ->check(whole(0, 1'000'000))
        ->capture_default_str();
    app.add_option("-q,--qp,--qps", o.qps, "connected QP pairs")
        ->check(whole(1, 1024))
        ->capture_default_str();
    app.add_option("-t,--tx-depth,--outstanding", g.tx_depth,
                   "bandwidth tests: requests kept posted per QP (default 128)")
        ->check(whole(1, 4096));
    app.add_option("-I,--inline_size", g.inline_size,
                   "writes and sends up to this size go inline (NDK_OP_FLAG_INLINE); 0: none")
        ->check(whole(0, k_max_inline))
        ->capture_default_str();
    app.add_flag("--inline", g.inline_flag, "the same as -I 256");
    app.add_flag("-b,--bidirectional", o.bidirectional,
                 "bandwidth tests: side b runs the same flow towards side a");
    app.add_option("-p,--port", g.port,
                   "UDP/TCP port of the wire; 0: 4791 for server and client, a free one from "
                   "a per-process start for local and both")
        ->check(whole(0, 65535, " (0: the default)"))
        ->capture_default_str();
    app.add_option("-d,--ib-dev,--profile", o.profile,
                   "the simulated device: a NIC profile name or file (default cx4-edr)")
        ->type_name("NAME|FILE");

    // The older spellings and the simulator's own options.
    app.add_option("--test", g.test, "the operation, with --mode instead of TEST")
        ->type_name(listed(k_test_names, "|"))
        ->check(one_of(k_test_names));
    app.add_option("--mode", g.mode, "lat (ping-pong) or bw (-t requests kept posted)")
        ->type_name(listed(k_mode_names, "|"))
        ->check(one_of(k_mode_names));
    app.add_option("--sizes", g.sizes, "message sizes: FROM..TO (powers of two) or a list")
        ->type_name("FROM..TO|LIST")
        ->check(size_text(true));
    app.add_option("--ack-timeout-us", o.ack_timeout_us,
                   "transport timer of the connections [us of simulated time]; 0: the "
                   "adapter's default (16000)")
        ->check(whole(0, 60'000'000));
    app.add_option("--wire", g.wire,
                   "the adapters' link: inproc (this process, deterministic), udp or tcp")
        ->type_name(listed(k_wire_names, "|"))
        ->check(one_of(k_wire_names))
        ->capture_default_str();
    app.add_flag("--threaded", o.threaded,
                 "engine threads (the default for the socket wires) instead of one loop");
    app.add_option("--poll", g.poll,
                   "threaded runs: how this tool and the engine threads wait, or (consumer) this "
                   "tool's thread runs the engines while it polls (default: consumer for the "
                   "latency tests, spin with --time synchronized, spin-then-block for the "
                   "bandwidth tests)")
        ->type_name(listed(k_poll_names, "|"))
        ->check(one_of(k_poll_names));
    app.add_option("--time", g.time,
                   "threaded runs: how simulated time runs (docs/timing.md); synchronized gives "
                   "the NIC model's exact figures across threads and processes (default: "
                   "virtual, tied to the wall clock)")
        ->type_name(listed(k_time_names, "|"))
        ->check(one_of(k_time_names));
    app.add_option("--role", g.role,
                   "local (both sides here), server, client, or both (a server child process "
                   "and the client here); default: client with a HOST, server with a socket "
                   "wire and no HOST, otherwise local")
        ->type_name(listed(k_role_names, "|"))
        ->check(one_of(k_role_names));
    app.add_option("--local", o.local,
                   "this process's adapter address (default 127.0.0.2 for the server, "
                   "127.0.0.1 for the client)")
        ->type_name("ADDRESS");
    app.add_option("--peer", o.peer, "client: the server's address, as HOST (default 127.0.0.2)")
        ->type_name("ADDRESS");
    app.add_flag("--port-search", o.port_search, "server: take the next port while it is taken")
        ->group("");
    app.add_option("--ready-fd", o.ready_fd, "server: write the bound port here once listening")
        ->group("");
    app.add_option("--pcap", o.pcap, "record the first adapter's frames to this pcap file")
        ->type_name("FILE");
    app.add_option("--csv", o.csv, "write one row per size to this CSV file")->type_name("FILE");
    app.add_option("--out_json,--json", o.json, "write the configuration and results as JSON")
        ->type_name("FILE");
    app.add_option("--stats-json", o.stats_json,
                   "write both adapters' statistics (ndksim_adapter_stats_json) at the end; "
                   "-: print them")
        ->type_name("FILE|-");
    app.add_flag("--quiet", o.quiet, "no progress display (-q is perftest's QP count)");

    app.get_option("-s")->excludes("-a")->excludes("--sizes");
    app.get_option("-a")->excludes("--sizes");
    app.get_option("-n")->excludes("-D");
    app.get_option("-I")->excludes("--inline");
}

// The test from TEST, or from --test and --mode. TEST may instead be the host, when --test
// or --mode names the test.
std::string resolve_test(given& g, options& o) {
    const bool by_flags = !g.test.empty() || !g.mode.empty();
    if (!g.test_arg.empty()) {
        const test_entry* hit = nullptr;
        for (const test_entry& t : k_tests) {
            if (g.test_arg == t.name) {
                hit = &t;
            }
        }
        if (hit == nullptr && (!by_flags || !g.host.empty())) {
            return "'" + g.test_arg + "' is not a test: give " + test_list();
        }
        if (hit == nullptr) {
            g.host = g.test_arg;
        } else {
            if ((!g.test.empty() && g.test != name_of(hit->test)) ||
                (!g.mode.empty() && g.mode != name_of(hit->mode))) {
                const std::string flags = (g.test.empty() ? "" : " --test " + g.test) +
                                          (g.mode.empty() ? "" : " --mode " + g.mode);
                return std::string(hit->name) + " contradicts" + flags + ": give one of them";
            }
            o.test = hit->test;
            o.mode = hit->mode;
            return {};
        }
    }
    to_enum(k_test_names, g.test, o.test);
    to_enum(k_mode_names, g.mode, o.mode);
    return {};
}

// The defaults that depend on the test, the role, and the checks across options.
std::string resolve(const CLI::App& app, given& g, options& o) {
    if (std::string e = resolve_test(g, o); !e.empty()) {
        return e;
    }
    const bool bw = o.mode == run_mode::bw;
    if (!g.sizes.empty()) {
        o.sizes_text = g.sizes;
    } else if (g.all) {
        o.sizes_text = k_all_sizes;
    } else if (!g.size.empty()) {
        o.sizes_text = g.size;
    } else {
        o.sizes_text = std::to_string(bw ? k_bw_default_size : k_lat_default_size);
    }
    o.sizes = parse_sizes(o.sizes_text);
    o.iterations = app.count("-n") > 0 ? g.iterations
                                       : (bw ? k_bw_default_iterations : k_lat_default_iterations);
    o.outstanding =
        app.count("-t") > 0 ? g.tx_depth : (bw ? k_bw_default_tx_depth : k_lat_default_tx_depth);
    o.inline_size = g.inline_flag ? k_max_inline : g.inline_size;
    o.port = static_cast<std::uint16_t>(g.port);
    to_enum(k_wire_names, g.wire, o.wire);

    if (!g.host.empty()) {
        if (!o.peer.empty() && o.peer != g.host) {
            return "HOST " + g.host + " and --peer " + o.peer + " disagree: give one of them";
        }
        o.peer = g.host;
        if (g.role.empty()) {
            g.role = "client";
        }
        if (app.count("--wire") == 0) {
            o.wire = wire_kind::udp;
        }
    }
    // As perftest: no host makes a server, when the sides run in two processes (a socket
    // wire). In process, a run without a host has both sides here.
    if (g.role.empty()) {
        g.role = o.wire == wire_kind::inproc ? "local" : "server";
    }
    to_enum(k_role_names, g.role, o.who);
    if (!g.host.empty() && o.who != role::client) {
        return "HOST " + g.host + " makes this process the client, not --role " + g.role;
    }
    if (!g.time.empty()) {
        to_enum(k_time_names, g.time, o.time);
    }
    if (o.wire != wire_kind::inproc || o.time != time_kind::virtual_time) {
        o.threaded = true;
    }
    if (!g.poll.empty()) {
        to_enum(k_poll_names, g.poll, o.poll);
    } else {
        // A latency run measures the wake-ups too: a sleeping thread costs tens of
        // microseconds to wake, a polling one a few, and one that runs its engine itself
        // hands nothing over (docs/perf.md, "--poll"). Synchronized adapters share an engine
        // thread that only it runs.
        o.poll = bw                                  ? poll_kind::spin_then_block
                 : o.time == time_kind::synchronized ? poll_kind::spin
                                                     : poll_kind::consumer;
    }
    if (o.poll == poll_kind::consumer && o.time == time_kind::synchronized) {
        return "--poll consumer cannot be used with --time synchronized: the synchronized "
               "adapters of a process share one engine thread";
    }
    if (o.who != role::local && o.wire == wire_kind::inproc) {
        return std::string("--role ") + name_of(o.who) +
               " runs the sides in two processes, which needs --wire udp or --wire tcp";
    }
    if (o.bidirectional && !bw) {
        return "-b (bidirectional) applies to the bandwidth tests only: write_bw, read_bw, "
               "send_bw";
    }
    // The server replays its half of the workload from its own options, which cannot know
    // when a duration ends or what the client's reverse flow needs.
    if (o.who != role::local && (o.bidirectional || o.duration > 0)) {
        return std::string(o.bidirectional ? "-b" : "-D") +
               " needs both sides in this "
               "process (--role local), not --role " +
               name_of(o.who);
    }
    if (o.who == role::server || o.who == role::client) {
        if (o.port == 0) {
            o.port = k_default_port;
        }
    } else if (o.port == 0) {
        o.port = per_process_port();
        o.port_search = true;
    }
    for (const auto& [path, flag] : {std::pair{&o.csv, "--csv"},
                                     {&o.json, "--out_json"},
                                     {&o.stats_json, "--stats-json"},
                                     {&o.pcap, "--pcap"}}) {
        if (std::string e = check_writable(*path, flag); !e.empty()) {
            return e;
        }
    }
    return {};
}

}  // namespace

const char* name_of(test_kind t) noexcept {
    return k_test_names[static_cast<std::size_t>(t)];
}
const char* name_of(run_mode m) noexcept {
    return k_mode_names[static_cast<std::size_t>(m)];
}
const char* name_of(wire_kind w) noexcept {
    return k_wire_names[static_cast<std::size_t>(w)];
}
const char* name_of(role r) noexcept {
    return k_role_names[static_cast<std::size_t>(r)];
}
const char* name_of(time_kind t) noexcept {
    return k_time_names[static_cast<std::size_t>(t)];
}

const char* name_of(poll_kind p) noexcept {
    return k_poll_names[static_cast<std::size_t>(p)];
}

const char* test_name(test_kind t, run_mode m) noexcept {
    for (const test_entry& e : k_tests) {
        if (e.test == t && e.mode == m) {
            return e.name;
        }
    }
    return "?";
}

const char* test_title(test_kind t, run_mode m) noexcept {
    for (const test_entry& e : k_tests) {
        if (e.test == t && e.mode == m) {
            return e.title;
        }
    }
    return "?";
}

std::uint16_t per_process_port() noexcept {
    // Tests run in parallel: spreading the start over 20000 ports keeps concurrent runs apart,
    // and the search moves on from a taken one.
    return static_cast<std::uint16_t>(30000 + (static_cast<unsigned>(::getpid()) * 13U) % 20000U);
}

std::uint64_t parse_size(const std::string& text) {
    std::string t = text;
    std::uint64_t scale = 1;
    const char last =
        t.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
    if (last == 'K' || last == 'M' || last == 'G') {
        scale = last == 'K' ? 1ULL << 10 : last == 'M' ? 1ULL << 20 : 1ULL << 30;
        t.pop_back();
    }
    const bool digits =
        !t.empty() && t.size() <= 12 && t.find_first_not_of("0123456789") == std::string::npos;
    const std::uint64_t v = digits ? std::stoull(t) : 0;
    if (v == 0) {
        throw perf_error("'" + text + "' is not a size (e.g. 64, 4K, 8M)");
    }
    return v * scale;
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

parse_outcome parse_options(int argc, const char* const* argv, options& o) {
    CLI::App app{
        "ndksim-perf: perftest's latency and bandwidth tests (ib_write_lat, ib_write_bw, ...) "
        "between two simulated NICs.\n"
        "Two clocks: the t_* and BW columns are modelled (the NIC model's simulated time); the "
        "host columns are wall time, the simulator's own speed. Threaded runs (socket wires, "
        "--threaded) pace simulated time by the wall clock, so their modelled figures include "
        "host time.",
        "ndksim-perf"};
    app.footer(
        "Examples:\n"
        "  ndksim-perf write_lat -s 64 -n 1000      as ib_write_lat -s 64 -n 1000, both sides "
        "here\n"
        "  ndksim-perf write_bw -a                  as ib_write_bw -a: sizes 2 to 8 MiB\n"
        "  ndksim-perf send_bw --wire udp           a server over UDP (port 4791) ...\n"
        "  ndksim-perf send_bw 127.0.0.2            ... and its client\n"
        "  ndksim-perf read_lat -a --out_json r.json   results as JSON\n"
        "See docs/perf.md for the columns, the JSON and the two-process runs.");
    given g;
    define(app, o, g);
    parse_outcome r;
    std::ostringstream out;
    std::ostringstream err;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help exits with 0; every refusal with 1, as the run's own errors do.
        r.exit_code = app.exit(e, out, err) == 0 ? 0 : 1;
        r.out = out.str();
        r.err = err.str();
        return r;
    }
    if (std::string e = resolve(app, g, o); !e.empty()) {
        r.exit_code = 1;
        r.err = "ndksim-perf: " + e + "\n";
        return r;
    }
    r.run = true;
    return r;
}

}  // namespace ndksim::perf
