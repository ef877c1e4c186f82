// SPDX-License-Identifier: MIT
// Memory windows, fast registration, remote invalidation and the privileged token over the wire,
// in deterministic mode (REFERENCE.md rules 16, 18-24; docs/memory.md and
// docs/completion-statuses.md).

#include <ndksim/testkit/rc_pair.hpp>

#include "memory_pattern.hpp"

namespace ndksim::testkit {
namespace {

/// A host buffer mapped for the adapter through NdkBuildLAM (not registered as an MR).
struct lam_buffer {
    std::byte* block = nullptr;  ///< page-aligned allocation
    std::byte* bytes = nullptr;  ///< block + offset: what the MDL describes
    std::size_t size = 0;
    MDL* mdl = nullptr;
    NDK_LOGICAL_ADDRESS_MAPPING* lam = nullptr;
    ULONG fbo = 0;
    /// The logical address of byte `offset` (which must lie in the first page).
    NDK_LOGICAL_ADDRESS logical(ULONG page, ULONG offset) const {
        NDK_LOGICAL_ADDRESS a = lam->AdapterPageArray[page];
        a.QuadPart += offset;
        return a;
    }
};

/// A fast-register MR with its remote and local tokens after NdkFastRegister.
struct fr_region {
    NDK_MR* mr = nullptr;
    UINT64 base = 0;  ///< BaseVirtualAddress given to NdkFastRegister
    UINT32 token = 0;
};

class RcMemory : public RcPair {
  protected:
    NDK_MW* make_mw(side& s) {
        NDK_MW* mw = nullptr;
        slot ignored;
        EXPECT_NT_SUCCESS(s.pd->Dispatch->NdkCreateMw(s.pd, slot::on_create, &ignored, &mw));
        if (mw != nullptr) {
            track(&mw->Header);
        }
        return mw;
    }

    /// Binds `mw` over [offset, offset + length) of s.buf on s's QP; returns the window token.
    UINT32 bind(side& s, NDK_MW* mw, std::size_t offset, SIZE_T length,
                ULONG flags = NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE) {
        EXPECT_NT_SUCCESS(
            s.qp->Dispatch->NdkBind(s.qp, mw, s.buf.mr, mw, s.buf.bytes + offset, length, flags));
        const UINT32 token = mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
        const NDK_RESULT_EX r = next(s.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(NdkOperationTypeBind, r.Type);
        EXPECT_EQ(mw, r.RequestContext);
        EXPECT_EQ(token, mw->Dispatch->NdkGetRemoteTokenFromMw(mw));
        return token;
    }

    /// NdkInvalidate of `o` on s's QP; returns the completion status.
    NTSTATUS invalidate(side& s, NDK_OBJECT_HEADER* o) {
        EXPECT_NT_SUCCESS(s.qp->Dispatch->NdkInvalidate(s.qp, o, o, 0));
        const NDK_RESULT_EX r = next(s.cq);
        EXPECT_EQ(NdkOperationTypeInvalidate, r.Type);
        EXPECT_EQ(o, r.RequestContext);
        return r.Status;
    }

    /// a writes `length` bytes from a_.buf[src] to (address, token) at b; returns the status.
    NTSTATUS write_from_a(std::size_t src, ULONG length, UINT64 address, UINT32 token) {
        NDK_SGE s = a_.buf.sge(src, length);
        EXPECT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, address, token, 0));
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_EQ(NdkOperationTypeWrite, r.Type);
        return r.Status;
    }

