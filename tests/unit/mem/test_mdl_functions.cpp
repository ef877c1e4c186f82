// SPDX-License-Identifier: MIT
// The wdm.h MDL functions (src/api/mdl.cpp) against the process-wide simulated host.

#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"
#include "wdm.h"

namespace ndksim::mem::test {
namespace {

host_memory& host() {
    return host_memory::instance();
}

std::span<std::uint64_t> pfns_of(MDL* m) {
    return {MmGetMdlPfnArray(m),
            span_pages(reinterpret_cast<std::uintptr_t>(MmGetMdlVirtualAddress(m)),
                       MmGetMdlByteCount(m))};
}

TEST(MdlFunctions, SizeOfMdlCountsTheSpannedPages) {
    EXPECT_EQ(MmSizeOfMdl(reinterpret_cast<PVOID>(0x10000), 1), sizeof(MDL) + 8);
    EXPECT_EQ(MmSizeOfMdl(reinterpret_cast<PVOID>(0x10FFF), 2), sizeof(MDL) + 16);
    EXPECT_EQ(MmSizeOfMdl(reinterpret_cast<PVOID>(0x10000), 3 * page_size), sizeof(MDL) + 24);
    EXPECT_EQ(sizeof(MDL), 0x30u);
}

TEST(MdlFunctions, AllocateFormatsTheMdlAsMmInitializeMdl) {
    guarded_buffer buf(3 * page_size, 0x123);
    MDL* m = IoAllocateMdl(buf.data(), 5000, FALSE, FALSE, nullptr);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->Next, nullptr);
    EXPECT_EQ(m->StartVa, reinterpret_cast<PVOID>(page_align(buf.address())));
    EXPECT_EQ(m->ByteOffset, 0x123u);
    EXPECT_EQ(m->ByteCount, 5000u);
    EXPECT_EQ(m->MdlFlags, 0);
    EXPECT_EQ(static_cast<SIZE_T>(m->Size), MmSizeOfMdl(buf.data(), 5000));
    EXPECT_EQ(MmGetMdlVirtualAddress(m), buf.data());
    IoFreeMdl(m);
}

TEST(MdlFunctions, AllocateRefusesAnIrp) {
    guarded_buffer buf(page_size);
    EXPECT_EQ(IoAllocateMdl(buf.data(), 10, FALSE, FALSE, reinterpret_cast<PIRP>(0x1000)), nullptr);
}

TEST(MdlFunctions, ProbeAndLockFillsPfnsThatMapBackToTheBuffer) {
    guarded_buffer buf(2 * page_size, 0x40);
    MDL* m = IoAllocateMdl(buf.data(), 2 * page_size, FALSE, FALSE, nullptr);
    MmProbeAndLockPages(m, KernelMode, IoWriteAccess);
    EXPECT_EQ(m->MdlFlags & (MDL_PAGES_LOCKED | MDL_WRITE_OPERATION),
              MDL_PAGES_LOCKED | MDL_WRITE_OPERATION);
    const std::span<std::uint64_t> pfns = pfns_of(m);
    ASSERT_EQ(pfns.size(), 3u);
    for (std::size_t i = 0; i < pfns.size(); ++i) {
        EXPECT_NE(pfns[i], page_number(buf.address()) + i);
        EXPECT_EQ(host().frame_address(pfns[i]),
                  reinterpret_cast<std::byte*>(page_align(buf.address())) + i * page_size);
        EXPECT_GE(host().pin_count(pfns[i]), 1u);
    }
    MmUnlockPages(m);
    EXPECT_EQ(m->MdlFlags & (MDL_PAGES_LOCKED | MDL_WRITE_OPERATION), 0);
    EXPECT_EQ(host().pfn_of(buf.data()), 0u);
    IoFreeMdl(m);
}

TEST(MdlFunctions, ReadAccessLocksWithoutTheWriteFlag) {
    guarded_buffer buf(page_size);
    MDL* m = IoAllocateMdl(buf.data(), 100, FALSE, FALSE, nullptr);
    MmProbeAndLockPages(m, UserMode, IoReadAccess);
    EXPECT_EQ(m->MdlFlags & (MDL_PAGES_LOCKED | MDL_WRITE_OPERATION), MDL_PAGES_LOCKED);
    MmUnlockPages(m);
    IoFreeMdl(m);
}

TEST(MdlFunctions, PinsAreCountedPerMdl) {
    guarded_buffer buf(page_size);
    MDL* a = IoAllocateMdl(buf.data(), 100, FALSE, FALSE, nullptr);
    MDL* b = IoAllocateMdl(buf.data() + 200, 100, FALSE, FALSE, nullptr);
    MmProbeAndLockPages(a, KernelMode, IoModifyAccess);
    MmProbeAndLockPages(b, KernelMode, IoModifyAccess);
    const std::uint64_t pfn = pfns_of(a)[0];
    EXPECT_EQ(pfns_of(b)[0], pfn);
    EXPECT_EQ(host().pin_count(pfn), 2u);
    MmUnlockPages(a);
    EXPECT_EQ(host().pin_count(pfn), 1u);
    MmUnlockPages(b);
    EXPECT_EQ(host().pin_count(pfn), 0u);
    IoFreeMdl(a);
    IoFreeMdl(b);
}

TEST(MdlFunctions, NonPagedPoolMdlIsPinnedUntilFreed) {
    guarded_buffer buf(2 * page_size, 8);
    MDL* m = IoAllocateMdl(buf.data(), 300, FALSE, FALSE, nullptr);
    MmBuildMdlForNonPagedPool(m);
    EXPECT_NE(m->MdlFlags & MDL_SOURCE_IS_NONPAGED_POOL, 0);
    EXPECT_EQ(m->MappedSystemVa, buf.data());
    EXPECT_EQ(MmGetSystemAddressForMdlSafe(m, NormalPagePriority), buf.data());
    const std::uint64_t pfn = pfns_of(m)[0];
    EXPECT_EQ(host().pin_count(pfn), 1u);
    MmBuildMdlForNonPagedPool(m);  // building again does not add a pin
    EXPECT_EQ(host().pin_count(pfns_of(m)[0]), 1u);
    IoFreeMdl(m);
    EXPECT_EQ(host().pfn_of(buf.data()), 0u);
}

TEST(MdlFunctions, FreeingALockedMdlReleasesItsPins) {
    guarded_buffer buf(page_size);
    MDL* m = IoAllocateMdl(buf.data(), 10, FALSE, FALSE, nullptr);
    MmProbeAndLockPages(m, KernelMode, IoReadAccess);
    IoFreeMdl(m);
    EXPECT_EQ(host().pfn_of(buf.data()), 0u);
}

TEST(MdlFunctions, MisuseIsReportedNotFatal) {
    guarded_buffer buf(page_size);
    MDL* m = IoAllocateMdl(buf.data(), 10, FALSE, FALSE, nullptr);
    MmUnlockPages(m);  // never locked
    MmProbeAndLockPages(m, KernelMode, IoReadAccess);
    MmProbeAndLockPages(m, KernelMode, IoReadAccess);  // locked twice: refused
    EXPECT_EQ(host().pin_count(pfns_of(m)[0]), 1u);
    MmUnlockPages(m);
    IoFreeMdl(m);
    IoFreeMdl(m);  // double free: refused
    alignas(8) unsigned char storage[sizeof(MDL) + 8] = {};
    IoFreeMdl(reinterpret_cast<MDL*>(storage));  // not from IoAllocateMdl: refused
}

TEST(MdlFunctions, LockedChainRegistersAsOneRegion) {
    guarded_buffer buf(3 * page_size, 0x100);
    buf.fill_pattern(6);
    MDL* first = IoAllocateMdl(buf.data(), 5000, FALSE, FALSE, nullptr);
    MDL* second = IoAllocateMdl(buf.data() + 5000, 4000, FALSE, FALSE, nullptr);
    first->Next = second;
    MmProbeAndLockPages(first, KernelMode, IoModifyAccess);
    MmProbeAndLockPages(second, KernelMode, IoModifyAccess);
    std::vector<mdl_segment> chain;
    for (MDL* m = first; m != nullptr; m = m->Next) {
        chain.push_back({reinterpret_cast<std::uintptr_t>(MmGetMdlVirtualAddress(m)),
                         MmGetMdlByteCount(m), MmGetMdlByteOffset(m), pfns_of(m)});
    }
    translation_unit unit(host());
    const pd_id pd = unit.create_pd().id;
    const region_id mr = unit.create_region(pd, region_kind::normal).id;
    ASSERT_EQ(unit.register_region(mr, chain, 9000, access::local_write), status::success);
    const sge s{buf.address() + 4000, 2000, unit.local_token(mr)};
    sge_cursor c(unit, pd, access_op::local_read, std::span(&s, 1));
    std::vector<std::byte> out(2000);
    {
        const read_guard g = unit.read();
        ASSERT_TRUE(c.copy_from_host(g, out).ok());
    }
    EXPECT_EQ(std::memcmp(out.data(), buf.data() + 4000, 2000), 0);
    ASSERT_EQ(unit.destroy_region(mr), status::success);
    MmUnlockPages(second);
    MmUnlockPages(first);
    IoFreeMdl(second);
    IoFreeMdl(first);
    EXPECT_EQ(host().pfn_of(buf.data()), 0u);
}

}  // namespace
}  // namespace ndksim::mem::test
