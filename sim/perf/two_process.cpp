#include "two_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace ndksim::perf {
namespace {

// How long the child may take to start listening, and to exit once the client is done.
constexpr int k_start_timeout_ms = 20000;
constexpr int k_exit_timeout_ms = 30000;

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

// Reads the child's 2-byte port, or gives up after the timeout or when the child closes the
// pipe without writing (it failed and says why on stderr).
bool read_port(int fd, std::uint16_t& port) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, k_start_timeout_ms) == 1 && ::read(fd, &port, sizeof port) == sizeof port;
}

// Waits for the child to exit, at most k_exit_timeout_ms, then kills it. Returns its status
// as text, empty when it exited with 0.
std::string join(pid_t child) {
    // A pidfd makes "the child exited" pollable with a timeout.
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
    bool exited = true;
    if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        exited = ::poll(&p, 1, k_exit_timeout_ms) == 1;
        ::close(pidfd);
    }
    if (!exited) {
        ::kill(child, SIGKILL);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!exited) {
        return "still running " + std::to_string(k_exit_timeout_ms / 1000) +
               " s after the client finished: killed";
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status) == 0
                   ? ""
                   : "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "was killed by signal " + std::to_string(WTERMSIG(status));
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

// Forks and executes the server with `o` (its port search starting at o.port) and waits until
// it listens. Returns the child's pid and the port it bound, or a pid of -1 after printing why
// the server did not start.
std::pair<pid_t, std::uint16_t> start_server(const options& o, const std::string& stats) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        throw perf_error(std::string("pipe: ") + std::strerror(errno));
    }
    // Everything the child needs is built before the fork: between fork and exec only
    // async-signal-safe calls are allowed in a process that may have threads.
    std::vector<std::string> args = server_arguments(o, fds[1], stats);
    std::vector<char*> argv;
    for (std::string& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw perf_error(std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        // The server must not outlive a client that was killed (e.g. by a test's timeout).
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) {
            ::_exit(126);
        }
        ::fcntl(fds[1], F_SETFD, 0);  // the ready pipe survives the exec; the rest does not
        ::execv("/proc/self/exe", argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    std::uint16_t port = 0;
    const bool ready = read_port(fds[0], port);
    ::close(fds[0]);
    if (!ready) {
        ::kill(child, SIGKILL);
        const std::string how = join(child);
        std::fprintf(stderr, "ndksim-perf: the server process did not start listening%s%s\n",
                     how.empty() ? "" : ": it ", how.c_str());
        return {-1, 0};
    }
    return {child, port};
}

}  // namespace

int run_both(const options& o, const client_fn& client) {
    std::string server_stats;
    if (!o.stats_json.empty()) {
        server_stats = (o.stats_json == "-" ? std::string("/tmp/ndksim-perf") : o.stats_json) +
                       ".server." + std::to_string(::getpid());
    }
    options first = o;
    pid_t child = -1;
    int rc = 1;
    std::string client_stats;
    for (int attempt = 1;; ++attempt) {
        const auto [pid, port] = start_server(first, server_stats);
        if (pid < 0) {
            return 1;
        }
        child = pid;
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
            ::kill(child, SIGKILL);
            join(child);
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
            ::kill(child, SIGKILL);
        }
        break;
    }
    const std::string how = join(child);
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