    /// a reads `length` bytes from (address, token) at b into a_.buf[dst]; returns the status.
    NTSTATUS read_into_a(std::size_t dst, ULONG length, UINT64 address, UINT32 token) {
        NDK_SGE s = a_.buf.sge(dst, length);
        EXPECT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &s, 1, address, token, 0));
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_EQ(NdkOperationTypeRead, r.Type);
        return r.Status;
    }

    /// Maps `size` bytes starting `offset` bytes into a fresh page-aligned block on side `s`,
    /// negotiating the LAM size through STATUS_BUFFER_TOO_SMALL.
    lam_buffer build_lam(side& s, std::size_t size, std::size_t offset) {
        lam_buffer b;
        const std::size_t block = (offset + size + k_page - 1) / k_page * k_page;
        b.block = static_cast<std::byte*>(std::aligned_alloc(k_page, block));
        std::memset(b.block, 0, block);
        b.bytes = b.block + offset;
        b.size = size;
        b.mdl = IoAllocateMdl(b.bytes, static_cast<ULONG>(size), FALSE, FALSE, nullptr);
        EXPECT_NE(nullptr, b.mdl);
        MmBuildMdlForNonPagedPool(b.mdl);
        ULONG lam_size = 0;
        ULONG fbo = 0xFFFF;
        slot built;
        EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                         s.adapter->Dispatch->NdkBuildLAM(s.adapter, b.mdl, size, slot::on_request,
                                                          &built, nullptr, &lam_size, &fbo));
        const std::size_t pages = (offset % k_page + size + k_page - 1) / k_page;
        EXPECT_EQ(offsetof(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray) + 8 * pages, lam_size);
        b.lam = static_cast<NDK_LOGICAL_ADDRESS_MAPPING*>(std::malloc(lam_size));
        const NTSTATUS r = s.adapter->Dispatch->NdkBuildLAM(
            s.adapter, b.mdl, size, slot::on_request, &built, b.lam, &lam_size, &fbo);
        if (r == STATUS_PENDING) {
            wait(built, "NdkBuildLAM's completion");
            EXPECT_NT_SUCCESS(built.status);
        } else {
            EXPECT_NT_SUCCESS(r);
        }
        EXPECT_EQ(pages, b.lam->AdapterPageCount);
        EXPECT_EQ(offset % k_page, fbo);
        b.fbo = fbo;
        NDK_ADAPTER* adapter = s.adapter;
        at_teardown([adapter, b] {
            adapter->Dispatch->NdkReleaseLAM(adapter, b.lam);
            std::free(b.lam);
            IoFreeMdl(b.mdl);
            std::free(b.block);
        });
        return b;
    }

    /// A fast-register MR on side `s` initialized for `pages` pages with remote access.
    NDK_MR* make_fr_mr(side& s, ULONG pages, BOOLEAN remote) {
        NDK_MR* mr = nullptr;
        slot created;
        EXPECT_NT_SUCCESS(s.pd->Dispatch->NdkCreateMr(s.pd, TRUE, slot::on_create, &created, &mr));
        if (mr == nullptr) {
            return nullptr;
        }
        track(&mr->Header);
        slot initialized;
        const NTSTATUS r = mr->Dispatch->NdkInitializeFastRegisterMr(
            mr, pages, remote, slot::on_request, &initialized);
        if (r == STATUS_PENDING) {
            wait(initialized, "NdkInitializeFastRegisterMr's completion");
            EXPECT_NT_SUCCESS(initialized.status);
        } else {
            EXPECT_NT_SUCCESS(r);
        }
        return mr;
    }

    /// Fast-registers all of `b` under `mr` at BaseVirtualAddress `base_page` + FBO on s's QP.
    fr_region fast_register(side& s, NDK_MR* mr, const lam_buffer& b, UINT64 base_page,
                            ULONG flags) {
        fr_region f;
        f.mr = mr;
        f.base = base_page + b.fbo;
        EXPECT_NT_SUCCESS(s.qp->Dispatch->NdkFastRegister(s.qp, mr, mr, b.lam->AdapterPageCount,
                                                          b.lam->AdapterPageArray, b.fbo, b.size,
                                                          reinterpret_cast<PVOID>(f.base), flags));
        f.token = mr->Dispatch->NdkGetRemoteTokenFromMr(mr);
        const NDK_RESULT_EX r = next(s.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(NdkOperationTypeFastRegister, r.Type);
        EXPECT_EQ(mr, r.RequestContext);
        EXPECT_EQ(f.token, mr->Dispatch->NdkGetLocalTokenFromMr(mr));
        return f;
    }
};

// ---- memory windows ----------------------------------------------------------------------------

TEST_F(RcMemory, BoundWindowCarriesWritesAndReadsWithinItsRange) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 token = bind(b_, mw, 65536, 65536);
    EXPECT_NE(b_.buf.remote_token, token);
    const UINT64 window = b_.buf.address() + 65536;
    fill(a_.buf.bytes, 8192, 3);
    EXPECT_NT_SUCCESS(write_from_a(0, 8192, window + 100, token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 65536 + 100, 8192));
    std::memset(a_.buf.bytes + 16384, 0, 8192);
    EXPECT_NT_SUCCESS(read_into_a(16384, 8192, window + 100, token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, a_.buf.bytes + 16384, 8192));
    // Inside the MR but beyond the window: refused, nothing placed.
    std::memset(b_.buf.bytes + 65536 + 65536 - 100, 0x77, 4096);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 4096, window + 65536 - 100, token));
    EXPECT_EQ(std::byte{0x77}, b_.buf.bytes[65536 + 65536 - 100]);
    EXPECT_EQ(std::byte{0x77}, b_.buf.bytes[65536 + 65536 + 100]);
}

