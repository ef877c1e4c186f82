// SPDX-License-Identifier: MIT
#pragma once
// One completion of a request that may pend (a create, a request or a close), recorded by its
// static callbacks under the board's mutex; the board's waiters are woken.

#include <ndkpi.h>

#include "threaded_pair/board.hpp"

namespace ndksim::threaded {

struct completion_slot {
    board* b = nullptr;
    int calls = 0;                        ///< under b->m; exactly one per pended request
    NTSTATUS status = STATUS_PENDING;     ///< under b->m
    NDK_OBJECT_HEADER* object = nullptr;  ///< a create's object (under b->m)

    /// NDK_FN_REQUEST_COMPLETION: `c` is the slot.
    static void on_request(PVOID c, NTSTATUS s);
    /// NDK_FN_CREATE_COMPLETION: `c` is the slot.
    static void on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o);
    /// NDK_FN_CLOSE_COMPLETION: recorded as a request that completed with STATUS_SUCCESS.
    static void on_close(PVOID c) { on_request(c, STATUS_SUCCESS); }
};

}  // namespace ndksim::threaded
