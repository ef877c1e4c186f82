// SPDX-License-Identifier: MIT
// The wdm.h MDL functions a consumer calls to describe and pin its buffers. Pinning goes to the
// process-wide simulated host (mem::host_memory::instance()), which hands out the page frame
// numbers written into the MDL's PFN array; NdkRegisterMr and NdkBuildLAM later read that array
// (REFERENCE.md 8.1).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <span>
#include <type_traits>
#include <unordered_set>

#include "mem/host_memory.hpp"
#include "mem/page.hpp"
#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::api {
namespace {

static_assert(std::is_same_v<PFN_NUMBER, std::uint64_t>,
              "the PFN array is handed to src/mem as std::uint64_t");
static_assert(PAGE_SIZE == mem::page_size && PAGE_SHIFT == mem::page_shift);

// IoAllocateMdl / IoFreeMdl bookkeeping: an MDL the library did not allocate, or one already
// freed, is reported instead of being passed to free().
struct mdl_registry {
    std::mutex mutex;
    std::unordered_set<const MDL*> live;
};

mdl_registry& live_mdls() {
    static mdl_registry* const r = new mdl_registry();  // never destroyed (static order)
    return *r;
}

std::uint64_t mdl_va(const MDL* m) {
    return reinterpret_cast<std::uintptr_t>(m->StartVa) + m->ByteOffset;
}

// ADDRESS_AND_SIZE_TO_SPAN_PAGES in 64-bit arithmetic: the PFN entries an MDL carries.
std::uint64_t pfn_entries(std::uint64_t va, std::uint64_t length) {
    return (mem::byte_offset(va) + length + mem::page_size - 1) >> mem::page_shift;
}

// The PFN entries of `m` that describe pinned pages (none for an empty range).
std::span<std::uint64_t> pinned_pfns(MDL* m) {
    return {MmGetMdlPfnArray(m), mem::span_pages(mdl_va(m), m->ByteCount)};
}

CSHORT with_flags(CSHORT flags, int set, int clear) {
    return static_cast<CSHORT>((flags | set) & ~clear);
}

void release_pins(MDL* m) {
    mem::host_memory::instance().unpin(pinned_pfns(m));
}

}  // namespace
}  // namespace ndksim::api

using namespace ndksim;

extern "C" __attribute__((visibility("default"))) PMDL IoAllocateMdl(
    PVOID VirtualAddress, ULONG Length, BOOLEAN SecondaryBuffer, BOOLEAN ChargeQuota, PIRP Irp) {
    static_cast<void>(SecondaryBuffer);
    static_cast<void>(ChargeQuota);
    if (Irp != nullptr) {
        NDKSIM_ERROR("IoAllocateMdl: IRPs are not supported; Irp must be NULL");
        return nullptr;
    }
    const auto va = reinterpret_cast<std::uintptr_t>(VirtualAddress);
    // Windows limits one MDL to 4 GiB minus a page (ByteCount and the span must fit a ULONG).
    if (Length > 0xFFFFFFFFu - PAGE_SIZE + 1 || !mem::range_fits(va, Length)) {
        return nullptr;
    }
    const std::uint64_t bytes = sizeof(MDL) + sizeof(PFN_NUMBER) * api::pfn_entries(va, Length);
    void* storage = std::calloc(1, bytes);
    if (storage == nullptr) {
        return nullptr;
    }
    auto* m = static_cast<MDL*>(storage);
    // MmInitializeMdl, including its 16-bit Size (which wraps for very large MDLs, as on Windows).
    m->Next = nullptr;
    m->Size = static_cast<CSHORT>(bytes);
    m->MdlFlags = 0;
    m->StartVa = reinterpret_cast<PVOID>(mem::page_align(va));
    m->ByteOffset = mem::byte_offset(va);
    m->ByteCount = Length;
    try {
        std::lock_guard lock(api::live_mdls().mutex);
        api::live_mdls().live.insert(m);
    } catch (const std::bad_alloc&) {
        std::free(storage);
        return nullptr;
    }
    return m;
}

extern "C" __attribute__((visibility("default"))) VOID IoFreeMdl(PMDL Mdl) {
    if (Mdl == nullptr) {
        return;
    }
    {
        std::lock_guard lock(api::live_mdls().mutex);
        if (api::live_mdls().live.erase(Mdl) == 0) {
            NDKSIM_ERROR("IoFreeMdl: {} was not allocated by IoAllocateMdl or was freed already",
                         static_cast<const void*>(Mdl));
            return;
        }
    }
    if ((Mdl->MdlFlags & MDL_PAGES_LOCKED) != 0) {
        NDKSIM_ERROR("IoFreeMdl: {} still has locked pages; unlocking them",
                     static_cast<const void*>(Mdl));
        api::release_pins(Mdl);
    } else if ((Mdl->MdlFlags & MDL_SOURCE_IS_NONPAGED_POOL) != 0) {
        api::release_pins(Mdl);
    }
    std::free(Mdl);
}