TEST_F(RcMemory, ReadOnlyWindowRefusesARemoteWrite) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 token = bind(b_, mw, 0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    fill(b_.buf.bytes, 4096, 1);
    EXPECT_NT_SUCCESS(read_into_a(0, 4096, b_.buf.address(), token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, 4096));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 16, b_.buf.address(), token));
}

TEST_F(RcMemory, InvalidatedWindowRefusesItsTokenWithAccessViolation) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 token = bind(b_, mw, 0, 65536);
    EXPECT_NT_SUCCESS(write_from_a(0, 64, b_.buf.address(), token));
    EXPECT_NT_SUCCESS(invalidate(b_, &mw->Header));
    std::memset(b_.buf.bytes, 0x5A, 4096);
    fill(a_.buf.bytes, 4096, 9);
    NDK_SGE s = a_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, b_.buf.address(), token, 0));
    const NDK_RESULT_EX r = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, r.Status);
    EXPECT_EQ(0x102U, r.ProviderErrorCode);
    EXPECT_EQ(std::byte{0x5A}, b_.buf.bytes[0]);
    EXPECT_EQ(std::byte{0x5A}, b_.buf.bytes[4095]);
}

TEST_F(RcMemory, RebindIssuesANewTokenAndTheOldOneStaysRefused) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 first = bind(b_, mw, 0, 65536);
    EXPECT_NT_SUCCESS(invalidate(b_, &mw->Header));
    const UINT32 second = bind(b_, mw, 65536, 65536);
    EXPECT_NE(first, second);
    fill(a_.buf.bytes, 256, 4);
    EXPECT_NT_SUCCESS(write_from_a(0, 256, b_.buf.address() + 65536, second));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 65536, 256));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 256, b_.buf.address(), first));
}

// A bind on a window still bound breaks a verifier rule (docs/verifier.md, bind-bound-window);
// in report mode the provider's answer is the same as without the verifier.
class RcMemoryVerified : public RcMemory {
  protected:
    RcMemoryVerified() { verifier_ = NDKSIM_VERIFIER_REPORT; }

    /// The one report that arrived since `before`: its rule and call must match.
    verifier_record only_report(std::size_t before, ULONG rule, const char* call) {
        EXPECT_EQ(before + 1, log_.size());
        const std::vector<verifier_record> all = log_.records();
        if (all.size() != before + 1) {
            return {};
        }
        EXPECT_EQ(rule, all.back().rule) << all.back().text;
        EXPECT_EQ(call, all.back().call);
        EXPECT_NE(std::string::npos, all.back().object.find("/qp#")) << all.back().object;
        return all.back();
    }

    verifier_log log_;
};

TEST_F(RcMemoryVerified, RebindWithoutInvalidateAlsoRetiresTheOldTokenAndIsReported) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 first = bind(b_, mw, 0, 65536);
    const std::size_t before = log_.size();
    const UINT32 second = bind(b_, mw, 0, 65536);
    const verifier_record r = only_report(before, NDKSIM_RULE_BIND_BOUND_WINDOW, "NdkBind");
    EXPECT_NT_SUCCESS(r.status) << "the bind goes on";
    EXPECT_NE(first, second);
    EXPECT_NT_SUCCESS(write_from_a(0, 64, b_.buf.address(), second));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address(), first));
}

