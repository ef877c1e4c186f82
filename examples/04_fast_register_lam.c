/* SPDX-License-Identifier: MIT */
/*
 * 04_fast_register_lam: memory the NIC reaches through logical addresses, without a normal
 * registration.
 *
 * The target maps a buffer with NdkBuildLAM (the logical address mapping: one adapter address
 * per page), fast-registers those pages on a fast-register MR with NdkFastRegister - a work
 * request on its QP - and sends the MR's remote token and base address to the initiator. The
 * initiator's source data is also LAM-mapped, and its SGEs carry logical addresses under the
 * PD's privileged token, which gives local access to any LAM page of the adapter. After an RDMA
 * write and an RDMA read through the fast-registered region, the target invalidates it, and
 * the initiator's next write is refused with STATUS_ACCESS_VIOLATION. Public API only (C11),
 * deterministic mode.
 *
 * Exits 0 when every check passed.
 */
#include "ndk_example.h"

enum { k_size = 64 * 1024, k_pages = 3, k_fbo = 256, k_length = k_pages * PAGE_SIZE - 2 * k_fbo };

/* A buffer mapped by NdkBuildLAM. */
typedef struct lam_buffer {
    unsigned char* block;
    unsigned char* bytes; /* block + offset: the mapped data */
    MDL* mdl;
    NDK_LOGICAL_ADDRESS_MAPPING* lam;
    ULONG fbo;
} lam_buffer;

/* The target's advertisement of its fast-registered region. */
typedef struct advert {
    UINT64 base;
    UINT32 token;
} advert;

/* Maps `length` bytes starting `offset` into fresh pages of side `s`: the first call learns the
 * LAM size (STATUS_BUFFER_TOO_SMALL), the second builds it (no completion routine: inline). */
static lam_buffer map_buffer(example_side* s, ULONG offset, ULONG length) {
    lam_buffer b;
    ULONG lam_size = 0;
    memset(&b, 0, sizeof b);
    b.block = aligned_alloc(PAGE_SIZE, k_pages * PAGE_SIZE);
    memset(b.block, 0, k_pages * PAGE_SIZE);
    b.bytes = b.block + offset;
    b.mdl = IoAllocateMdl(b.bytes, length, FALSE, FALSE, NULL);
    MmBuildMdlForNonPagedPool(b.mdl);
    CHECK(s->adapter->Dispatch->NdkBuildLAM(s->adapter, b.mdl, length, NULL, NULL, NULL, &lam_size,
                                            &b.fbo) == STATUS_BUFFER_TOO_SMALL,
          "%s: BuildLAM size query", s->name);
    b.lam = malloc(lam_size);
    CHECK(s->adapter->Dispatch->NdkBuildLAM(s->adapter, b.mdl, length, NULL, NULL, b.lam, &lam_size,
                                            &b.fbo) == STATUS_SUCCESS,
          "%s: BuildLAM", s->name);
    printf("%s: LAM of %lu bytes: %lu adapter pages, first byte offset %lu\n", s->name,
           (unsigned long)length, (unsigned long)b.lam->AdapterPageCount, (unsigned long)b.fbo);
    return b;
}

static void unmap_buffer(example_side* s, lam_buffer* b) {
    s->adapter->Dispatch->NdkReleaseLAM(s->adapter, b->lam);
    free(b->lam);
    IoFreeMdl(b->mdl);
    free(b->block);
}

