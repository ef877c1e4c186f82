/* SPDX-License-Identifier: MIT */
/*
 * ndk_example.h - the plumbing the examples share, so that each example file shows only its own
 * idea: two simulated NICs on one deterministic loop, each with a PD, a CQ, a QP and a registered
 * buffer, connected the NDK way (listener, connector, accept). Public API only (C11). The helpers
 * are static inline so that an example may leave one unused (02 spells the connection out).
 */
#pragma once

#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures;
static ndksim_loop* g_loop;

/* Counts a failed check and says what failed; the example goes on so every failure shows. */
#define CHECK(cond, ...)                             \
    do {                                             \
        if (!(cond)) {                               \
            fprintf(stderr, "FAILED: " __VA_ARGS__); \
            fprintf(stderr, "\n");                   \
            ++g_failures;                            \
        }                                            \
    } while (0)

/* One end of a connection. A QP made by example_open uses the plain receive queue unless the
 * example creates its own QP first (srq != NULL). */
typedef struct example_side {
    const char* name;
    ndksim_adapter* nic;
    NDK_ADAPTER* adapter;
    NDK_PD* pd;
    NDK_CQ* cq;
    NDK_SRQ* srq;
    NDK_QP* qp;
    NDK_MR* mr;
    MDL* mdl;
    unsigned char* buffer;
    ULONG size;
    NDK_CONNECTOR* connector;
} example_side;

static inline void example_on_create(PVOID ctx, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    (void)s;
    *(NDK_OBJECT_HEADER**)ctx = o;
}
static inline void example_on_request(PVOID ctx, NTSTATUS s) {
    *(NTSTATUS*)ctx = s;
}
static inline void example_on_close(PVOID ctx) {
    ++*(int*)ctx;
}
static inline void example_on_cq(PVOID ctx, NTSTATUS s) {
    (void)ctx, (void)s;
}
static inline void example_on_connect(PVOID ctx, NDK_CONNECTOR* c) {
    *(NDK_CONNECTOR**)ctx = c;
}

/* Runs the simulation until *status leaves STATUS_PENDING (or nothing is left to run). */
static inline NTSTATUS example_wait(volatile NTSTATUS* status) {
    while (*status == STATUS_PENDING && ndksim_loop_run_one(g_loop)) {
    }
    return *status;
}

/* The next completion of `cq`; Status is STATUS_PENDING when the simulation ran dry first. */
static inline NDK_RESULT_EX example_next(NDK_CQ* cq) {
    NDK_RESULT_EX r;
    memset(&r, 0, sizeof r);
    r.Status = STATUS_PENDING;
    while (cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) == 0) {
        if (!ndksim_loop_run_one(g_loop)) {
            r.Status = STATUS_PENDING;
            break;
        }
    }
    return r;
}

/* Adapter, PD, CQ and a registered buffer of `size` bytes (local write, remote read/write). */
static inline void example_open(example_side* s, const char* name, const char* ip, ULONG size) {
    ndksim_adapter_config c;
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p;
    NDK_OBJECT_HEADER* o = NULL;
    NTSTATUS st = STATUS_PENDING;
    memset(s, 0, sizeof *s);
    s->name = name;
    s->size = size;
    if (g_loop == NULL) {
        ndksim_loop_create(&g_loop);
    }
    ndksim_adapter_config_init(&c);
    c.loop = g_loop;
    c.name = name;
    c.address = ip;
    CHECK(ndksim_adapter_create(&c, &s->nic) == STATUS_SUCCESS, "%s: adapter", name);
    memset(&p, 0, sizeof p);
    p.Version = ndksim_highest_version();
    CHECK(ndksim_open_ndk_adapter(s->nic, &p, &s->adapter) == NDIS_STATUS_SUCCESS, "open");
    s->adapter->Dispatch->NdkCreatePd(s->adapter, example_on_create, &o, &s->pd);
    s->adapter->Dispatch->NdkCreateCq(s->adapter, 256, example_on_cq, NULL, NULL, example_on_create,
                                      &o, &s->cq);
    s->buffer = aligned_alloc(PAGE_SIZE, size);
    memset(s->buffer, 0, size);
    s->mdl = IoAllocateMdl(s->buffer, size, FALSE, FALSE, NULL);
    MmBuildMdlForNonPagedPool(s->mdl);
    s->pd->Dispatch->NdkCreateMr(s->pd, FALSE, example_on_create, &o, &s->mr);
    CHECK(s->mr->Dispatch->NdkRegisterMr(s->mr, s->mdl, size,
                                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                             NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                             NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                         example_on_request, &st) == STATUS_SUCCESS,
          "%s: register", name);
}

/* A QP on the side's CQ with its own receive queue, unless one was created already. */
static inline void example_make_qp(example_side* s) {
    NDK_OBJECT_HEADER* o = NULL;
    if (s->qp == NULL) {
        s->pd->Dispatch->NdkCreateQp(s->pd, s->cq, s->cq, s, 64, 64, 4, 4, 128, example_on_create,
                                     &o, &s->qp);
    }
}