TEST_F(RcMemoryVerified, FastRegisterOntoAValidMrIsReportedAndFails) {
    const lam_buffer lb = build_lam(b_, k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, TRUE);
    // Invalidated in between, fast registering again is correct.
    (void)fast_register(b_, mr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    EXPECT_NT_SUCCESS(invalidate(b_, &mr->Header));
    (void)fast_register(b_, mr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const std::size_t before = log_.size();
    EXPECT_EQ(0U, before);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkFastRegister(
        b_.qp, mr, mr, lb.lam->AdapterPageCount, lb.lam->AdapterPageArray, lb.fbo, lb.size,
        reinterpret_cast<PVOID>(0x40000000), NDK_OP_FLAG_ALLOW_REMOTE_READ));
    const NDK_RESULT_EX done = next(b_.cq);
    EXPECT_NT_STATUS(STATUS_INVALID_DEVICE_STATE, done.Status);
    EXPECT_EQ(NdkOperationTypeFastRegister, done.Type);
    only_report(before, NDKSIM_RULE_FAST_REGISTER_VALID_MR, "NdkFastRegister");
}

TEST_F(RcMemoryVerified, InvalidateOfAnotherPdsMrIsReportedAndRefused) {
    slot created;
    NDK_PD* other = nullptr;
    ASSERT_NT_SUCCESS(
        b_.adapter->Dispatch->NdkCreatePd(b_.adapter, slot::on_create, &created, &other));
    track(&other->Header);
    NDK_MR* mr = nullptr;
    ASSERT_NT_SUCCESS(other->Dispatch->NdkCreateMr(other, TRUE, slot::on_create, &created, &mr));
    track(&mr->Header);
    slot initialized;
    const NTSTATUS init =
        mr->Dispatch->NdkInitializeFastRegisterMr(mr, 4, TRUE, slot::on_request, &initialized);
    if (init == STATUS_PENDING) {
        ASSERT_TRUE(wait(initialized, "NdkInitializeFastRegisterMr's completion"));
    } else {
        ASSERT_NT_SUCCESS(init);
    }
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(STATUS_ACCESS_VIOLATION,
                     b_.qp->Dispatch->NdkInvalidate(b_.qp, nullptr, &mr->Header, 0));
    const verifier_record r =
        only_report(before, NDKSIM_RULE_INVALIDATE_FOREIGN_PD, "NdkInvalidate");
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, r.status);
}

// ---- SendAndInvalidate -------------------------------------------------------------------------

TEST_F(RcMemory, SendAndInvalidateReportsTheTokenAndInvalidatesItAtTheReceiver) {
    NDK_MW* mw1 = make_mw(b_);
    NDK_MW* mw2 = make_mw(b_);
    UINT32 t1 = bind(b_, mw1, 0, 65536);
    UINT32 t2 = bind(b_, mw2, 65536, 65536);
    NDK_SGE r1 = b_.buf.sge(131072, 4096);
    NDK_SGE r2 = b_.buf.sge(135168, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, &r1, &r1, 1));
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, &r2, &r2, 1));
    fill(a_.buf.bytes, 200, 6);
    NDK_SGE s = a_.buf.sge(0, 200);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, &t1, &s, 1, 0, t1));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, &t2, &s, 1, 0, t2));
    for (const UINT32* t : {&t1, &t2}) {
        const NDK_RESULT_EX sent = next(a_.cq);
        EXPECT_NT_SUCCESS(sent.Status);
        EXPECT_EQ(NdkOperationTypeSend, sent.Type) << "the sender sees a plain send";
        EXPECT_EQ(t, sent.RequestContext);
    }
    // The first through NdkGetCqResultsEx: type and token.
    const NDK_RESULT_EX got = next(b_.cq);
    EXPECT_NT_SUCCESS(got.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, got.Type);
    EXPECT_EQ(static_cast<ULONG_PTR>(t1), got.TypeSpecificCompletionOutput);
    EXPECT_EQ(200U, got.BytesTransferred);
    EXPECT_EQ(&r1, got.RequestContext);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 131072, 200));
    // The second through plain NdkGetCqResults (rule 16): still retrievable.
    NDK_RESULT plain{};
    ASSERT_TRUE(drive([&] { return b_.cq->Dispatch->NdkGetCqResults(b_.cq, &plain, 1) == 1; },
                      "the second receive"));
    EXPECT_NT_SUCCESS(plain.Status);
    EXPECT_EQ(200U, plain.BytesTransferred);
    EXPECT_EQ(&r2, plain.RequestContext);
    // Both tokens are gone at b, also the one only plain NdkGetCqResults saw.
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address() + 65536, t2));
}

TEST_F(RcMemory, AWriteWithARemotelyInvalidatedTokenIsRefused) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 t = bind(b_, mw, 0, 65536);
    NDK_SGE r = b_.buf.sge(131072, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 16);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, t));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    const NDK_RESULT_EX got = next(b_.cq);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, got.Type);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address(), t));
}

