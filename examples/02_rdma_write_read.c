/*
 * 02_rdma_write_read: two simulated NICs in one process, connected the NDK way (listener,
 * connector, private data), then an RDMA write, an RDMA read, a send/receive, and a write that
 * the peer must refuse - every byte checked. Public API only (C11), deterministic mode.
 *
 * Exits 0 when every check passed.
 */
#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures;

#define CHECK(cond, ...)                             \
    do {                                             \
        if (!(cond)) {                               \
            fprintf(stderr, "FAILED: " __VA_ARGS__); \
            fprintf(stderr, "\n");                   \
            ++g_failures;                            \
        }                                            \
    } while (0)

typedef struct side {
    const char* name;
    ndksim_adapter* nic;
    NDK_ADAPTER* adapter;
    NDK_PD* pd;
    NDK_CQ* cq;
    NDK_QP* qp;
    NDK_MR* mr;
    MDL* mdl;
    unsigned char* buffer;
    NDK_CONNECTOR* connector;
} side;

enum { k_size = 64 * 1024 };

static ndksim_loop* g_loop;

static void on_create(PVOID ctx, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    (void)s;
    *(NDK_OBJECT_HEADER**)ctx = o;
}
static void on_request(PVOID ctx, NTSTATUS s) {
    *(NTSTATUS*)ctx = s;
}
static void on_close(PVOID ctx) {
    ++*(int*)ctx;
}
static void on_cq(PVOID ctx, NTSTATUS s) {
    (void)ctx, (void)s;
}
static void on_connect(PVOID ctx, NDK_CONNECTOR* c) {
    *(NDK_CONNECTOR**)ctx = c;
}

/* Runs the simulation until *status leaves STATUS_PENDING (or nothing is left to run). */
static NTSTATUS wait_status(volatile NTSTATUS* status) {
    while (*status == STATUS_PENDING && ndksim_loop_run_one(g_loop)) {
    }
    return *status;
}

/* The next completion of `cq`. */
static NDK_RESULT_EX next_completion(NDK_CQ* cq) {
    NDK_RESULT_EX r;
    memset(&r, 0, sizeof r);
    while (cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) == 0 && ndksim_loop_run_one(g_loop)) {
    }
    return r;
}

static SOCKADDR_IN address(unsigned char last, USHORT port) {
    SOCKADDR_IN a;
    memset(&a, 0, sizeof a);
    a.sin_family = WS_AF_INET;
    a.sin_port = (USHORT)((port >> 8) | (port << 8));
    unsigned char* b = (unsigned char*)&a.sin_addr;
    b[0] = 10, b[1] = 1, b[2] = 0, b[3] = last;
    return a;
}

static void open_side(side* s, const char* ip) {
    ndksim_adapter_config c;
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p;
    NDK_OBJECT_HEADER* o = NULL;
    NTSTATUS st = STATUS_PENDING;
    ndksim_adapter_config_init(&c);
    c.loop = g_loop;
    c.name = s->name;
    c.address = ip;
    CHECK(ndksim_adapter_create(&c, &s->nic) == STATUS_SUCCESS, "%s: adapter", s->name);
    memset(&p, 0, sizeof p);
    p.Version = ndksim_highest_version();
    CHECK(ndksim_open_ndk_adapter(s->nic, &p, &s->adapter) == NDIS_STATUS_SUCCESS, "open");
    s->adapter->Dispatch->NdkCreatePd(s->adapter, on_create, &o, &s->pd);
    s->adapter->Dispatch->NdkCreateCq(s->adapter, 64, on_cq, NULL, NULL, on_create, &o, &s->cq);
    s->pd->Dispatch->NdkCreateQp(s->pd, s->cq, s->cq, s, 16, 16, 2, 2, 64, on_create, &o, &s->qp);
    /* Host memory the NIC may touch: an MDL over the buffer, registered as an MR. */
    s->buffer = aligned_alloc(PAGE_SIZE, k_size);
    memset(s->buffer, 0, k_size);
    s->mdl = IoAllocateMdl(s->buffer, k_size, FALSE, FALSE, NULL);
    MmBuildMdlForNonPagedPool(s->mdl);
    s->pd->Dispatch->NdkCreateMr(s->pd, FALSE, on_create, &o, &s->mr);
    CHECK(s->mr->Dispatch->NdkRegisterMr(s->mr, s->mdl, k_size,
                                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                             NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                             NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                         on_request, &st) == STATUS_SUCCESS,
          "%s: register", s->name);
}