extern "C" __attribute__((visibility("default"))) VOID MmBuildMdlForNonPagedPool(
    PMDL MemoryDescriptorList) {
    MDL* m = MemoryDescriptorList;
    if (m == nullptr || (m->MdlFlags & MDL_PAGES_LOCKED) != 0) {
        NDKSIM_ERROR(
            "MmBuildMdlForNonPagedPool: NULL MDL, or its pages are locked by "
            "MmProbeAndLockPages");
        return;
    }
    // Building twice re-pins: the pins of the previous build are dropped first.
    if ((m->MdlFlags & MDL_SOURCE_IS_NONPAGED_POOL) != 0) {
        api::release_pins(m);
        m->MdlFlags = api::with_flags(m->MdlFlags, 0, MDL_SOURCE_IS_NONPAGED_POOL);
    }
    const std::uint64_t va = api::mdl_va(m);
    const std::span<std::uint64_t> pfns = api::pinned_pfns(m);
    if (m->ByteCount != 0) {
        const status st =
            mem::host_memory::instance().pin(reinterpret_cast<const void*>(va), m->ByteCount, pfns);
        if (st != status::success) {
            NDKSIM_ERROR("MmBuildMdlForNonPagedPool: cannot pin {:#x}+{:#x}: {}", va, m->ByteCount,
                         st);
            std::fill(pfns.begin(), pfns.end(), 0);
            return;
        }
    }
    m->MappedSystemVa = reinterpret_cast<PVOID>(va);
    m->MdlFlags = api::with_flags(m->MdlFlags, MDL_SOURCE_IS_NONPAGED_POOL, 0);
}

extern "C" __attribute__((visibility("default"))) VOID MmProbeAndLockPages(
    PMDL MemoryDescriptorList, KPROCESSOR_MODE AccessMode, LOCK_OPERATION Operation) {
    static_cast<void>(AccessMode);
    MDL* m = MemoryDescriptorList;
    if (m == nullptr || (m->MdlFlags & (MDL_PAGES_LOCKED | MDL_SOURCE_IS_NONPAGED_POOL)) != 0) {
        NDKSIM_ERROR(
            "MmProbeAndLockPages: NULL MDL, or it is already locked or describes "
            "nonpaged pool");
        return;
    }
    const std::uint64_t va = api::mdl_va(m);
    if (m->ByteCount != 0) {
        const status st = mem::host_memory::instance().pin(reinterpret_cast<const void*>(va),
                                                           m->ByteCount, api::pinned_pfns(m));
        if (st != status::success) {
            // Windows raises an exception here; without structured exceptions it is fatal
            // (wdm.h documents this).
            NDKSIM_ERROR("MmProbeAndLockPages: cannot lock {:#x}+{:#x}: {}", va, m->ByteCount, st);
            std::abort();
        }
    }
    const int write = Operation == IoReadAccess ? 0 : MDL_WRITE_OPERATION;
    m->MdlFlags = api::with_flags(m->MdlFlags, MDL_PAGES_LOCKED | write, 0);
}

extern "C" __attribute__((visibility("default"))) VOID MmUnlockPages(PMDL MemoryDescriptorList) {
    MDL* m = MemoryDescriptorList;
    if (m == nullptr || (m->MdlFlags & MDL_PAGES_LOCKED) == 0) {
        NDKSIM_ERROR("MmUnlockPages: NULL MDL, or its pages are not locked");
        return;
    }
    api::release_pins(m);
    if ((m->MdlFlags & MDL_MAPPED_TO_SYSTEM_VA) != 0) {
        m->MappedSystemVa = nullptr;
    }
    m->MdlFlags = api::with_flags(m->MdlFlags, 0,
                                  MDL_PAGES_LOCKED | MDL_WRITE_OPERATION | MDL_MAPPED_TO_SYSTEM_VA);
}

extern "C" __attribute__((visibility("default"))) SIZE_T MmSizeOfMdl(PVOID Base, SIZE_T Length) {
    return sizeof(MDL) +
           sizeof(PFN_NUMBER) * api::pfn_entries(reinterpret_cast<std::uintptr_t>(Base), Length);
}