TEST_F(RcMemory, NdkInvalidateOfARemotelyInvalidatedWindowFails) {
    NDK_MW* mw = make_mw(b_);
    const UINT32 t = bind(b_, mw, 0, 65536);
    NDK_SGE r = b_.buf.sge(131072, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 16);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, t));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, next(b_.cq).Type);
    // Rule 16: a later NdkInvalidate of the same token fails (docs/memory.md: not bound).
    EXPECT_NT_STATUS(STATUS_INVALID_DEVICE_STATE, invalidate(b_, &mw->Header));
}

TEST_F(RcMemory, SendAndInvalidateWithATokenNotValidAtTheReceiverAbortsTheConnection) {
    NDK_SGE r = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, &r, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, &s, &s, 1, 0, 0xBAD0BAD0));
    const NDK_RESULT_EX received = next(b_.cq);
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, received.Status);
    EXPECT_EQ(&r, received.RequestContext);
    const NDK_RESULT_EX sent = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, sent.Status);
    EXPECT_EQ(0x103U, sent.ProviderErrorCode);
    EXPECT_EQ(NdkOperationTypeSend, sent.Type);
    // Both QPs are in error: initiator posts fail inline.
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, 0));
    NDK_SGE bs = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     b_.qp->Dispatch->NdkSend(b_.qp, nullptr, &bs, 1, 0));
}

// ---- fast registration -------------------------------------------------------------------------

TEST_F(RcMemory, FastRegisteredLamCarriesWritesAndReadsThroughItsToken) {
    constexpr std::size_t size = 5 * k_page;
    const lam_buffer lb = build_lam(b_, size, 100);  // FBO 100, 6 pages
    NDK_MR* mr = make_fr_mr(b_, 8, TRUE);
    const fr_region fr = fast_register(
        b_, mr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    fill(a_.buf.bytes, size, 11);
    EXPECT_NT_SUCCESS(write_from_a(0, size, fr.base, fr.token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, lb.bytes, size));
    std::memset(a_.buf.bytes + 65536, 0, size);
    EXPECT_NT_SUCCESS(read_into_a(65536, 3000, fr.base + 10000, fr.token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes + 65536, lb.bytes + 10000, 3000));
    // Beyond the registered length: refused.
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, fr.base + size - 32, fr.token));
}

TEST_F(RcMemory, InvalidatedFastRegisteredRegionRefusesRemoteAccess) {
    const lam_buffer lb = build_lam(b_, 2 * k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, TRUE);
    const fr_region fr = fast_register(
        b_, mr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    EXPECT_NT_SUCCESS(write_from_a(0, 64, fr.base, fr.token));
    EXPECT_NT_SUCCESS(invalidate(b_, &mr->Header));
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &s, 1, fr.base, fr.token, 0));
    const NDK_RESULT_EX r = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, r.Status);
    EXPECT_EQ(0x102U, r.ProviderErrorCode);
}

// The token read once after NdkInitializeFastRegisterMr serves every later fast register of
// the MR (docs/rules-beyond-reference.md): a consumer built like Microsoft's NDK sample sends
// it to the peer once, and the peer keeps using it.
TEST_F(RcMemory, TheTokenReadAfterInitializeServesEveryLaterFastRegister) {
    const lam_buffer lb = build_lam(b_, k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, TRUE);
    const UINT32 sent_to_peer = mr->Dispatch->NdkGetRemoteTokenFromMr(mr);
    const ULONG flags = NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE;
    const fr_region first = fast_register(b_, mr, lb, 0x40000000, flags);
    EXPECT_EQ(sent_to_peer, first.token);
    fill(a_.buf.bytes, 512, 1);
    EXPECT_NT_SUCCESS(write_from_a(0, 512, first.base, sent_to_peer));
    EXPECT_NT_SUCCESS(invalidate(b_, &mr->Header));
    const fr_region second = fast_register(b_, mr, lb, 0x50000000, flags);
    EXPECT_EQ(sent_to_peer, second.token);
    fill(a_.buf.bytes, 512, 2);
    EXPECT_NT_SUCCESS(write_from_a(0, 512, second.base + 8, sent_to_peer));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, lb.bytes + 8, 512));
}

// The strict option: each fast register issues a new token, so a peer still holding the old
// one is refused, which catches a consumer that never sends the new token.
class RcMemoryRotatingTokens : public RcMemory {
  protected:
    RcMemoryRotatingTokens() { rotate_fast_register_tokens_ = TRUE; }
};