int main(void) {
    example_side a, b;
    NDK_OBJECT_HEADER* o = NULL;
    NTSTATUS st = STATUS_PENDING;
    NDK_MR* fr = NULL;
    UINT32 privileged = 0;

    example_open(&a, "initiator", "10.4.0.1", k_size);
    example_open(&b, "target", "10.4.0.2", k_size);
    NDK_LISTENER* listener = example_connect(&a, "10.4.0.1", &b, "10.4.0.2");

    /* Target: a fast-register MR for k_pages pages with remote access, then NdkFastRegister of
     * its LAM pages at a base address of its choosing (FBO plus a page multiple). */
    lam_buffer target = map_buffer(&b, k_fbo, k_length);
    b.pd->Dispatch->NdkCreateMr(b.pd, TRUE, example_on_create, &o, &fr);
    CHECK(fr->Dispatch->NdkInitializeFastRegisterMr(fr, k_pages, TRUE, example_on_request, &st) ==
              STATUS_SUCCESS,
          "InitializeFastRegisterMr");
    const UINT64 base = 0x5000000000ULL + target.fbo;
    CHECK(b.qp->Dispatch->NdkFastRegister(
              b.qp, fr, fr, target.lam->AdapterPageCount, target.lam->AdapterPageArray, target.fbo,
              k_length, (PVOID)(uintptr_t)base,
              NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ |
                  NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == STATUS_SUCCESS,
          "FastRegister");
    NDK_RESULT_EX r = example_next(b.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeFastRegister, "fast-register: %s",
          ndksim_status_name(r.Status));
    advert ad = {base, fr->Dispatch->NdkGetRemoteTokenFromMr(fr)};
    printf("target: fast-registered %d bytes at %#llx, remote token %#x\n", k_length,
           (unsigned long long)ad.base, (unsigned)ad.token);

    /* The advertisement travels to the initiator in a SEND. */
    NDK_SGE rx = example_sge(&a, 0, sizeof ad);
    CHECK(a.qp->Dispatch->NdkReceive(a.qp, NULL, &rx, 1) == STATUS_SUCCESS, "Receive");
    memcpy(b.buffer, &ad, sizeof ad);
    NDK_SGE tx = example_sge(&b, 0, sizeof ad);
    CHECK(b.qp->Dispatch->NdkSend(b.qp, NULL, &tx, 1, 0) == STATUS_SUCCESS, "Send");
    CHECK(example_next(b.cq).Status == STATUS_SUCCESS, "advert send");
    CHECK(example_next(a.cq).Status == STATUS_SUCCESS, "advert receive");
    advert got;
    memcpy(&got, a.buffer, sizeof got);
    CHECK(got.base == ad.base && got.token == ad.token, "advert garbled");

    /* Initiator: LAM-mapped source data, addressed by logical address under the privileged
     * token - one SGE per page, since consecutive logical pages need not be contiguous. */
    a.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(a.pd, &privileged);
    lam_buffer source = map_buffer(&a, 0, k_pages * PAGE_SIZE);
    for (ULONG i = 0; i < k_pages * PAGE_SIZE; ++i) {
        source.bytes[i] = (unsigned char)(i * 13 + 5);
    }
    NDK_SGE sgl[k_pages];
    ULONG left = k_length;
    for (ULONG i = 0; i < k_pages; ++i) {
        sgl[i].LogicalAddress = source.lam->AdapterPageArray[i];
        sgl[i].Length = left < PAGE_SIZE ? left : PAGE_SIZE;
        sgl[i].MemoryRegionToken = privileged;
        left -= sgl[i].Length;
    }
    CHECK(a.qp->Dispatch->NdkWrite(a.qp, NULL, sgl, k_pages, got.base, got.token, 0) ==
              STATUS_SUCCESS,
          "Write");
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_SUCCESS, "write: %s", ndksim_status_name(r.Status));
    CHECK(memcmp(target.bytes, source.bytes, k_length) == 0, "write: data differs");
    printf(
        "initiator: wrote %d bytes from privileged-token SGEs into the fast-registered "
        "region, data verified\n",
        k_length);

    /* And back: read the region into the first page of the initiator's registered buffer. */
    NDK_SGE sink = example_sge(&a, 4096, PAGE_SIZE);
    CHECK(a.qp->Dispatch->NdkRead(a.qp, NULL, &sink, 1, got.base + 1000, got.token, 0) ==
              STATUS_SUCCESS,
          "Read");
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_SUCCESS, "read: %s", ndksim_status_name(r.Status));
    CHECK(memcmp(a.buffer + 4096, target.bytes + 1000, PAGE_SIZE) == 0, "read: data differs");
    printf("initiator: read %d bytes back through the same token, data verified\n", PAGE_SIZE);

    /* Target invalidates the region: the token is dead, and a write with it is refused. */
    CHECK(b.qp->Dispatch->NdkInvalidate(b.qp, NULL, &fr->Header, 0) == STATUS_SUCCESS,
          "Invalidate");
    r = example_next(b.cq);
    CHECK(r.Status == STATUS_SUCCESS && r.Type == NdkOperationTypeInvalidate, "invalidate: %s",
          ndksim_status_name(r.Status));
    memset(target.bytes, 0xEE, 64);
    CHECK(a.qp->Dispatch->NdkWrite(a.qp, NULL, sgl, 1, got.base, got.token, 0) == STATUS_SUCCESS,
          "Write after invalidate");
    r = example_next(a.cq);
    CHECK(r.Status == STATUS_ACCESS_VIOLATION,
          "write after invalidate: %s, expected "
          "STATUS_ACCESS_VIOLATION",
          ndksim_status_name(r.Status));
    CHECK(target.bytes[0] == 0xEE, "a refused write changed the target's memory");
    printf(
        "target: region invalidated; the initiator's next write completed with %s and "
        "placed nothing\n",
        ndksim_status_name(r.Status));

    example_close(&listener->Header);
    example_close(&fr->Header);
    unmap_buffer(&b, &target);
    unmap_buffer(&a, &source);
    example_teardown(&a);
    example_teardown(&b);
    return example_finish("04_fast_register_lam");
}
