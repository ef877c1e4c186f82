/* SPDX-License-Identifier: MIT */
/*
 * 02_rdma_write_read: two simulated NICs in one process, connected the NDK way (listener,
 * connector, private data), then an RDMA write, an RDMA read, a send/receive, and a write that
 * the peer must refuse - every byte checked. Public API only (C11), deterministic mode.
 *
 * The plumbing (adapters, PDs, CQs, registered buffers, teardown) comes from ndk_example.h; the
 * connection is spelled out here, because this example is where it is shown with private data
 * (example_connect in the header does the same steps without any).
 *
 * Exits 0 when every check passed.
 */
#include "ndk_example.h"

enum { k_size = 64 * 1024 };

int main(void) {
    example_side a, b;
    NDK_LISTENER* listener = NULL;
    NDK_OBJECT_HEADER* o = NULL;
    NDK_CONNECTOR* incoming = NULL;
    NTSTATUS listened = STATUS_PENDING, connected = STATUS_PENDING, accepted = STATUS_PENDING,
             completed = STATUS_PENDING;
    char hello[] = "hello, b", reply[] = "welcome, a", got[64];
    ULONG got_size = sizeof got;
    SOCKADDR_IN at = example_address("10.1.0.2", 445), from = example_address("10.1.0.1", 0);

    /* Each side: an adapter, a PD, a CQ, a QP on it, and a 64 KiB buffer registered as an MR
     * (an MDL over host memory the NIC may touch). */
    example_open(&a, "nic-a", "10.1.0.1", k_size);
    example_open(&b, "nic-b", "10.1.0.2", k_size);
    example_make_qp(&a);
    example_make_qp(&b);

    /* b listens on ND port 445; a connects with private data; b accepts with its own. */
    b.adapter->Dispatch->NdkCreateListener(b.adapter, example_on_connect, &incoming,
                                           example_on_create, &o, &listener);
    listener->Dispatch->NdkListen(listener, (PSOCKADDR)&at, sizeof at, example_on_request,
                                  &listened);
    a.adapter->Dispatch->NdkCreateConnector(a.adapter, example_on_create, &o, &a.connector);
    a.connector->Dispatch->NdkConnect(a.connector, a.qp, (PSOCKADDR)&from, sizeof from,
                                      (PSOCKADDR)&at, sizeof at, 4, 4, hello, sizeof hello,
                                      example_on_request, &connected);
    while (incoming == NULL && ndksim_loop_run_one(g_loop)) {
    }
    b.connector = incoming;
    CHECK(b.connector != NULL, "no connect event on b");
    if (b.connector == NULL) {
        return example_finish("02_rdma_write_read");
    }
    b.connector->Dispatch->NdkGetConnectionData(b.connector, NULL, NULL, got, &got_size);
    printf("b: connection request with private data \"%s\"\n", got);
    b.connector->Dispatch->NdkAccept(b.connector, b.qp, 4, 4, reply, sizeof reply, NULL, NULL,
                                     example_on_request, &accepted);
    CHECK(example_wait(&connected) == STATUS_SUCCESS, "Connect: %s", ndksim_status_name(connected));
    got_size = sizeof got;
    a.connector->Dispatch->NdkGetConnectionData(a.connector, NULL, NULL, got, &got_size);
    printf("a: connected, reply private data \"%s\"\n", got);
    a.connector->Dispatch->NdkCompleteConnect(a.connector, NULL, NULL, example_on_request,
                                              &completed);
    CHECK(example_wait(&completed) == STATUS_SUCCESS, "CompleteConnect");
    CHECK(example_wait(&accepted) == STATUS_SUCCESS, "Accept");

    /* RDMA write: 64 KiB from a into b's buffer (16 packets at MTU 4096). */
    for (int i = 0; i < k_size; ++i) {
        a.buffer[i] = (unsigned char)(i * 7 + 3);
    }
    NDK_SGE s1 = example_sge(&a, 0, k_size);
    UINT32 b_remote = b.mr->Dispatch->NdkGetRemoteTokenFromMr(b.mr);
    ULONG64 t0 = ndksim_loop_now(g_loop);
    a.qp->Dispatch->NdkWrite(a.qp, NULL, &s1, 1, (UINT64)(uintptr_t)b.buffer, b_remote, 0);
    NDK_RESULT_EX r = example_next(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeWrite, "write: %s",
          ndksim_status_name(r.Status));
    CHECK(memcmp(a.buffer, b.buffer, k_size) == 0, "write: data differs");
    printf("a: RDMA write of %d bytes done in %.2f us of simulated time, data verified\n", k_size,
           (double)(ndksim_loop_now(g_loop) - t0) / 1e6);

    /* RDMA read: the first 4 KiB of b back into a's second half. */
    NDK_SGE s2 = example_sge(&a, k_size / 2, 4096);
    a.qp->Dispatch->NdkRead(a.qp, NULL, &s2, 1, (UINT64)(uintptr_t)b.buffer, b_remote, 0);
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeRead, "read: %s",
          ndksim_status_name(r.Status));
    CHECK(memcmp(a.buffer + k_size / 2, b.buffer, 4096) == 0, "read: data differs");
    printf("a: RDMA read of 4096 bytes, data verified\n");

    /* Send/receive. */
    NDK_SGE rs = example_sge(&b, 0, 256);
    b.qp->Dispatch->NdkReceive(b.qp, NULL, &rs, 1);
    memcpy(a.buffer, "a message through a posted receive", 35);
    NDK_SGE ss = example_sge(&a, 0, 35);
    a.qp->Dispatch->NdkSend(a.qp, NULL, &ss, 1, 0);
    r = example_next(b.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.BytesTransferred == 35, "receive");
    printf("b: received %u bytes: \"%s\"\n", r.BytesTransferred, b.buffer);
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeSend, "send");

    /* A write with a token b never issued: refused by b's memory unit, nothing placed. */
    memset(b.buffer, 0xEE, 4096);
    a.qp->Dispatch->NdkWrite(a.qp, NULL, &s1, 1, (UINT64)(uintptr_t)b.buffer, b_remote ^ 0x700, 0);
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_ACCESS_VIOLATION, "forged token: %s", ndksim_status_name(r.Status));
    CHECK(b.buffer[0] == 0xEE && b.buffer[4095] == 0xEE, "forged token: memory was touched");
    printf("a: write with a forged token refused: %s, b's memory untouched\n",
           ndksim_status_name(r.Status));

    example_close(&listener->Header);
    example_teardown(&a);
    example_teardown(&b);
    return example_finish("02_rdma_write_read");
}