TEST_F(RcMemoryRotatingTokens, FastRegisterAgainAfterInvalidateWorksUnderANewToken) {
    const lam_buffer lb = build_lam(b_, k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, TRUE);
    const ULONG flags = NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE;
    const fr_region first = fast_register(b_, mr, lb, 0x40000000, flags);
    EXPECT_NT_SUCCESS(invalidate(b_, &mr->Header));
    const fr_region second = fast_register(b_, mr, lb, 0x50000000, flags);
    EXPECT_NE(first.token, second.token);
    fill(a_.buf.bytes, 512, 2);
    EXPECT_NT_SUCCESS(write_from_a(0, 512, second.base + 8, second.token));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, lb.bytes + 8, 512));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 16, first.base, first.token));
}

TEST_F(RcMemory, FastRegisterWithRemoteFlagsOnALocalOnlyMrIsRefusedInline) {
    const lam_buffer lb = build_lam(b_, k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, FALSE);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION,
                     b_.qp->Dispatch->NdkFastRegister(b_.qp, nullptr, mr, lb.lam->AdapterPageCount,
                                                      lb.lam->AdapterPageArray, 0, lb.size,
                                                      reinterpret_cast<PVOID>(0x40000000),
                                                      NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    EXPECT_TRUE(cq_empty(b_.cq));
}

// ---- the privileged token ----------------------------------------------------------------------

TEST_F(RcMemory, PrivilegedTokenSgesServeAsSendWriteSourceAndReadSink) {
    UINT32 privileged = 0;
    a_.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(a_.pd, &privileged);
    ASSERT_NE(0U, privileged);
    const lam_buffer lb = build_lam(a_, 3 * k_page, 0);
    // One SGE per LAM page: consecutive logical pages need not be contiguous.
    NDK_SGE sgl[3];
    for (ULONG i = 0; i < 3; ++i) {
        sgl[i].LogicalAddress = lb.logical(i, 0);
        sgl[i].Length = k_page;
        sgl[i].MemoryRegionToken = privileged;
    }
    fill(lb.bytes, 3 * k_page, 21);
    // Send.
    NDK_SGE r = b_.buf.sge(0, 4 * k_page);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, sgl, 3, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    const NDK_RESULT_EX got = next(b_.cq);
    EXPECT_NT_SUCCESS(got.Status);
    EXPECT_EQ(3 * k_page, got.BytesTransferred);
    EXPECT_EQ(0, std::memcmp(lb.bytes, b_.buf.bytes, 3 * k_page));
    // Write (part of the second page).
    NDK_SGE part{};
    part.LogicalAddress = lb.logical(1, 100);
    part.Length = 1000;
    part.MemoryRegionToken = privileged;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &part, 1, b_.buf.address() + 65536,
                                                b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(0, std::memcmp(lb.bytes + k_page + 100, b_.buf.bytes + 65536, 1000));
    // Read sink.
    fill(b_.buf.bytes + 131072, 3 * k_page, 77);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, sgl, 3, b_.buf.address() + 131072,
                                               b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(0, std::memcmp(lb.bytes, b_.buf.bytes + 131072, 3 * k_page));
}

TEST_F(RcMemory, PrivilegedTokenIsNeverARemoteToken) {
    UINT32 privileged = 0;
    b_.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(b_.pd, &privileged);
    const lam_buffer lb = build_lam(b_, k_page, 0);
    EXPECT_NT_STATUS(
        STATUS_ACCESS_VIOLATION,
        write_from_a(0, 64, static_cast<UINT64>(lb.logical(0, 0).QuadPart), privileged));
}

TEST_F(RcMemory, ReadLocalInvalidateInvalidatesTheFirstLocalSgesToken) {
    NDK_ADAPTER_INFO info{};
    ULONG size = sizeof info;
    ASSERT_NT_SUCCESS(a_.adapter->Dispatch->NdkQueryAdapterInfo(a_.adapter, &info, &size));
    ASSERT_NE(0U, info.AdapterFlags & NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED);
    const lam_buffer lb = build_lam(a_, 2 * k_page, 0);
    NDK_MR* mr = make_fr_mr(a_, 4, FALSE);
    const fr_region fr = fast_register(a_, mr, lb, 0x60000000, NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
    fill(b_.buf.bytes, 2 * k_page, 33);
    NDK_SGE sink{};
    sink.VirtualAddress = reinterpret_cast<PVOID>(fr.base);
    sink.Length = 2 * k_page;
    sink.MemoryRegionToken = fr.token;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &sink, 1, b_.buf.address(),
                                               b_.buf.remote_token,
                                               NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE));
    const NDK_RESULT_EX r = next(a_.cq);
    EXPECT_NT_SUCCESS(r.Status);
    EXPECT_EQ(NdkOperationTypeRead, r.Type);
    EXPECT_EQ(0, std::memcmp(lb.bytes, b_.buf.bytes, 2 * k_page));
    // The token is gone: using it as a local SGE fails locally.
    NDK_SGE src = sink;
    src.Length = 64;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &src, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    const NDK_RESULT_EX w = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, w.Status);
    EXPECT_EQ(0U, w.ProviderErrorCode);
}

