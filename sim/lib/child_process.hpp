// SPDX-License-Identifier: MIT
#pragma once
// This program re-executed as a child process, with a pipe on which the child reports that it
// is ready (and, if it likes, a few bytes such as the port it bound). The tools' "--role both"
// runs one side of a measurement or demo in such a child and the other side in the parent; the
// two-process tests adopt the children they fork to wait for them with the same bounds.
//
// The child is started with fork and execv("/proc/self/exe"): everything it needs (its
// arguments) is built before the fork, because between fork and exec only async-signal-safe
// calls are allowed in a process that may have threads (POSIX fork(2)). It dies with the parent
// (PR_SET_PDEATHSIG), so a parent killed by a test's timeout leaves no listener behind.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ndksim::tools {

class child_process {
  public:
    /// Builds the child's argument vector (argv[0] first) given the number of the descriptor
    /// the child writes its ready bytes to.
    using arguments_fn = std::function<std::vector<std::string>(int ready_fd)>;

    /// Forks and executes this program with the arguments `make_arguments` returns. The write
    /// end of the ready pipe is the only descriptor of this process the child inherits besides
    /// the standard ones. Throws std::system_error when the pipe or the fork fails.
    static child_process start_self(const arguments_fn& make_arguments);

    /// Takes over `pid`, a child this process forked itself without a ready pipe (one that
    /// runs code of this program rather than executing it): join() and kill() work on it.
    static child_process adopt(pid_t pid) noexcept { return child_process(pid, -1); }

    /// No child (join() returns at once).
    child_process() = default;
    child_process(child_process&& other) noexcept;
    child_process& operator=(child_process&& other) noexcept;
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;
    /// Kills and reaps a child that was not joined.
    ~child_process();

    /// The child's process id.
    pid_t pid() const noexcept { return pid_; }

    /// Reads exactly `size` bytes the child wrote on its ready pipe, waiting at most `timeout`.
    /// False on timeout, or when the child closed the pipe without writing them (it failed, and
    /// says why on its stderr). The pipe is closed afterwards either way.
    bool wait_ready(void* data, std::size_t size, std::chrono::milliseconds timeout);

    /// Sends SIGKILL to the child (no-op once joined).
    void kill() noexcept;

    /// Waits at most `timeout` for the child to exit, killing it after that, and reaps it.
    /// Returns how it ended as text to follow "the ... process": empty when it exited with 0,
    /// otherwise "exited with status N", "was killed by signal N" or "was still running N ms
    /// after ...: killed".
    std::string join(std::chrono::milliseconds timeout);

  private:
    child_process(pid_t pid, int ready_fd) noexcept : pid_(pid), ready_fd_(ready_fd) {}
    void close_ready() noexcept;

    pid_t pid_ = -1;
    int ready_fd_ = -1;
};

}  // namespace ndksim::tools
