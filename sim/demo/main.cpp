// SPDX-License-Identifier: MIT
// ndksim-loopback: two processes, one simulated RDMA NIC each, connected over the UDP or TCP
// wire on loopback addresses. One listens, the other connects; see README "Two-process loopback
// demo". --role both runs the listener as a child process (itself, re-executed) and the
// connector here, and succeeds only if both did.

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "child_process.hpp"
#include "connector_script.hpp"
#include "loopback/endpoint.hpp"
#include "loopback/report.hpp"
#include "loopback/service.hpp"

namespace lb = ndksim::loopback;

namespace {

struct cli_options {
    std::string role = "both";
    std::string local, peer;
    std::string wire = "udp";
    std::uint16_t port = 4791;
    std::uint16_t nd_port = 445;
    std::uint32_t size = 64 * 1024;
    unsigned iterations = 1;
    std::string pcap;
    std::string log;
    unsigned timeout_ms = 10000;
    // The simulated clock keeps up with the wall clock in threaded mode, so the adapter's
    // default ACK timeout (ndksim_adapter_config_init: 16 ms) measures the host: a sanitizer
    // build or a loaded host would see STATUS_IO_TIMEOUT without any frame lost.
    unsigned ack_timeout_us = 100000;
    bool bench = false;
    unsigned depth = 16;
    std::string poll = "block";
    std::string time = "virtual";
    unsigned peer_silence_ms = 0;
    int ready_fd = -1;
};

lb::endpoint_options endpoint_for(const cli_options& o, const std::string& name,
                                  const std::string& address, const std::string& pcap) {
    static const std::map<std::string, ndksim_wire> wires = {
        {"udp", NDKSIM_WIRE_UDP}, {"tcp", NDKSIM_WIRE_TCP}, {"inproc", NDKSIM_WIRE_INPROC}};
    lb::endpoint_options e;
    e.name = name;
    e.address = address;
    e.wire = wires.at(o.wire);
    e.port = o.port;
    e.pcap = pcap;
    e.data_size = std::max<std::uint64_t>(o.size, 4096);
    e.timeout = std::chrono::milliseconds(o.timeout_ms);
    e.ack_timeout_us = o.ack_timeout_us;
    static const std::map<std::string, ndksim_poll_policy> polls = {
        {"spin", NDKSIM_POLL_SPIN},
        {"block", NDKSIM_POLL_BLOCK},
        {"spin-then-block", NDKSIM_POLL_SPIN_THEN_BLOCK},
        {"consumer", NDKSIM_POLL_CONSUMER}};
    e.poll = polls.at(o.poll);
    e.time_mode = o.time == "synchronized" ? NDKSIM_TIME_SYNCHRONIZED : NDKSIM_TIME_VIRTUAL;
    e.peer_silence_ms = o.peer_silence_ms;
    return e;
}

int listen_role(const cli_options& o, const std::string& local) {
    lb::report out("listener");
    lb::endpoint ep(endpoint_for(o, "listener", local, o.pcap));
    if (NTSTATUS s = ep.open(); s != STATUS_SUCCESS) {
        out.check(false, "{} (wire {}, {}:{})", ep.error(), o.wire, local, o.port);
        return 1;
    }
    out.step("adapter {} up on the {} wire, port {}", local, o.wire, o.port);
    lb::listener_options lo;
    lo.nd_port = o.nd_port;
    // --timeout-ms bounds every wait, this one too: a connector process that was killed sends
    // no disconnect, and the listener would otherwise wait for its next request.
    lo.idle_timeout = std::chrono::milliseconds(o.timeout_ms);
    lo.on_listening = [&] {
        if (o.ready_fd >= 0) {
            const char ready = 'R';
            (void)!::write(o.ready_fd, &ready, 1);
            ::close(o.ready_fd);
        }
    };
    unsigned failed = lb::run_listener(ep, lo, out);
    out.step("{}", failed == 0 ? "all checks passed" : "CHECKS FAILED");
    return failed == 0 ? 0 : 1;
}

/// The connector's capture beside the listener's in one run (--role both): ".connector" goes
/// before the extension, so that a "*.pcap" glob finds both ("demo.pcap" ->
/// "demo.connector.pcap").
std::string connector_pcap(const std::string& path) {
    std::filesystem::path p(path);
    const std::filesystem::path extension = p.extension();
    p.replace_extension();
    p += ".connector";
    p += extension;
    return p.string();
}

int connect_role(const cli_options& o, const std::string& local, const std::string& peer) {
    lb::report out("connector");
    const std::string pcap = o.pcap.empty() || o.role != "both" ? o.pcap : connector_pcap(o.pcap);
    lb::endpoint ep(endpoint_for(o, "connector", local, pcap));
    if (NTSTATUS s = ep.open(); s != STATUS_SUCCESS) {
        out.check(false, "{} (wire {}, {}:{})", ep.error(), o.wire, local, o.port);
        return 1;
    }
    out.step("adapter {} up on the {} wire, port {}", local, o.wire, o.port);
    lb::connector_options co;
    co.peer = peer;
    co.nd_port = o.nd_port;
    co.size = o.size;
    co.iterations = o.iterations;
    co.bench = o.bench;
    co.depth = o.depth;
    unsigned failed = lb::run_connector(ep, co, out);
    out.step("{}", failed == 0 ? "all checks passed" : "CHECKS FAILED");
    return failed == 0 ? 0 : 1;
}

// Waits for the child's "listening" byte on `fd`, at most `timeout_ms`.
bool wait_ready(int fd, unsigned timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    char c = 0;
    return ::poll(&p, 1, static_cast<int>(timeout_ms)) == 1 && ::read(fd, &c, 1) == 1;
}

int both_roles(const cli_options& o, char** argv) {
    const std::string listen_at = o.local.empty() ? "127.0.0.1" : o.local;
    const std::string connect_from = o.peer.empty() ? "127.0.0.2" : o.peer;
    if (o.wire == "inproc") {
        // One process, two adapters on the in-process link: the same code, without sockets.
        int fds[2];
        if (::pipe(fds) != 0) {
            return 1;
        }
        cli_options lo = o;
        lo.ready_fd = fds[1];
        int listener_rc = 1;
        std::thread t([&] { listener_rc = listen_role(lo, listen_at); });
        int rc = wait_ready(fds[0], o.timeout_ms) ? connect_role(o, connect_from, listen_at) : 1;
        t.join();
        ::close(fds[0]);
        return rc == 0 && listener_rc == 0 ? 0 : 1;
    }
    // The listener: this program re-executed with --role listen.
    const auto listener_arguments = [&](int ready_fd) {
        std::vector<std::string> args = {argv[0],
                                         "--role",
                                         "listen",
                                         "--local",
                                         listen_at,
                                         "--wire",
                                         o.wire,
                                         "--port",
                                         std::to_string(o.port),
                                         "--size",
                                         std::to_string(o.size),
                                         "--timeout-ms",
                                         std::to_string(o.timeout_ms),
                                         "--ack-timeout-us",
                                         std::to_string(o.ack_timeout_us),
                                         "--ready-fd",
                                         std::to_string(ready_fd),
                                         "--nd-port",
                                         std::to_string(o.nd_port),
                                         "--poll",
                                         o.poll,
                                         "--time",
                                         o.time,
                                         "--peer-silence-ms",
                                         std::to_string(o.peer_silence_ms)};
        if (!o.pcap.empty()) {
            args.insert(args.end(), {"--pcap", o.pcap});
        }
        if (!o.log.empty()) {
            args.insert(args.end(), {"--log", o.log});
        }
        return args;
    };
    std::optional<ndksim::tools::child_process> child;
    try {
        child.emplace(ndksim::tools::child_process::start_self(listener_arguments));
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "[connector] FAILED: %s\n", e.what());
        return 1;
    }
    int rc = 1;
    char ready = 0;
    if (child->wait_ready(&ready, 1, std::chrono::milliseconds(o.timeout_ms))) {
        rc = connect_role(o, connect_from, listen_at);
    } else {
        std::fprintf(stderr,
                     "[connector] FAILED: the listener process did not start listening "
                     "within %u ms\n",
                     o.timeout_ms);
        child->kill();
    }
    // The listener's own --timeout-ms bounds each of its waits; twice that is a hang.
    const std::string how = child->join(2 * std::chrono::milliseconds(o.timeout_ms));
    const bool child_ok = how.empty();
    if (!child_ok) {
        std::fprintf(stderr, "[connector] FAILED: the listener process %s\n", how.c_str());
    }
    std::printf("%s\n", rc == 0 && child_ok ? "both processes passed every check" : "FAILED");
    return rc == 0 && child_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    cli_options o;
    CLI::App app{
        "ndksim-loopback: an NDK listener and connector in two processes, connected "
        "through the simulator's UDP or TCP wire"};
    app.add_option("--role", o.role, "listen, connect, or both (a listener child + connector)")
        ->check(CLI::IsMember({"listen", "connect", "both"}))
        ->capture_default_str();
    app.add_option("--local", o.local,
                   "this adapter's address (default 127.0.0.1 to listen, 127.0.0.2 to connect)");
    app.add_option("--peer", o.peer,
                   "the listener's address (connect; default 127.0.0.1); with --role both, the "
                   "connector's address");
    app.add_option("--wire", o.wire, "udp, tcp, or inproc (--role both only: one process)")
        ->check(CLI::IsMember({"udp", "tcp", "inproc"}))
        ->capture_default_str();
    app.add_option("--port", o.port, "UDP/TCP port of the wire (both sides use it)")
        ->capture_default_str();
    app.add_option("--nd-port", o.nd_port, "ND port the listener listens on")
        ->capture_default_str();
    app.add_option("--size", o.size, "bytes per operation")
        ->check(CLI::Range(1u, 64u << 20))
        ->capture_default_str();
    app.add_option("--iterations", o.iterations, "RDMA write+read rounds (bench: writes)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--pcap", o.pcap,
                   "record the frames to this pcap file (--role both: the connector's go to "
                   "FILE with .connector before the extension, e.g. demo.connector.pcap)");
    app.add_option("--log", o.log,
                   "log level (NDKSIM_LOG); a level below the build's NDKSIM_LOG_FLOOR warns "
                   "that its lines were compiled out")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
    app.add_option("--timeout-ms", o.timeout_ms, "bound on every wait")->capture_default_str();
    ndksim_adapter_config defaults;
    ndksim_adapter_config_init(&defaults);
    app.add_option("--ack-timeout-us", o.ack_timeout_us,
                   "ACK timeout of the reliable connection [us of simulated time]; 0: the "
                   "adapter's default (" +
                       std::to_string(defaults.ack_timeout_us) + ")")
        ->capture_default_str();
    app.add_flag("--bench", o.bench, "connect: only RDMA writes, print MB/s, ops/s, latency");
    app.add_option("--depth", o.depth, "bench: writes kept outstanding")
        ->check(CLI::Range(1u, 60u))
        ->capture_default_str();
    app.add_option("--poll", o.poll,
                   "how the engine threads and the waits for completions wait: spin (a core "
                   "each), block, spin-then-block (1 ms, then block), or consumer (the waiting "
                   "thread runs its adapter's engine: the lowest latency; docs/timing.md)")
        ->check(CLI::IsMember({"spin", "block", "spin-then-block", "consumer"}))
        ->capture_default_str();
    app.add_option("--time", o.time,
                   "how simulated time runs: virtual (tied to the wall clock; its modelled "
                   "latencies include host time) or synchronized (the NIC model's exact "
                   "latencies, the same on every run; docs/timing.md)")
        ->check(CLI::IsMember({"virtual", "synchronized"}))
        ->capture_default_str();
    app.add_option("--peer-silence-ms", o.peer_silence_ms,
                   "synchronized: wall time without word from the peer process after which it "
                   "is lost and the connection to it fails; 0: the adapter's default (5000)")
        ->capture_default_str();
    app.add_option("--ready-fd", o.ready_fd, "listen: write one byte to this fd once listening")
        ->group("");
    CLI11_PARSE(app, argc, argv);
    if (!o.log.empty()) {
        ::setenv("NDKSIM_LOG", o.log.c_str(), 1);
    }
    if (o.poll == "consumer" && o.time == "synchronized") {
        std::fprintf(stderr,
                     "--poll consumer cannot be used with --time synchronized: the synchronized "
                     "adapters of a process share one engine thread\n");
        return 2;
    }
    if (o.wire == "inproc" && o.role != "both") {
        std::fprintf(stderr, "--wire inproc needs --role both (both adapters in one process)\n");
        return 2;
    }
    if (o.role == "listen") {
        return listen_role(o, o.local.empty() ? "127.0.0.1" : o.local);
    }
    if (o.role == "connect") {
        return connect_role(o, o.local.empty() ? "127.0.0.2" : o.local,
                            o.peer.empty() ? "127.0.0.1" : o.peer);
    }
    return both_roles(o, argv);
}
