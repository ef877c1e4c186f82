// SPDX-License-Identifier: MIT
#include "peer_watch.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>

#include <csignal>

namespace ndksim::bench {
namespace {

pid_t g_child = 0;
bool g_collected = false;
int g_status = 0;

}  // namespace

void watch_peer(pid_t child) noexcept {
    g_child = child;
}

void die_with_parent() noexcept {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
}

bool peer_failed() noexcept {
    if (g_child <= 0) {
        return false;
    }
    if (!g_collected) {
        int status = 0;
        if (::waitpid(g_child, &status, WNOHANG) != g_child) {
            return false;  // still running
        }
        g_collected = true;
        g_status = status;
    }
    return !WIFEXITED(g_status) || WEXITSTATUS(g_status) != 0;
}

int peer_exit_status() noexcept {
    if (g_child <= 0) {
        return -1;
    }
    if (!g_collected) {
        int status = 0;
        if (::waitpid(g_child, &status, 0) != g_child) {
            return -1;
        }
        g_collected = true;
        g_status = status;
    }
    return g_status;
}

}  // namespace ndksim::bench