/* An SGE over [offset, offset + length) of the side's registered buffer. */
static inline NDK_SGE example_sge(const example_side* s, ULONG offset, ULONG length) {
    NDK_SGE g;
    memset(&g, 0, sizeof g);
    g.VirtualAddress = s->buffer + offset;
    g.Length = length;
    g.MemoryRegionToken = s->mr->Dispatch->NdkGetLocalTokenFromMr(s->mr);
    return g;
}

static inline SOCKADDR_IN example_address(const char* ip, USHORT port) {
    SOCKADDR_IN a;
    unsigned b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    memset(&a, 0, sizeof a);
    a.sin_family = WS_AF_INET;
    a.sin_port = (USHORT)((port >> 8) | (port << 8));
    sscanf(ip, "%u.%u.%u.%u", &b0, &b1, &b2, &b3);
    unsigned char* b = (unsigned char*)&a.sin_addr;
    b[0] = (unsigned char)b0, b[1] = (unsigned char)b1, b[2] = (unsigned char)b2,
    b[3] = (unsigned char)b3;
    return a;
}

/* `b` listens on `b_ip`:445 and accepts; `a` connects from `a_ip`. Returns the listener, which
 * the caller closes. Each QP is created on demand. */
static inline NDK_LISTENER* example_connect(example_side* a, const char* a_ip, example_side* b,
                                            const char* b_ip) {
    NDK_LISTENER* listener = NULL;
    NDK_OBJECT_HEADER* o = NULL;
    NDK_CONNECTOR* incoming = NULL;
    NTSTATUS listened = STATUS_PENDING, connected = STATUS_PENDING, accepted = STATUS_PENDING,
             completed = STATUS_PENDING;
    SOCKADDR_IN at = example_address(b_ip, 445), from = example_address(a_ip, 0);
    example_make_qp(a);
    example_make_qp(b);
    b->adapter->Dispatch->NdkCreateListener(b->adapter, example_on_connect, &incoming,
                                            example_on_create, &o, &listener);
    listener->Dispatch->NdkListen(listener, (PSOCKADDR)&at, sizeof at, example_on_request,
                                  &listened);
    a->adapter->Dispatch->NdkCreateConnector(a->adapter, example_on_create, &o, &a->connector);
    a->connector->Dispatch->NdkConnect(a->connector, a->qp, (PSOCKADDR)&from, sizeof from,
                                       (PSOCKADDR)&at, sizeof at, 4, 4, NULL, 0, example_on_request,
                                       &connected);
    while (incoming == NULL && ndksim_loop_run_one(g_loop)) {
    }
    b->connector = incoming;
    CHECK(incoming != NULL, "no connect event on %s", b->name);
    if (incoming == NULL) {
        return listener;
    }
    b->connector->Dispatch->NdkAccept(b->connector, b->qp, 4, 4, NULL, 0, NULL, NULL,
                                      example_on_request, &accepted);
    CHECK(example_wait(&connected) == STATUS_SUCCESS, "Connect: %s", ndksim_status_name(connected));
    a->connector->Dispatch->NdkCompleteConnect(a->connector, NULL, NULL, example_on_request,
                                               &completed);
    CHECK(example_wait(&completed) == STATUS_SUCCESS, "CompleteConnect");
    CHECK(example_wait(&accepted) == STATUS_SUCCESS, "Accept");
    return listener;
}

/* Closes any NDK object (every close is the first entry of its dispatch table) and waits for
 * its close completion. */
static inline void example_close(NDK_OBJECT_HEADER* o) {
    int closed = 0;
    if (o == NULL) {
        return;
    }
    if (((NDK_QP*)o)->Dispatch->NdkCloseQp(o, example_on_close, &closed) == STATUS_PENDING) {
        while (closed == 0 && ndksim_loop_run_one(g_loop)) {
        }
    }
}

/* Closes everything example_open and example_connect made, children first, and checks that the
 * adapter reports no leaked object. */
static inline void example_teardown(example_side* s) {
    NTSTATUS st = STATUS_PENDING;
    if (s->connector != NULL) {
        example_close(&s->connector->Header);
    }
    if (s->qp != NULL) {
        example_close(&s->qp->Header);
    }
    if (s->srq != NULL) {
        example_close(&s->srq->Header);
    }
    s->mr->Dispatch->NdkDeregisterMr(s->mr, example_on_request, &st);
    example_close(&s->mr->Header);
    example_close(&s->cq->Header);
    example_close(&s->pd->Header);
    ndksim_close_ndk_adapter(s->nic, s->adapter);
    CHECK(ndksim_adapter_leaked_objects(s->nic) == 0, "%s leaked objects", s->name);
    ndksim_adapter_destroy(s->nic);
    IoFreeMdl(s->mdl);
    free(s->buffer);
}

/* Prints the verdict and returns the process exit status. */
static inline int example_finish(const char* name) {
    ndksim_loop_destroy(g_loop);
    if (g_failures != 0) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, g_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
