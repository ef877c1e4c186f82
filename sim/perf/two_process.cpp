// SPDX-License-Identifier: MIT
#include "two_process.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "report.hpp"

namespace ndksim::perf {
namespace {

// How long the child may take to start listening, and to exit once the client is done.
constexpr std::chrono::milliseconds k_start_timeout{20000};
constexpr std::chrono::milliseconds k_exit_timeout{30000};

std::vector<std::string> server_arguments(const options& o, int ready_fd,
                                          const std::string& stats) {
    std::vector<std::string> args = {"ndksim-perf",
                                     "--role",
                                     "server",
                                     "--wire",
                                     name_of(o.wire),
                                     "--test",
                                     name_of(o.test),
                                     "--mode",
                                     name_of(o.mode),
                                     "--sizes",
                                     o.sizes_text,
                                     "--iterations",
                                     std::to_string(o.iterations),
                                     "--qps",
                                     std::to_string(o.qps),
                                     "--outstanding",
                                     std::to_string(o.outstanding),
                                     "--local",
                                     k_server_address,
                                     "--port",
                                     std::to_string(o.port),
                                     "--port-search",
                                     "--poll",
                                     name_of(o.poll),
                                     "--time",
                                     name_of(o.time),
                                     "--ready-fd",
                                     std::to_string(ready_fd),
                                     "--quiet"};
    if (o.inline_size != 0) {
        args.insert(args.end(), {"--inline_size", std::to_string(o.inline_size)});
    }
    if (o.warmup != 0) {
        args.insert(args.end(), {"--warmup", std::to_string(o.warmup)});
    }
    if (o.ack_timeout_us != 0) {
        args.insert(args.end(), {"--ack-timeout-us", std::to_string(o.ack_timeout_us)});
    }
    if (!o.profile.empty()) {
        args.insert(args.end(), {"--profile", o.profile});
    }
    if (!stats.empty()) {
        args.insert(args.end(), {"--stats-json", stats});
    }
    return args;
}

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    return text.str();
}

// How many times a run starts over on the next port when the client's address and port turn
// out to be taken (the server only searched its own address).
constexpr int k_port_attempts = 16;

// Starts the server child with `o` (its port search starting at o.port) and waits until it
// listens. Returns the child and the port it bound, or no child after printing why the server
// did not start.
std::optional<std::pair<tools::child_process, std::uint16_t>> start_server(
    const options& o, const std::string& stats) {
    std::optional<tools::child_process> child;
    try {
        child.emplace(tools::child_process::start_self(
            [&](int ready_fd) { return server_arguments(o, ready_fd, stats); }));
    } catch (const std::system_error& e) {
        throw perf_error(e.what());
    }
    std::uint16_t port = 0;
    if (!child->wait_ready(&port, sizeof port, k_start_timeout)) {
        child->kill();
        const std::string how = child->join(k_exit_timeout);
        std::fprintf(stderr, "ndksim-perf: the server process did not start listening%s%s\n",
                     how.empty() ? "" : ": it ", how.c_str());
        return std::nullopt;
    }
    return std::pair{std::move(*child), port};
}

}  // namespace

int run_both(const options& o, const client_fn& client) {
    std::string server_stats;
    if (!o.stats_json.empty()) {
        server_stats = (o.stats_json == "-" ? std::string("/tmp/ndksim-perf") : o.stats_json) +
                       ".server." + std::to_string(::getpid());
    }
    options first = o;
    std::optional<tools::child_process> child;
    int rc = 1;
    std::string client_stats;
    for (int attempt = 1;; ++attempt) {
        auto started = start_server(first, server_stats);
        if (!started) {
            return 1;
        }
        const std::uint16_t port = started->second;
        child.emplace(std::move(started->first));
        options c = o;
        c.who = role::client;
        c.port = port;
        c.port_search = false;
        c.local = k_client_address;
        c.peer = k_server_address;
        try {
            rc = client(c, client_stats);
        } catch (const port_taken_error& e) {
            // The server found its address free on this port but the client's is held (by a
            // concurrent run whose sides bind in another order): both start over past it.
            child->kill();
            child->join(k_exit_timeout);
            if (attempt == k_port_attempts) {
                std::fprintf(stderr, "ndksim-perf: %s\n", e.what());
                if (!server_stats.empty()) {
                    std::remove(server_stats.c_str());
                }
                return 1;
            }
            first.port = static_cast<std::uint16_t>(port == 65535 ? 1024 : port + 1);
            continue;
        } catch (const perf_error& e) {
            std::fprintf(stderr, "ndksim-perf: %s\n", e.what());
            // The server waits for a disconnect that may never come.
            child->kill();
        }
        break;
    }
    const std::string how = child->join(k_exit_timeout);
    if (!how.empty()) {
        std::fprintf(stderr, "ndksim-perf: the server process %s\n", how.c_str());
    }
    if (rc == 0 && how.empty() && !server_stats.empty()) {
        const nlohmann::json server =
            nlohmann::json::parse(read_text(server_stats), nullptr, false);
        std::remove(server_stats.c_str());
        if (server.is_discarded() || !server.contains("adapters")) {
            std::fprintf(stderr, "ndksim-perf: the server's statistics file is not JSON\n");
            return 1;
        }
        write_stats_json(o.stats_json, {client_stats, server.at("adapters").at(0).dump()});
    } else if (!server_stats.empty()) {
        std::remove(server_stats.c_str());
    }
    return rc == 0 && how.empty() ? 0 : 1;
}

}  // namespace ndksim::perf
