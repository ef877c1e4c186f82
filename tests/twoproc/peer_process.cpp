// SPDX-License-Identifier: MIT
#include "peer_process.hpp"

#include <poll.h>
#include <unistd.h>

#include <cstdio>

#include "loopback/report.hpp"
#include "loopback/service.hpp"

namespace ndksim::twoproc {
namespace {

bool read_within(int fd, void* out, size_t size, std::chrono::milliseconds timeout) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 &&
           ::read(fd, out, size) == static_cast<ssize_t>(size);
}

// A forked peer under a sanitizer on a loaded host takes seconds to open its adapter and listen.
constexpr std::chrono::milliseconds k_start_timeout{30000};

}  // namespace

peer_process::peer_process(ndksim_wire wire, std::uint64_t data_size)
    : wire_(wire), data_size_(data_size) {}

peer_process::~peer_process() {
    if (!joined_) {
        join(std::chrono::milliseconds(20000));
    }
}

bool peer_process::run_peer(std::uint16_t port, int ready_fd) {
    loopback::report out("peer", stderr);
    loopback::endpoint_options o;
    o.name = "peer";
    o.address = k_peer;
    o.wire = wire_;
    o.port = port;
    o.data_size = data_size_;
    o.ack_timeout_us = k_patient_ack_timeout_us;
    o.timeout = k_patient_wait;
    loopback::endpoint ep(o);
    const NTSTATUS opened = ep.open();
    if (opened == STATUS_ADDRESS_ALREADY_EXISTS) {
        // Another process holds the peer's address on this port: the test picks another.
        const char busy = k_busy;
        (void)!::write(ready_fd, &busy, 1);
        return false;
    }
    if (opened != STATUS_SUCCESS) {
        out.check(false, "{}", ep.error());
        thread_result_ = 1;
        ::close(ready_fd);
        return true;
    }
    loopback::listener_options lo;
    lo.on_listening = [&] {
        const char ready = 'R';
        (void)!::write(ready_fd, &ready, 1);
    };
    lo.idle_timeout = std::chrono::milliseconds(30000);
    lo.abandoned = &abandoned_;
    thread_result_ = loopback::run_listener(ep, lo, out) == 0 ? 0 : 1;
    ::close(ready_fd);
    return true;
}

std::string peer_process::start(loopback::endpoint_options self_options,
                                std::unique_ptr<loopback::endpoint>* self) {
    int port_pipe[2], ready_pipe[2];
    if (::pipe(port_pipe) != 0 || ::pipe(ready_pipe) != 0) {
        return "pipe failed";
    }
    if (forked()) {
        // Fork before any adapter exists: the child must not inherit engine threads or sockets.
        std::fflush(nullptr);
        const pid_t child = ::fork();
        if (child < 0) {
            return "fork failed";
        }
        if (child == 0) {
            ::close(port_pipe[1]);
            ::close(ready_pipe[0]);
            // One port after another, until one is free on the peer's address too.
            for (;;) {
                std::uint16_t port = 0;
                if (!read_within(port_pipe[0], &port, sizeof port, k_start_timeout)) {
                    std::_Exit(3);
                }
                if (run_peer(port, ready_pipe[1])) {
                    std::_Exit(thread_result_);
                }
            }
        }
        child_ = tools::child_process::adopt(child);
        ::close(port_pipe[0]);
        ::close(ready_pipe[1]);
    }
    auto fail = [&](const std::string& why) {
        if (forked()) {
            ::close(port_pipe[1]);  // the child sees end-of-file and exits
            ::close(ready_pipe[0]);
        } else {
            ::close(port_pipe[0]), ::close(port_pipe[1]);
            ::close(ready_pipe[0]), ::close(ready_pipe[1]);
        }
        joined_ = !forked();
        return why;
    };
    std::uint16_t port = static_cast<std::uint16_t>(20000 + (::getpid() * 7) % 30000);
    for (int attempt = 0; attempt < 64; ++attempt, ++port) {
        self_options.port = port;
        *self = std::make_unique<loopback::endpoint>(self_options);
        const NTSTATUS s = (*self)->open();
        if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
            (*self)->close();
            continue;
        }
        if (s != STATUS_SUCCESS) {
            const std::string why = (*self)->error();
            (*self)->close();
            return fail(why);
        }
        if (!forked()) {
            // The in-process wire binds no socket: the peer's address is this process's.
            ::close(port_pipe[0]), ::close(port_pipe[1]);
            thread_ = std::thread([this, port, fd = ready_pipe[1]] { run_peer(port, fd); });
            char ready = 0;
            const bool ok = read_within(ready_pipe[0], &ready, 1, k_start_timeout);
            ::close(ready_pipe[0]);
            return ok ? "" : "the peer did not start listening within 30 s";
        }
        (void)!::write(port_pipe[1], &port, sizeof port);
        char ready = 0;
        if (!read_within(ready_pipe[0], &ready, 1, k_start_timeout)) {
            ::close(port_pipe[1]);
            ::close(ready_pipe[0]);
            return "the peer did not start listening within 30 s";
        }
        if (ready != k_busy) {
            ::close(port_pipe[1]);
            ::close(ready_pipe[0]);
            return "";
        }
        // The port is free on this side's address but taken on the peer's: both move on.
        (*self)->close();
    }
    return fail("no port free on both addresses after 64 attempts");
}

bool peer_process::join(std::chrono::milliseconds timeout) {
    if (joined_) {
        return thread_result_ == 0;
    }
    joined_ = true;
    if (!forked()) {
        if (thread_.joinable()) {
            thread_.join();  // every wait of the peer is bounded, so this is too
        }
        return thread_result_ == 0;
    }
    if (child_.pid() <= 0) {
        return false;
    }
    const std::string how = child_.join(timeout);
    if (!how.empty()) {
        std::fprintf(stderr, "peer process %s\n", how.c_str());
    }
    return how.empty();
}

void peer_process::kill_now() {
    if (!forked()) {
        abandoned_ = true;
        join(std::chrono::milliseconds(20000));
        return;
    }
    if (child_.pid() > 0) {
        child_.kill();
        child_.join(std::chrono::milliseconds(0));
        joined_ = true;
    }
}

}  // namespace ndksim::twoproc
