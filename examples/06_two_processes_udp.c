/* SPDX-License-Identifier: MIT */
/*
 * 06_two_processes_udp: two processes, one simulated NIC each, connected over the UDP wire on
 * 127.0.0.1 and 127.0.0.2. The child listens and puts its buffer's address and remote token in
 * the accept's private data; the parent connects, RDMA-writes 4 KiB into that buffer and reads
 * them back, and checks every byte. Public API only (C11), threaded mode.
 *
 * Exits 0 when every check passed, 1 otherwise (a missing UDP wire is a failure too).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { k_size = 4096, k_timeout_ms = 30000 };

typedef struct memory_offer {
    UINT64 address;
    UINT32 token;
} memory_offer;

typedef struct side {
    ndksim_adapter* nic;
    NDK_ADAPTER* adapter;
    NDK_PD* pd;
    NDK_CQ* cq;
    NDK_QP* qp;
    NDK_MR* mr;
    MDL* mdl;
    unsigned char* buffer;
    NDK_CONNECTOR* connector;
    NDK_LISTENER* listener;
} side;

static atomic_int g_incoming_set, g_disconnected;
static NDK_CONNECTOR* g_incoming;

static void on_create(PVOID ctx, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    (void)ctx, (void)s, (void)o;
}
static void on_request(PVOID ctx, NTSTATUS s) {
    atomic_store((atomic_int*)ctx, (int)s);
}
static void on_close(PVOID ctx) {
    (void)ctx;
}
static void on_cq(PVOID ctx, NTSTATUS s) {
    (void)ctx, (void)s;
}
static void on_connect(PVOID ctx, NDK_CONNECTOR* c) {
    (void)ctx, g_incoming = c, atomic_store(&g_incoming_set, 1);
}
static void on_disconnect(PVOID ctx) {
    (void)ctx, atomic_store(&g_disconnected, 1);
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Waits until *flag != value, or the timeout. It yields the core while it polls: the two
 * processes' engine threads need it more than this loop does. */
static int wait_change(atomic_int* flag, int value) {
    long long end = now_ms() + k_timeout_ms;
    while (atomic_load(flag) == value) {
        if (now_ms() > end) {
            return 0;
        }
        sched_yield();
    }
    return 1;
}

static NDK_RESULT_EX next_completion(NDK_CQ* cq) {
    NDK_RESULT_EX r;
    long long end = now_ms() + k_timeout_ms;
    memset(&r, 0, sizeof r);
    r.Status = STATUS_IO_TIMEOUT;
    while (cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) == 0 && now_ms() < end) {
        sched_yield();
    }
    return r;
}

static SOCKADDR_IN ipv4(unsigned char last, USHORT port) {
    SOCKADDR_IN a;
    memset(&a, 0, sizeof a);
    a.sin_family = WS_AF_INET;
    a.sin_port = (USHORT)((port >> 8) | (port << 8));
    unsigned char* b = (unsigned char*)&a.sin_addr;
    b[0] = 127, b[1] = 0, b[2] = 0, b[3] = last;
    return a;
}

