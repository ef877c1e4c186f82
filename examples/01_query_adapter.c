/* SPDX-License-Identifier: MIT */
/*
 * 01_query_adapter: open a simulated NIC the way an NDK consumer opens a real one, read its
 * NDK_ADAPTER_INFO, and build and tear down an object tree - one PD, CQ, QP, MR, MW and a
 * listening listener - with every create and close pending, so each result arrives through its
 * completion callback. Public API only (C11).
 *
 * Exits 0 when every step returned the status the NDKPI rules require.
 */
#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <stdio.h>
#include <string.h>

static int g_failures;

/* The test kit's assertions (<ndksim/testkit/status_assert.hpp>) in C: the expected status
 * first; a failure prints both statuses by name and the thread's last refusal. */
#define EXPECT_NT_STATUS(expected, actual)                                               \
    do {                                                                                 \
        NTSTATUS s_ = (actual);                                                          \
        if (s_ != (expected)) {                                                          \
            fprintf(stderr, "FAILED %s: %s, expected %s\n  last refusal: %s\n", #actual, \
                    ndksim_status_name(s_), ndksim_status_name(expected),                \
                    ndksim_thread_last_refusal());                                       \
            ++g_failures;                                                                \
        }                                                                                \
    } while (0)
#define EXPECT_NT_SUCCESS(actual) EXPECT_NT_STATUS(STATUS_SUCCESS, actual)

/* One completion slot per request: how many callbacks, which status, which object. */
typedef struct slot {
    int calls;
    NTSTATUS status;
    NDK_OBJECT_HEADER* object;
    const char* what;
} slot;

static void on_create(PVOID context, NTSTATUS status, NDK_OBJECT_HEADER* object) {
    slot* s = (slot*)context;
    ++s->calls;
    s->status = status;
    s->object = object;
    printf("  callback: %-22s %s\n", s->what, ndksim_status_name(status));
}

static void on_request(PVOID context, NTSTATUS status) {
    slot* s = (slot*)context;
    ++s->calls;
    s->status = status;
    printf("  callback: %-22s %s\n", s->what, ndksim_status_name(status));
}

static void on_close(PVOID context) {
    slot* s = (slot*)context;
    ++s->calls;
    printf("  callback: %-22s closed\n", s->what);
}

static void on_cq_event(PVOID context, NTSTATUS status) {
    (void)context, (void)status;
}
static void on_connect_event(PVOID context, NDK_CONNECTOR* connector) {
    (void)context, (void)connector;
}

/* Runs the deterministic loop dry, then checks that `s` received exactly one callback. */
static NDK_OBJECT_HEADER* settle(ndksim_loop* loop, slot* s) {
    ndksim_loop_run_until_idle(loop);
    if (s->calls != 1) {
        fprintf(stderr, "FAILED %s: %d callbacks, expected exactly 1\n", s->what, s->calls);
        ++g_failures;
    }
    return s->object;
}