static NDK_SGE sge_of(const side* s, ULONG offset, ULONG length) {
    NDK_SGE g;
    memset(&g, 0, sizeof g);
    g.VirtualAddress = s->buffer + offset;
    g.Length = length;
    g.MemoryRegionToken = s->mr->Dispatch->NdkGetLocalTokenFromMr(s->mr);
    return g;
}

static void close_object(NDK_OBJECT_HEADER* o) {
    int closed = 0;
    /* Every close is the first entry of its table. */
    if (((NDK_QP*)o)->Dispatch->NdkCloseQp(o, on_close, &closed) == STATUS_PENDING) {
        while (closed == 0 && ndksim_loop_run_one(g_loop)) {
        }
    }
}

static void close_side(side* s) {
    NTSTATUS st = STATUS_PENDING;
    close_object(&s->connector->Header);
    close_object(&s->qp->Header);
    s->mr->Dispatch->NdkDeregisterMr(s->mr, on_request, &st);
    close_object(&s->mr->Header);
    close_object(&s->cq->Header);
    close_object(&s->pd->Header);
    ndksim_close_ndk_adapter(s->nic, s->adapter);
    CHECK(ndksim_adapter_leaked_objects(s->nic) == 0, "%s leaked objects", s->name);
    ndksim_adapter_destroy(s->nic);
    IoFreeMdl(s->mdl);
    free(s->buffer);
}

