// SPDX-License-Identifier: MIT
#pragma once
// One side of a threaded adapter pair: an adapter with a PD, a CQ drained from its notification
// callback (which re-arms it), a QP, a registered buffer, and what its callbacks recorded.

#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/board.hpp"

namespace ndksim::threaded {

struct pair_side {
    board* b = nullptr;
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* adapter = nullptr;
    NDK_PD* pd = nullptr;
    NDK_CQ* cq = nullptr;
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    std::vector<NDK_MW*> windows;  ///< a test's memory windows, closed at teardown
    testkit::buffer buf;
    std::vector<NDK_RESULT_EX> results;  ///< every completion of `cq`, in order (under b->m)
    int disconnect_events = 0;           ///< under b->m

    /// NDK_FN_CQ_NOTIFICATION_CALLBACK (`c` is the side): takes every completion, re-arms.
    static void on_cq(PVOID c, NTSTATUS s);
    /// NDK_FN_DISCONNECT_EVENT_CALLBACK (`c` is the side).
    static void on_disconnect(PVOID c);
};

}  // namespace ndksim::threaded