int main(void) {
    ndksim_loop* loop = NULL;
    ndksim_adapter* nic = NULL;
    ndksim_adapter_config config;
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS open = {0};
    NDK_ADAPTER* adapter = NULL;
    NDK_ADAPTER_INFO info;
    ULONG size = 0;

    EXPECT_NT_SUCCESS(ndksim_loop_create(&loop));
    ndksim_adapter_config_init(&config);
    config.name = "nic0";
    config.address = "192.0.2.10";
    config.loop = loop;
    config.completion_style = NDKSIM_COMPLETE_PENDING;
    EXPECT_NT_SUCCESS(ndksim_adapter_create(&config, &nic));

    open.Version.Major = 1;
    open.Version.Minor = 1;
    EXPECT_NT_STATUS(NDIS_STATUS_SUCCESS, ndksim_open_ndk_adapter(nic, &open, &adapter));
    if (g_failures != 0) {
        return 1;
    }

    /* Size negotiation: ask with no buffer, learn the size, ask again. */
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     adapter->Dispatch->NdkQueryAdapterInfo(adapter, NULL, &size));
    memset(&info, 0, sizeof info);
    EXPECT_NT_SUCCESS(adapter->Dispatch->NdkQueryAdapterInfo(adapter, &info, &size));
    printf("ndksim %s, NDKPI %u.%u (asked for 1.1), vendor 0x%04X device 0x%04X\n",
           ndksim_version(), info.Version.Major, info.Version.Minor, (unsigned)info.VendorId,
           (unsigned)info.DeviceId);
    printf("  queues: initiator %u, receive %u, SRQ %u, CQ %u\n", info.MaxInitiatorQueueDepth,
           info.MaxReceiveQueueDepth, info.MaxSrqDepth, info.MaxCqDepth);
    printf("  SGEs: initiator %u, receive %u, read %u; inline %u B; transfer %u B\n",
           info.MaxInitiatorRequestSge, info.MaxReceiveRequestSge, info.MaxReadRequestSge,
           info.MaxInlineDataSize, info.MaxTransferLength);
    printf("  reads: inbound %u, outbound %u; FRMR pages %u; private data %u/%u B\n",
           info.MaxInboundReadLimit, info.MaxOutboundReadLimit, info.FRMRPageCount,
           info.MaxCallerData, info.MaxCalleeData);
    printf("  flags 0x%08X, technology %d (RoCEv2 = %d)\n", (unsigned)info.AdapterFlags,
           (int)info.RdmaTechnology, (int)NdkRoCEv2);

    printf("building an object tree (every call pends and completes from the engine):\n");
    slot pd_slot = {0, 0, NULL, "NdkCreatePd"};
    NDK_PD* pd = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING,
                     adapter->Dispatch->NdkCreatePd(adapter, on_create, &pd_slot, &pd));
    pd = (NDK_PD*)settle(loop, &pd_slot);

    slot cq_slot = {0, 0, NULL, "NdkCreateCq"};
    NDK_CQ* cq = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING,
                     adapter->Dispatch->NdkCreateCq(adapter, 64, on_cq_event, NULL, NULL, on_create,
                                                    &cq_slot, &cq));
    cq = (NDK_CQ*)settle(loop, &cq_slot);

    slot qp_slot = {0, 0, NULL, "NdkCreateQp"};
    NDK_QP* qp = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING, pd->Dispatch->NdkCreateQp(pd, cq, cq, NULL, 32, 32, 4, 4, 64,
                                                               on_create, &qp_slot, &qp));
    qp = (NDK_QP*)settle(loop, &qp_slot);

    slot mr_slot = {0, 0, NULL, "NdkCreateMr"};
    NDK_MR* mr = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING, pd->Dispatch->NdkCreateMr(pd, TRUE, on_create, &mr_slot, &mr));
    mr = (NDK_MR*)settle(loop, &mr_slot);

    slot mw_slot = {0, 0, NULL, "NdkCreateMw"};
    NDK_MW* mw = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING, pd->Dispatch->NdkCreateMw(pd, on_create, &mw_slot, &mw));
    mw = (NDK_MW*)settle(loop, &mw_slot);

    slot listener_slot = {0, 0, NULL, "NdkCreateListener"};
    NDK_LISTENER* listener = NULL;
    EXPECT_NT_STATUS(STATUS_PENDING,
                     adapter->Dispatch->NdkCreateListener(adapter, on_connect_event, NULL,
                                                          on_create, &listener_slot, &listener));
    listener = (NDK_LISTENER*)settle(loop, &listener_slot);

    SOCKADDR_IN any;
    memset(&any, 0, sizeof any);
    any.sin_family = WS_AF_INET;
    slot listen_slot = {0, 0, NULL, "NdkListen"};
    EXPECT_NT_STATUS(STATUS_PENDING,
                     listener->Dispatch->NdkListen(listener, (PSOCKADDR)&any, sizeof any,
                                                   on_request, &listen_slot));
    settle(loop, &listen_slot);
    SOCKADDR_IN bound;
    ULONG bound_size = sizeof bound;
    EXPECT_NT_SUCCESS(
        listener->Dispatch->NdkGetLocalAddress(listener, (PSOCKADDR)&bound, &bound_size));
    printf("  listening on ND port %u (picked from 49152-65535)\n",
           (unsigned)(((bound.sin_port & 0xFF) << 8) | (bound.sin_port >> 8)));

    printf("closing the PD first: it must wait for its QP, MR and MW:\n");
    slot pd_close = {0, 0, NULL, "NdkClosePd"};
    EXPECT_NT_STATUS(STATUS_PENDING, pd->Dispatch->NdkClosePd(&pd->Header, on_close, &pd_close));
    ndksim_loop_run_until_idle(loop);
    if (pd_close.calls != 0) {
        fprintf(stderr, "FAILED: the PD closed while its successors were open\n");
        ++g_failures;
    }
    slot qp_close = {0, 0, NULL, "NdkCloseQp"};
    slot mr_close = {0, 0, NULL, "NdkCloseMr"};
    slot mw_close = {0, 0, NULL, "NdkCloseMw"};
    slot cq_close = {0, 0, NULL, "NdkCloseCq"};
    slot listener_close = {0, 0, NULL, "NdkCloseListener"};
    EXPECT_NT_STATUS(STATUS_PENDING, qp->Dispatch->NdkCloseQp(&qp->Header, on_close, &qp_close));
    EXPECT_NT_STATUS(STATUS_PENDING, mr->Dispatch->NdkCloseMr(&mr->Header, on_close, &mr_close));
    EXPECT_NT_STATUS(STATUS_PENDING, mw->Dispatch->NdkCloseMw(&mw->Header, on_close, &mw_close));
    EXPECT_NT_STATUS(STATUS_PENDING, cq->Dispatch->NdkCloseCq(&cq->Header, on_close, &cq_close));
    EXPECT_NT_STATUS(STATUS_PENDING, listener->Dispatch->NdkCloseListener(
                                         &listener->Header, on_close, &listener_close));
    ndksim_loop_run_until_idle(loop);
    if (pd_close.calls != 1 || qp_close.calls != 1 || mr_close.calls != 1 || mw_close.calls != 1 ||
        cq_close.calls != 1 || listener_close.calls != 1) {
        fprintf(stderr, "FAILED: every close must complete exactly once\n");
        ++g_failures;
    }

    ndksim_close_ndk_adapter(nic, adapter);
    printf("simulated time: %.3f us; objects left open: %u\n", (double)ndksim_loop_now(loop) / 1e6,
           ndksim_adapter_leaked_objects(nic));
    if (ndksim_adapter_leaked_objects(nic) != 0) {
        ++g_failures;
    }
    ndksim_adapter_destroy(nic);
    ndksim_loop_destroy(loop);
    printf("%s\n", g_failures == 0 ? "all checks passed" : "CHECKS FAILED");
    return g_failures == 0 ? 0 : 1;
}
