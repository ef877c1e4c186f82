// SPDX-License-Identifier: MIT
#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

namespace ndksim::tools {

child_process child_process::start_self(const arguments_fn& make_arguments) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        throw std::system_error(errno, std::generic_category(), "pipe");
    }
    std::vector<std::string> args = make_arguments(fds[1]);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    std::fflush(nullptr);  // what stdio holds is not written twice, by the child too
    const pid_t child = ::fork();
    if (child < 0) {
        const int error = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        throw std::system_error(error, std::generic_category(), "fork");
    }
    if (child == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) {  // the parent died before the line above took effect
            ::_exit(126);
        }
        ::fcntl(fds[1], F_SETFD, 0);  // the ready pipe survives the exec; the rest does not
        ::execv("/proc/self/exe", argv.data());
        static constexpr char k_failed[] = "execv /proc/self/exe failed\n";
        (void)!::write(STDERR_FILENO, k_failed, sizeof k_failed - 1);
        ::_exit(127);
    }
    ::close(fds[1]);
    return child_process(child, fds[0]);
}

child_process::child_process(child_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), ready_fd_(std::exchange(other.ready_fd_, -1)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
    if (this != &other) {
        kill();
        join(std::chrono::milliseconds(0));
        pid_ = std::exchange(other.pid_, -1);
        ready_fd_ = std::exchange(other.ready_fd_, -1);
    }
    return *this;
}

child_process::~child_process() {
    if (pid_ > 0) {
        kill();
        join(std::chrono::milliseconds(0));
    }
    close_ready();
}

void child_process::close_ready() noexcept {
    if (ready_fd_ >= 0) {
        ::close(ready_fd_);
        ready_fd_ = -1;
    }
}

bool child_process::wait_ready(void* data, std::size_t size, std::chrono::milliseconds timeout) {
    pollfd p{ready_fd_, POLLIN, 0};
    const bool ready = ready_fd_ >= 0 && ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 &&
                       ::read(ready_fd_, data, size) == static_cast<ssize_t>(size);
    close_ready();
    return ready;
}

void child_process::kill() noexcept {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
    }
}

std::string child_process::join(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) {
        return "";
    }
    // A pidfd makes "the child exited" pollable with a timeout (pidfd_open(2)).
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    bool exited = true;
    if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        exited = ::poll(&p, 1, static_cast<int>(timeout.count())) == 1;
        ::close(pidfd);
    }
    if (!exited) {
        kill();
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (!exited) {
        return "was still running " + std::to_string(timeout.count()) +
               " ms after the other side finished: killed";
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status) == 0
                   ? ""
                   : "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "was killed by signal " + std::to_string(WTERMSIG(status));
}

}  // namespace ndksim::tools
