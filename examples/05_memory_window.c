/* SPDX-License-Identifier: MIT */
/*
 * 05_memory_window: giving a peer access to part of a region, for a while.
 *
 * Instead of the token of its whole registered region, the target hands out a memory window:
 * it binds a window over 16 KiB of the region with NdkBind (a work request on its QP) and gives
 * the window's token to the initiator. Writes and reads inside
 * the window succeed; the target then rebinds the window elsewhere (the old token dies, a new
 * one is issued), and finally invalidates it: the initiator's next write with the token it
 * holds completes with STATUS_ACCESS_VIOLATION and places nothing. Public API only (C11),
 * deterministic mode.
 *
 * Exits 0 when every check passed.
 */
#include "ndk_example.h"

enum { k_size = 256 * 1024, k_window = 16 * 1024 };

/* Binds `mw` over [offset, offset + k_window) of the target's buffer; returns its token. */
static UINT32 bind_window(example_side* b, NDK_MW* mw, ULONG offset) {
    CHECK(b->qp->Dispatch->NdkBind(
              b->qp, mw, b->mr, mw, b->buffer + offset, k_window,
              NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == STATUS_SUCCESS,
          "Bind");
    const NDK_RESULT_EX r = example_next(b->cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeBind, "bind: %s",
          ndksim_status_name(r.Status));
    return mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
}

/* The initiator writes `length` bytes of its buffer to (address, token); returns the status. */
static NTSTATUS write_to(example_side* a, UINT64 address, UINT32 token, ULONG length) {
    NDK_SGE sge = example_sge(a, 0, length);
    CHECK(a->qp->Dispatch->NdkWrite(a->qp, NULL, &sge, 1, address, token, 0) == STATUS_SUCCESS,
          "Write");
    return example_next(a->cq).Status;
}

int main(void) {
    example_side a, b;
    NDK_OBJECT_HEADER* o = NULL;
    NDK_MW* mw = NULL;

    example_open(&a, "initiator", "10.5.0.1", k_size);
    example_open(&b, "target", "10.5.0.2", k_size);
    NDK_LISTENER* listener = example_connect(&a, "10.5.0.1", &b, "10.5.0.2");
    for (ULONG i = 0; i < k_window; ++i) {
        a.buffer[i] = (unsigned char)(i * 3 + 1);
    }

    /* A window over [64 KiB, 80 KiB) of the target's region. */
    b.pd->Dispatch->NdkCreateMw(b.pd, example_on_create, &o, &mw);
    const UINT32 first = bind_window(&b, mw, 65536);
    const UINT64 window = (UINT64)(uintptr_t)(b.buffer + 65536);
    printf("target: window bound over [64 KiB, 80 KiB) of its region, token %#x\n",
           (unsigned)first);

    NTSTATUS s = write_to(&a, window, first, k_window);
    CHECK(s == STATUS_SUCCESS, "write into the window: %s", ndksim_status_name(s));
    CHECK(memcmp(b.buffer + 65536, a.buffer, k_window) == 0, "write: data differs");
    NDK_SGE sink = example_sge(&a, 2 * k_window, 4096);
    CHECK(a.qp->Dispatch->NdkRead(a.qp, NULL, &sink, 1, window + 4096, first, 0) == STATUS_SUCCESS,
          "Read");
    s = example_next(a.cq).Status;
    CHECK(s == STATUS_SUCCESS, "read from the window: %s", ndksim_status_name(s));
    CHECK(memcmp(a.buffer + 2 * k_window, b.buffer + 65536 + 4096, 4096) == 0,
          "read: data differs");
    printf("initiator: wrote %d bytes into the window and read 4096 back, data verified\n",
           k_window);

    /* Moving the window: invalidate it, then bind it again, which issues a new token; the old
     * one is dead. A bind on a window that is still bound is a consumer error (IBA 10.6.7.2.3:
     * a type 2 window is bound only from the free state), so the invalidate comes first. */
    CHECK(b.qp->Dispatch->NdkInvalidate(b.qp, NULL, &mw->Header, 0) == STATUS_SUCCESS,
          "Invalidate");
    s = example_next(b.cq).Status;
    CHECK(s == STATUS_SUCCESS, "invalidate before the rebind: %s", ndksim_status_name(s));
    const UINT32 second = bind_window(&b, mw, 131072);
    CHECK(second != first, "a rebind must issue a new token");
    printf("target: window rebound over [128 KiB, 144 KiB), new token %#x\n", (unsigned)second);
    s = write_to(&a, (UINT64)(uintptr_t)(b.buffer + 131072), second, 4096);
    CHECK(s == STATUS_SUCCESS, "write with the new token: %s", ndksim_status_name(s));
    CHECK(memcmp(b.buffer + 131072, a.buffer, 4096) == 0, "write: data differs");

    /* Invalidate: the peer's token stops working, and the refused write places nothing. An
     * access violation ends the connection, as on any RC transport, so it comes last. */
    CHECK(b.qp->Dispatch->NdkInvalidate(b.qp, NULL, &mw->Header, 0) == STATUS_SUCCESS,
          "Invalidate");
    s = example_next(b.cq).Status;
    CHECK(s == STATUS_SUCCESS, "invalidate: %s", ndksim_status_name(s));
    memset(b.buffer + 131072, 0xEE, 4096);
    s = write_to(&a, (UINT64)(uintptr_t)(b.buffer + 131072), second, 4096);
    CHECK(s == STATUS_ACCESS_VIOLATION,
          "write after invalidate: %s, expected "
          "STATUS_ACCESS_VIOLATION",
          ndksim_status_name(s));
    CHECK(b.buffer[131072] == 0xEE && b.buffer[131072 + 4095] == 0xEE,
          "a refused write changed the target's memory");
    printf(
        "target: window invalidated; the initiator's write completed with %s and placed "
        "nothing\n",
        ndksim_status_name(s));

    example_close(&listener->Header);
    example_close(&mw->Header);
    example_teardown(&a);
    example_teardown(&b);
    return example_finish("05_memory_window");
}