/* Creates the NIC and its objects; the default INLINE style completes every create inline. */
static NTSTATUS open_side(side* s, const char* ip, USHORT port) {
    ndksim_adapter_config c;
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p;
    ndksim_adapter_config_init(&c);
    c.address = ip;
    c.wire = NDKSIM_WIRE_UDP;
    c.port = port;
    c.cm_timeout_ms = k_timeout_ms; /* the other process may be slow to accept on a busy host */
    NTSTATUS st = ndksim_adapter_create(&c, &s->nic);
    if (st != STATUS_SUCCESS) {
        return st;
    }
    memset(&p, 0, sizeof p);
    p.Version = ndksim_highest_version();
    ndksim_open_ndk_adapter(s->nic, &p, &s->adapter);
    s->adapter->Dispatch->NdkCreatePd(s->adapter, on_create, NULL, &s->pd);
    s->adapter->Dispatch->NdkCreateCq(s->adapter, 64, on_cq, NULL, NULL, on_create, NULL, &s->cq);
    s->pd->Dispatch->NdkCreateQp(s->pd, s->cq, s->cq, s, 16, 16, 1, 1, 0, on_create, NULL, &s->qp);
    s->buffer = aligned_alloc(PAGE_SIZE, 2 * k_size);
    memset(s->buffer, 0, 2 * k_size);
    s->mdl = IoAllocateMdl(s->buffer, 2 * k_size, FALSE, FALSE, NULL);
    MmBuildMdlForNonPagedPool(s->mdl);
    s->pd->Dispatch->NdkCreateMr(s->pd, FALSE, on_create, NULL, &s->mr);
    return s->mr->Dispatch->NdkRegisterMr(s->mr, s->mdl, 2 * k_size,
                                          NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                              NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                              NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                          on_request, NULL);
}

static void close_side(side* s) {
    NDK_OBJECT_HEADER* objects[] = {s->connector ? &s->connector->Header : NULL,
                                    s->listener ? &s->listener->Header : NULL, &s->qp->Header};
    for (int i = 0; i < 3; ++i) {
        if (objects[i] != NULL) {
            ((NDK_QP*)objects[i])->Dispatch->NdkCloseQp(objects[i], on_close, NULL);
        }
    }
    s->mr->Dispatch->NdkDeregisterMr(s->mr, on_request, NULL);
    s->mr->Dispatch->NdkCloseMr(&s->mr->Header, on_close, NULL);
    s->cq->Dispatch->NdkCloseCq(&s->cq->Header, on_close, NULL);
    s->pd->Dispatch->NdkClosePd(&s->pd->Header, on_close, NULL);
    ndksim_close_ndk_adapter(s->nic, s->adapter); /* waits for every pending close */
    ndksim_adapter_destroy(s->nic);
    IoFreeMdl(s->mdl);
    free(s->buffer);
}

/* The child: listen on 127.0.0.2, accept with the buffer offer, wait for the disconnect. */
/* 1 when UDP `port` can be bound on the IPv4 address `ip` now. */
static int udp_port_free(const char* ip, USHORT port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    int ok = fd >= 0 && bind(fd, (struct sockaddr*)&a, sizeof a) == 0;
    if (fd >= 0) {
        close(fd);
    }
    return ok;
}

/*
 * Both processes bind the same wire port, each on its own address. Other programs (tests run in
 * parallel) may hold a port on either address, so the parent picks one that is free on both
 * before it forks.
 */
static USHORT pick_port(void) {
    USHORT port = (USHORT)(20000 + getpid() % 30000);
    for (int i = 0; i < 64; ++i, ++port) {
        if (udp_port_free("127.0.0.1", port) && udp_port_free("127.0.0.2", port)) {
            return port;
        }
    }
    return port;
}

static int listener(USHORT port, int ready_fd) {
    side s;
    atomic_int accepted = STATUS_PENDING, listened = STATUS_PENDING;
    SOCKADDR_IN at = ipv4(2, 445);
    memset(&s, 0, sizeof s);
    if (open_side(&s, "127.0.0.2", port) != STATUS_SUCCESS) {
        return 1;
    }
    s.adapter->Dispatch->NdkCreateListener(s.adapter, on_connect, NULL, on_create, NULL,
                                           &s.listener);
    s.listener->Dispatch->NdkListen(s.listener, (PSOCKADDR)&at, sizeof at, on_request, &listened);
    if (write(ready_fd, "R", 1) != 1 || !wait_change(&g_incoming_set, 0)) {
        return 1;
    }
    s.connector = g_incoming;
    memory_offer offer = {(UINT64)(uintptr_t)s.buffer,
                          s.mr->Dispatch->NdkGetRemoteTokenFromMr(s.mr)};
    s.connector->Dispatch->NdkAccept(s.connector, s.qp, 4, 4, &offer, sizeof offer, on_disconnect,
                                     NULL, on_request, &accepted);
    int ok = wait_change(&accepted, STATUS_PENDING) && atomic_load(&accepted) == STATUS_SUCCESS &&
             wait_change(&g_disconnected, 0);
    close_side(&s);
    return ok ? 0 : 1;
}