// Requests run in queue order (REFERENCE.md rule 8): an NdkInvalidate posted right behind a
// write from the region it invalidates takes effect after the write has read its payload, even
// when that write's packets have not all left when the requester reaches the invalidate.
TEST_F(RcMemory, AnInvalidatePostedBehindALongWriteFromTheRegionWaitsForItsPayload) {
    const lam_buffer lb = build_lam(a_, 8 * k_page, 0);
    fill(lb.bytes, 8 * k_page, 21);
    NDK_MR* mr = make_fr_mr(a_, 8, FALSE);
    const fr_region fr = fast_register(a_, mr, lb, 0x60000000, NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
    NDK_SGE src{};
    src.VirtualAddress = reinterpret_cast<PVOID>(fr.base);
    src.Length = 8 * k_page;
    src.MemoryRegionToken = fr.token;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &src, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkInvalidate(a_.qp, mr, &mr->Header, 0));
    const NDK_RESULT_EX written = next(a_.cq);
    EXPECT_EQ(NdkOperationTypeWrite, written.Type);
    EXPECT_NT_SUCCESS(written.Status);
    const NDK_RESULT_EX invalidated = next(a_.cq);
    EXPECT_EQ(NdkOperationTypeInvalidate, invalidated.Type);
    EXPECT_NT_SUCCESS(invalidated.Status);
    EXPECT_EQ(0, std::memcmp(b_.buf.bytes, lb.bytes, 8 * k_page));
}

