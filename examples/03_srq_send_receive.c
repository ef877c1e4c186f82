/* SPDX-License-Identifier: MIT */
/*
 * 03_srq_send_receive: a receiver whose QP takes its receives from a shared receive queue.
 *
 * The receiver posts 8 receives to an SRQ created with a notify threshold of 3. The sender
 * sends 6 messages of different sizes; each lands in the next SRQ receive, in order, and its
 * completion names the receive's RequestContext and the byte count. When fewer than 3 receives
 * remain, the SRQ notification fires (once: it is re-armed with NdkModifySrq), and the receiver
 * refills the queue. Public API only (C11), deterministic mode.
 *
 * Exits 0 when every check passed.
 */
#include "ndk_example.h"

enum { k_size = 64 * 1024, k_slot = 4096, k_receives = 8, k_messages = 6, k_threshold = 3 };

static int g_notifications;

static void on_srq_low(PVOID ctx, NTSTATUS status) {
    (void)ctx;
    CHECK(status == STATUS_SUCCESS, "SRQ notification status %s", ndksim_status_name(status));
    ++g_notifications;
}

/* Posts receive `i` of the receiver: slot i of its buffer, RequestContext = i + 1. */
static void post_receive(example_side* b, int i) {
    NDK_SGE sge = example_sge(b, (ULONG)(i % k_receives) * k_slot, k_slot);
    CHECK(b->srq->Dispatch->NdkSrqReceive(b->srq, (PVOID)(uintptr_t)(i + 1), &sge, 1) ==
              STATUS_SUCCESS,
          "SrqReceive %d", i);
}

int main(void) {
    example_side a, b;
    NDK_OBJECT_HEADER* o = NULL;
    NTSTATUS st = STATUS_PENDING;
    static const ULONG sizes[k_messages] = {1, 64, 1000, 4096, 17, 2048};

    example_open(&a, "sender", "10.3.0.1", k_size);
    example_open(&b, "receiver", "10.3.0.2", k_size);

    /* The receiver's SRQ (depth 16, one SGE per receive, notify below 3) and a QP that uses it
     * instead of a receive queue of its own. */
    CHECK(b.pd->Dispatch->NdkCreateSrq(b.pd, 16, 1, k_threshold, on_srq_low, NULL, NULL,
                                       example_on_create, &o, &b.srq) == STATUS_SUCCESS,
          "CreateSrq");
    CHECK(b.pd->Dispatch->NdkCreateQpWithSrq(b.pd, b.cq, b.cq, b.srq, &b, 64, 4, 128,
                                             example_on_create, &o, &b.qp) == STATUS_SUCCESS,
          "CreateQpWithSrq");
    for (int i = 0; i < k_receives; ++i) {
        post_receive(&b, i);
    }
    NDK_LISTENER* listener = example_connect(&a, "10.3.0.1", &b, "10.3.0.2");
    printf("receiver: QP connected, %d receives posted to its SRQ (notify below %d)\n", k_receives,
           k_threshold);

    for (int m = 0; m < k_messages; ++m) {
        const ULONG n = sizes[m];
        for (ULONG i = 0; i < n; ++i) {
            a.buffer[i] = (unsigned char)(m * 31 + i);
        }
        NDK_SGE sge = example_sge(&a, 0, n);
        CHECK(a.qp->Dispatch->NdkSend(a.qp, (PVOID)(uintptr_t)(100 + m), &sge, 1, 0) ==
                  STATUS_SUCCESS,
              "Send %d", m);
        const NDK_RESULT_EX sent = example_next(a.cq);
        CHECK(sent.Status == STATUS_SUCCESS && sent.Type == NdkOperationTypeSend, "send %d: %s", m,
              ndksim_status_name(sent.Status));
        const NDK_RESULT_EX got = example_next(b.cq);
        CHECK(got.Status == STATUS_SUCCESS && got.Type == NdkOperationTypeReceive, "receive %d: %s",
              m, ndksim_status_name(got.Status));
        /* SRQ receives are consumed in posting order. */
        CHECK(got.RequestContext == (PVOID)(uintptr_t)(m + 1), "message %d took receive %p", m,
              got.RequestContext);
        CHECK(got.BytesTransferred == n, "message %d: %lu bytes", m,
              (unsigned long)got.BytesTransferred);
        CHECK(memcmp(b.buffer + (ULONG)m * k_slot, a.buffer, n) == 0, "message %d data", m);
        printf("receiver: message %d, %4lu bytes, in SRQ receive %d, data verified\n", m,
               (unsigned long)n, m + 1);
    }
    /* 8 posted, 6 taken: 2 left, below the threshold of 3 - the notification fired once. */
    CHECK(g_notifications == 1, "SRQ notifications: %d, expected 1", g_notifications);
    printf("receiver: SRQ notification fired %d time(s) when fewer than %d receives remained\n",
           g_notifications, k_threshold);

    /* Refill, and re-arm the notification (it is one-shot) with NdkModifySrq. */
    for (int i = k_receives; i < k_receives + 6; ++i) {
        post_receive(&b, i);
    }
    CHECK(b.srq->Dispatch->NdkModifySrq(b.srq, 16, k_threshold, example_on_request, &st) ==
              STATUS_SUCCESS,
          "ModifySrq");
    printf("receiver: refilled to 8 receives and re-armed\n");

    example_close(&listener->Header);
    example_teardown(&a);
    example_teardown(&b);
    return example_finish("03_srq_send_receive");
}