int main(void) {
    int ready[2];
    side s;
    memset(&s, 0, sizeof s);
    if (pipe(ready) != 0) {
        return 1;
    }
    USHORT port = pick_port();
    pid_t child = fork();
    if (child == 0) {
        close(ready[0]);
        _exit(listener(port, ready[1]));
    }
    close(ready[1]);
    NTSTATUS st = open_side(&s, "127.0.0.1", port);
    struct pollfd p = {ready[0], POLLIN, 0};
    char c;
    if (st != STATUS_SUCCESS || poll(&p, 1, k_timeout_ms) != 1 || read(ready[0], &c, 1) != 1) {
        fprintf(stderr, "FAILED: setup (%s) or the listener never started\n",
                ndksim_status_name(st));
        kill(child, SIGKILL); /* it may still wait for a connection that will never come */
        waitpid(child, NULL, 0);
        return 1;
    }
    atomic_int connected = STATUS_PENDING, done = STATUS_PENDING, gone = STATUS_PENDING;
    SOCKADDR_IN from = ipv4(1, 0), to = ipv4(2, 445);
    s.adapter->Dispatch->NdkCreateConnector(s.adapter, on_create, NULL, &s.connector);
    s.connector->Dispatch->NdkConnect(s.connector, s.qp, (PSOCKADDR)&from, sizeof from,
                                      (PSOCKADDR)&to, sizeof to, 4, 4, NULL, 0, on_request,
                                      &connected);
    memory_offer offer;
    ULONG size = sizeof offer;
    int failures =
        !wait_change(&connected, STATUS_PENDING) || atomic_load(&connected) != STATUS_SUCCESS;
    s.connector->Dispatch->NdkGetConnectionData(s.connector, NULL, NULL, &offer, &size);
    s.connector->Dispatch->NdkCompleteConnect(s.connector, NULL, NULL, on_request, &done);
    failures += !wait_change(&done, STATUS_PENDING);
    printf("connected over UDP; peer buffer at %#llx, token %#x\n",
           (unsigned long long)offer.address, offer.token);

    for (int i = 0; i < k_size; ++i) {
        s.buffer[i] = (unsigned char)(i * 13 + 5);
    }
    NDK_SGE g = {{s.buffer}, k_size, s.mr->Dispatch->NdkGetLocalTokenFromMr(s.mr)};
    s.qp->Dispatch->NdkWrite(s.qp, NULL, &g, 1, offer.address, offer.token, 0);
    NDK_RESULT_EX r = next_completion(s.cq);
    failures += r.Status != STATUS_SUCCESS;
    printf("RDMA write of %d bytes: %s\n", k_size, ndksim_status_name(r.Status));
    g.VirtualAddress = s.buffer + k_size; /* read it back into the second half */
    s.qp->Dispatch->NdkRead(s.qp, NULL, &g, 1, offer.address, offer.token, 0);
    r = next_completion(s.cq);
    failures += r.Status != STATUS_SUCCESS || memcmp(s.buffer, s.buffer + k_size, k_size) != 0;
    printf("RDMA read of %d bytes: %s, data %s\n", k_size, ndksim_status_name(r.Status),
           memcmp(s.buffer, s.buffer + k_size, k_size) == 0 ? "verified" : "DIFFERS");

    s.connector->Dispatch->NdkDisconnect(s.connector, on_request, &gone);
    wait_change(&gone, STATUS_PENDING);
    close_side(&s);
    int status = 0;
    waitpid(child, &status, 0);
    failures += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    printf("%s\n", failures == 0 ? "all checks passed" : "CHECKS FAILED");
    return failures == 0 ? 0 : 1;
}