int main(void) {
    side a, b;
    NDK_LISTENER* listener = NULL;
    NDK_OBJECT_HEADER* o = NULL;
    NDK_CONNECTOR* incoming = NULL;
    NTSTATUS listened = STATUS_PENDING, connected = STATUS_PENDING, accepted = STATUS_PENDING,
             completed = STATUS_PENDING;
    char hello[] = "hello, b", reply[] = "welcome, a", got[64];
    ULONG got_size = sizeof got;
    SOCKADDR_IN at = address(2, 445), from = address(1, 0);

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.name = "nic-a";
    b.name = "nic-b";
    ndksim_loop_create(&g_loop);
    open_side(&a, "10.1.0.1");
    open_side(&b, "10.1.0.2");

    /* b listens on ND port 445; a connects with private data; b accepts with its own. */
    b.adapter->Dispatch->NdkCreateListener(b.adapter, on_connect, &incoming, on_create, &o,
                                           &listener);
    listener->Dispatch->NdkListen(listener, (PSOCKADDR)&at, sizeof at, on_request, &listened);
    a.adapter->Dispatch->NdkCreateConnector(a.adapter, on_create, &o, &a.connector);
    a.connector->Dispatch->NdkConnect(a.connector, a.qp, (PSOCKADDR)&from, sizeof from,
                                      (PSOCKADDR)&at, sizeof at, 4, 4, hello, sizeof hello,
                                      on_request, &connected);
    while (incoming == NULL && ndksim_loop_run_one(g_loop)) {
    }
    b.connector = incoming;
    CHECK(b.connector != NULL, "no connect event on b");
    b.connector->Dispatch->NdkGetConnectionData(b.connector, NULL, NULL, got, &got_size);
    printf("b: connection request with private data \"%s\"\n", got);
    b.connector->Dispatch->NdkAccept(b.connector, b.qp, 4, 4, reply, sizeof reply, NULL, NULL,
                                     on_request, &accepted);
    CHECK(wait_status(&connected) == STATUS_SUCCESS, "Connect: %s", ndksim_status_name(connected));
    got_size = sizeof got;
    a.connector->Dispatch->NdkGetConnectionData(a.connector, NULL, NULL, got, &got_size);
    printf("a: connected, reply private data \"%s\"\n", got);
    a.connector->Dispatch->NdkCompleteConnect(a.connector, NULL, NULL, on_request, &completed);
    CHECK(wait_status(&completed) == STATUS_SUCCESS, "CompleteConnect");
    CHECK(wait_status(&accepted) == STATUS_SUCCESS, "Accept");

    /* RDMA write: 64 KiB from a into b's buffer (16 packets at MTU 4096). */
    for (int i = 0; i < k_size; ++i) {
        a.buffer[i] = (unsigned char)(i * 7 + 3);
    }
    NDK_SGE s1 = sge_of(&a, 0, k_size);
    UINT32 b_remote = b.mr->Dispatch->NdkGetRemoteTokenFromMr(b.mr);
    ULONG64 t0 = ndksim_loop_now(g_loop);
    a.qp->Dispatch->NdkWrite(a.qp, NULL, &s1, 1, (UINT64)(uintptr_t)b.buffer, b_remote, 0);
    NDK_RESULT_EX r = next_completion(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeWrite, "write: %s",
          ndksim_status_name(r.Status));
    CHECK(memcmp(a.buffer, b.buffer, k_size) == 0, "write: data differs");
    printf("a: RDMA write of %d bytes done in %.2f us of simulated time, data verified\n", k_size,
           (double)(ndksim_loop_now(g_loop) - t0) / 1e6);

    /* RDMA read: the first 4 KiB of b back into a's second half. */
    NDK_SGE s2 = sge_of(&a, k_size / 2, 4096);
    a.qp->Dispatch->NdkRead(a.qp, NULL, &s2, 1, (UINT64)(uintptr_t)b.buffer, b_remote, 0);
    r = next_completion(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeRead, "read: %s",
          ndksim_status_name(r.Status));
    CHECK(memcmp(a.buffer + k_size / 2, b.buffer, 4096) == 0, "read: data differs");
    printf("a: RDMA read of 4096 bytes, data verified\n");

    /* Send/receive. */
    NDK_SGE rs = sge_of(&b, 0, 256);
    b.qp->Dispatch->NdkReceive(b.qp, NULL, &rs, 1);
    memcpy(a.buffer, "a message through a posted receive", 35);
    NDK_SGE ss = sge_of(&a, 0, 35);
    a.qp->Dispatch->NdkSend(a.qp, NULL, &ss, 1, 0);
    r = next_completion(b.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.BytesTransferred == 35, "receive");
    printf("b: received %u bytes: \"%s\"\n", r.BytesTransferred, b.buffer);
    r = next_completion(a.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeSend, "send");

    /* A write with a token b never issued: refused by b's memory unit, nothing placed. */
    memset(b.buffer, 0xEE, 4096);
    a.qp->Dispatch->NdkWrite(a.qp, NULL, &s1, 1, (UINT64)(uintptr_t)b.buffer, b_remote ^ 0x700, 0);
    r = next_completion(a.cq);
    CHECK(r.Status == STATUS_ACCESS_VIOLATION, "forged token: %s", ndksim_status_name(r.Status));
    CHECK(b.buffer[0] == 0xEE && b.buffer[4095] == 0xEE, "forged token: memory was touched");
    printf("a: write with a forged token refused: %s, b's memory untouched\n",
           ndksim_status_name(r.Status));

    close_object(&listener->Header);
    close_side(&a);
    close_side(&b);
    ndksim_loop_destroy(g_loop);
    printf("%s\n", g_failures == 0 ? "all checks passed" : "CHECKS FAILED");
    return g_failures == 0 ? 0 : 1;
}
