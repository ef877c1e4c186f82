// SPDX-License-Identifier: MIT
// Many connected QPs and many registered MRs on one pair of adapters: every QP carries
// writes, every MR is reachable by its own token, the bytes land where each token says, and
// the memory unit's translation metadata stays within 16 bytes per registered page. Moderate
// counts (the figures at 10,000 QPs and 1,000,000 MRs come from bench/scale).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

constexpr std::size_t k_qps = 64;
constexpr std::size_t k_mrs = 4096;
constexpr std::size_t k_pages = 16;  // MR i covers page i % k_pages of its side's buffer
constexpr std::size_t k_page_bytes = 4096;
constexpr std::uint64_t k_max_page_bytes = 16;  // translation metadata per registered page

class Scale : public RcPair {
  protected:
    // k_mrs one-page MRs over k_pages pages of one buffer (the same page in several MRs).
    struct many_mrs {
        std::byte* bytes = nullptr;
        MDL* mdl = nullptr;
        std::vector<NDK_MR*> mrs;
        std::vector<UINT32> tokens;
        std::vector<MDL*> page_mdls;
    };

    void register_many(side& s, many_mrs& m, std::size_t count) {
        m.bytes = static_cast<std::byte*>(std::aligned_alloc(k_page_bytes, k_pages * k_page_bytes));
        std::memset(m.bytes, 0, k_pages * k_page_bytes);
        for (std::size_t p = 0; p < k_pages; ++p) {
            MDL* mdl =
                IoAllocateMdl(m.bytes + p * k_page_bytes, k_page_bytes, FALSE, FALSE, nullptr);
            MmBuildMdlForNonPagedPool(mdl);
            m.page_mdls.push_back(mdl);
        }
        for (std::size_t i = 0; i < count; ++i) {
            slot created;
            NDK_MR* mr = nullptr;
            ASSERT_NT_SUCCESS(
                s.pd->Dispatch->NdkCreateMr(s.pd, FALSE, slot::on_create, &created, &mr));
            slot registered;
            ASSERT_NT_SUCCESS(mr->Dispatch->NdkRegisterMr(
                mr, m.page_mdls[i % k_pages], k_page_bytes,
                NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE, slot::on_request,
                &registered));
            m.mrs.push_back(mr);
            m.tokens.push_back(mr->Dispatch->NdkGetRemoteTokenFromMr(mr));
        }
    }

    void release_many(many_mrs& m) {
        for (NDK_MR* mr : m.mrs) {
            slot deregistered;
            EXPECT_NT_SUCCESS(mr->Dispatch->NdkDeregisterMr(mr, slot::on_request, &deregistered));
            close(&mr->Header);
        }
        for (MDL* mdl : m.page_mdls) {
            IoFreeMdl(mdl);
        }
        std::free(m.bytes);
    }

    static ndksim_adapter_stats stats(const side& s) {
        ndksim_adapter_stats st{};
        st.size = sizeof st;
        EXPECT_NT_SUCCESS(ndksim_adapter_get_stats(s.nic, &st));
        return st;
    }
};

TEST_F(Scale, EveryQpAndEveryMrOfAThousandsStrongSetCarriesWritesToTheRightBytes) {
    std::vector<NDK_QP*> aqps;
    std::vector<NDK_QP*> bqps;
    for (std::size_t i = 0; i < k_qps; ++i) {
        aqps.push_back(make_qp(a_, a_.cq));
        bqps.push_back(make_qp(b_, b_.cq));
        connect_qps(aqps.back(), bqps.back());
    }
    many_mrs src;
    many_mrs dst;
    register_many(a_, src, k_qps);
    register_many(b_, dst, k_mrs);
    ASSERT_EQ(k_mrs, dst.tokens.size());

    // Write i: 8 bytes holding i, from a local MR on QP i % k_qps, to the 8-byte slot i / k_pages
    // of remote MR i, whose page is i % k_pages. Every (page, slot) pair is written once.
    for (std::size_t i = 0; i < k_mrs; ++i) {
        const std::uint64_t value = 0x5CA1E00000000000ULL | i;
        std::byte* local = src.bytes + (i % k_qps % k_pages) * k_page_bytes + (i % 256) * 8;
        std::memcpy(local, &value, sizeof value);
        NDK_SGE sge{};
        sge.VirtualAddress = local;
        sge.Length = sizeof value;
        sge.MemoryRegionToken = src.tokens[i % k_qps];
        const UINT64 remote = reinterpret_cast<UINT64>(dst.bytes) + (i % k_pages) * k_page_bytes +
                              (i / k_pages) * sizeof value;
        NDK_QP* qp = aqps[i % k_qps];
        ASSERT_NT_SUCCESS(qp->Dispatch->NdkWrite(qp, reinterpret_cast<PVOID>(i), &sge, 1, remote,
                                                 dst.tokens[i], 0));
        const NDK_RESULT_EX r = next(a_.cq);
        ASSERT_NT_SUCCESS(r.Status);
        ASSERT_EQ(i, reinterpret_cast<std::uintptr_t>(r.RequestContext));
    }
    for (std::size_t i = 0; i < k_mrs; ++i) {
        std::uint64_t landed = 0;
        std::memcpy(&landed, dst.bytes + (i % k_pages) * k_page_bytes + (i / k_pages) * 8, 8);
        ASSERT_EQ(0x5CA1E00000000000ULL | i, landed) << "write " << i;
    }

    EXPECT_EQ(k_qps + 1, stats(b_).qp_count);
    EXPECT_EQ(k_mrs, stats(a_).ops[NDKSIM_STATS_WRITE].completed);

    release_many(src);
    release_many(dst);
}

TEST_F(Scale, TranslationMetadataIsAtMostSixteenBytesPerRegisteredPage) {
    const ndksim_adapter_stats before = stats(b_);
    many_mrs dst;
    register_many(b_, dst, k_mrs);
    const ndksim_adapter_stats after = stats(b_);
    // The fixture's own 256 KiB buffer is registered too: every page of both counts.
    const std::uint64_t pages = after.memory_mapped_pages;
    EXPECT_EQ(before.memory_mapped_pages + k_mrs, pages);
    EXPECT_EQ(before.memory_entries + k_mrs, after.memory_entries);
    EXPECT_LE(after.memory_page_bytes, k_max_page_bytes * pages)
        << after.memory_page_bytes << " bytes for " << pages << " pages";
    release_many(dst);
    const ndksim_adapter_stats released = stats(b_);
    EXPECT_EQ(before.memory_mapped_pages, released.memory_mapped_pages);
    EXPECT_EQ(before.memory_entries, released.memory_entries);
}

}  // namespace
}  // namespace ndksim::testkit