TEST_F(RcMemory, ReadWithoutLocalInvalidateKeepsTheToken) {
    const lam_buffer lb = build_lam(a_, k_page, 0);
    NDK_MR* mr = make_fr_mr(a_, 4, FALSE);
    const fr_region fr = fast_register(a_, mr, lb, 0x60000000, NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
    NDK_SGE sink{};
    sink.VirtualAddress = reinterpret_cast<PVOID>(fr.base);
    sink.Length = k_page;
    sink.MemoryRegionToken = fr.token;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &sink, 1, b_.buf.address(),
                                               b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(invalidate(a_, &mr->Header));
}

TEST_F(RcMemory, BindWithRemoteWriteOnAnMrWithoutLocalWriteIsRefusedInline) {
    buffer ro = register_buffer(b_, 65536, NDK_MR_FLAG_ALLOW_REMOTE_READ);
    at_teardown([this, ro]() mutable { release_buffer(b_, ro); });
    NDK_MW* mw = make_mw(b_);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION,
                     b_.qp->Dispatch->NdkBind(b_.qp, nullptr, ro.mr, mw, ro.bytes, 4096,
                                              NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    // A range outside the MR is a bad parameter.
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     b_.qp->Dispatch->NdkBind(b_.qp, nullptr, ro.mr, mw, ro.bytes + 61440, 8192,
                                              NDK_OP_FLAG_ALLOW_REMOTE_READ));
    EXPECT_TRUE(cq_empty(b_.cq)) << "an inline failure produced a completion";
    // The QP is still fine: a read-only bind works.
    const UINT32 token = bind(b_, mw, 0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    (void)token;
}

TEST_F(RcMemory, RemoteWriteWithoutLocalWriteIsInvalidParameterForRegisterFastRegisterAndBind) {
    // The distinct remote-write bit alone (MR 0x4, OP 0x20): IBA memory registration needs
    // local write along with remote write; the NDK flag values include it (rule 19).
    constexpr ULONG k_mr_remote_write_bit = NDK_MR_FLAG_ALLOW_REMOTE_WRITE & ~ULONG{0x1};
    constexpr ULONG k_op_remote_write_bit =
        NDK_OP_FLAG_ALLOW_REMOTE_WRITE & ~ULONG{NDK_OP_FLAG_ALLOW_LOCAL_WRITE};
    static_assert(k_mr_remote_write_bit == 0x4 && k_op_remote_write_bit == 0x20);
    NDK_MR* mr = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.pd->Dispatch->NdkCreateMr(b_.pd, FALSE, slot::on_create, &created, &mr));
    track(&mr->Header);
    slot registered;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     mr->Dispatch->NdkRegisterMr(mr, b_.buf.mdl, 4096, k_mr_remote_write_bit,
                                                 slot::on_request, &registered));
    EXPECT_NT_STATUS(
        STATUS_INVALID_PARAMETER,
        mr->Dispatch->NdkRegisterMr(mr, b_.buf.mdl, 4096,
                                    k_mr_remote_write_bit | NDK_MR_FLAG_ALLOW_REMOTE_READ,
                                    slot::on_request, &registered));
    EXPECT_EQ(0, registered.calls);

    const lam_buffer lb = build_lam(b_, k_page, 0);
    NDK_MR* fr = make_fr_mr(b_, 4, TRUE);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     b_.qp->Dispatch->NdkFastRegister(
                         b_.qp, nullptr, fr, lb.lam->AdapterPageCount, lb.lam->AdapterPageArray, 0,
                         lb.size, reinterpret_cast<PVOID>(0x40000000), k_op_remote_write_bit));
    NDK_MW* mw = make_mw(b_);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     b_.qp->Dispatch->NdkBind(b_.qp, nullptr, b_.buf.mr, mw, b_.buf.bytes, 4096,
                                              k_op_remote_write_bit));
    EXPECT_TRUE(cq_empty(b_.cq)) << "an inline failure produced a completion";
    // The full flag values still work on the same objects.
    bind(b_, mw, 0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    fast_register(b_, fr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
}

TEST_F(RcMemory, SendAndInvalidateOfAFastRegisteredTokenInvalidatesTheRegion) {
    const lam_buffer lb = build_lam(b_, 2 * k_page, 0);
    NDK_MR* mr = make_fr_mr(b_, 4, TRUE);
    const fr_region fr = fast_register(
        b_, mr, lb, 0x40000000, NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    EXPECT_NT_SUCCESS(write_from_a(0, 64, fr.base, fr.token));
    NDK_SGE r = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 32);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, fr.token));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    const NDK_RESULT_EX got = next(b_.cq);
    EXPECT_NT_SUCCESS(got.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, got.Type);
    EXPECT_EQ(static_cast<ULONG_PTR>(fr.token), got.TypeSpecificCompletionOutput);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, read_into_a(0, 64, fr.base, fr.token));
}

TEST_F(RcMemory, SendAndInvalidateOfARegisteredMrTokenAbortsTheConnection) {
    // NdkInvalidate never applies to NdkRegisterMr regions (rule 22), so the token is not one
    // the receiver can invalidate.
    NDK_SGE r = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 32);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, b_.buf.remote_token));
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, next(b_.cq).Status);
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, next(a_.cq).Status);
}

}  // namespace
}  // namespace ndksim::testkit

namespace ndksim::testkit {
namespace {

// A bound window pins its region (docs/memory.md): the MR cannot be deregistered under it, and
// its close stays pending until the window lets go.
TEST_F(RcMemory, MrWithABoundWindowRefusesDeregisterAndItsClosePendsUntilTheWindowGoes) {
    buffer extra =
        register_buffer(b_, 65536, NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
    NDK_MW* mw = make_mw(b_);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkBind(b_.qp, nullptr, extra.mr, mw, extra.bytes, 4096,
                                               NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    ASSERT_NT_SUCCESS(next(b_.cq).Status);
    slot deregistered;
    EXPECT_NT_STATUS(STATUS_DEVICE_BUSY, extra.mr->Dispatch->NdkDeregisterMr(
                                             extra.mr, slot::on_request, &deregistered));
    slot closed;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     extra.mr->Dispatch->NdkCloseMr(&extra.mr->Header, slot::on_close, &closed));
    settle();
    EXPECT_EQ(0, closed.calls) << "the MR closed while a window was bound to it";
    EXPECT_NT_SUCCESS(invalidate(b_, &mw->Header));
    ASSERT_TRUE(drive([&] { return closed.calls == 1; }, "the MR's close completion"));
    EXPECT_EQ(0, deregistered.calls);
    IoFreeMdl(extra.mdl);
    std::free(extra.bytes);
}

}  // namespace
}  // namespace ndksim::testkit
