// SPDX-License-Identifier: MIT
// Pool allocation. Each allocation is recorded with its tag, size and pool kind in a process-wide
// table, so frees are checked (double free, wrong tag) and live allocations can be counted and
// listed by tag for leak checks. Windows keeps the tag in a header before the block; the table
// keeps the consumer's block untouched and lets a page-sized allocation stay page-aligned.

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include <fmt/format.h>

#include "kernel/irql.hpp"
#include "kernel/live_objects.hpp"
#include "kernel/violation.hpp"
#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

struct allocation {
    ULONG tag;
    SIZE_T size;
    bool paged;
};

struct pool_table {
    std::mutex mutex;
    std::unordered_map<const void*, allocation> live;
};

pool_table& the_pool() {
    // Never destroyed: simulated worker and system threads may free pool while the process
    // exits.
    static pool_table* const instance = new pool_table;
    return *instance;
}

// The tag as the four characters a pool tag is written with ('Tag1' is stored little-endian).
std::string tag_text(ULONG tag) {
    std::string text;
    for (int i = 0; i < 4; ++i) {
        const auto c = static_cast<unsigned char>((tag >> (8 * i)) & 0xFF);
        text += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '.';
    }
    return fmt::format("'{}' (0x{:08x})", text, tag);
}

// Windows pool blocks are 16-byte aligned (MEMORY_ALLOCATION_ALIGNMENT on x64), and a block of
// PAGE_SIZE or more starts on a page boundary.
void* allocate(const char* function, SIZE_T size, ULONG tag, bool paged, bool zero) {
    // ExAllocatePool2: "Callers ... must be running at IRQL <= DISPATCH_LEVEL. A caller running
    // at DISPATCH_LEVEL must specify a NonPagedXxx value" (paged pool needs IRQL <= APC_LEVEL).
    if (paged) {
        require_irql_at_most(function, APC_LEVEL, "paged pool needs IRQL <= APC_LEVEL");
    } else {
        require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    }
    const SIZE_T alignment = size >= PAGE_SIZE ? PAGE_SIZE : 16;
    const SIZE_T rounded = size == 0 ? alignment : (size + alignment - 1) & ~(alignment - 1);
    void* block = std::aligned_alloc(alignment, rounded);
    if (block == nullptr) {
        return nullptr;
    }
    if (zero) {
        std::memset(block, 0, rounded);
    }
    pool_table& pool = the_pool();
    const std::lock_guard lock(pool.mutex);
    pool.live[block] = allocation{tag, size, paged};
    return block;
}

void release(const char* function, void* block, ULONG tag, bool check_tag) {
    if (block == nullptr) {
        report_violation(function, "freeing a NULL pointer", current_irql());
        return;
    }
    pool_table& pool = the_pool();
    allocation record{};
    {
        const std::lock_guard lock(pool.mutex);
        const auto it = pool.live.find(block);
        if (it == pool.live.end()) {
            // Windows bug-checks (BAD_POOL_CALLER) on a double free or a foreign pointer.
            report_violation(function,
                             "the address is not a live pool allocation (double free or not pool)",
                             current_irql());
            return;
        }
        record = it->second;
        pool.live.erase(it);
    }
    if (check_tag && record.tag != tag) {
        report_violation(function,
                         fmt::format("the tag {} does not match the allocation's tag {}",
                                     tag_text(tag), tag_text(record.tag)),
                         current_irql());
    }
    if (record.paged) {
        require_irql_at_most(function, APC_LEVEL, "freeing paged pool needs IRQL <= APC_LEVEL");
    } else {
        require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    }
    check_freed_memory(function, block, record.size);
    std::free(block);
}

bool is_paged(POOL_TYPE type) {
    // The base type is in the low bits; the session and NX variants are flags above them.
    return (static_cast<ULONG>(type) & 1U) != 0;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API PVOID ExAllocatePoolWithTag(POOL_TYPE PoolType, SIZE_T NumberOfBytes, ULONG Tag) {
    return allocate("ExAllocatePoolWithTag", NumberOfBytes, Tag, is_paged(PoolType), false);
}

NDKSIM_API PVOID ExAllocatePoolWithTagPriority(POOL_TYPE PoolType, SIZE_T NumberOfBytes, ULONG Tag,
                                               EX_POOL_PRIORITY Priority) {
    UNREFERENCED_PARAMETER(Priority);
    return allocate("ExAllocatePoolWithTagPriority", NumberOfBytes, Tag, is_paged(PoolType), false);
}

NDKSIM_API PVOID ExAllocatePoolZero(POOL_TYPE PoolType, SIZE_T NumberOfBytes, ULONG Tag) {
    return allocate("ExAllocatePoolZero", NumberOfBytes, Tag, is_paged(PoolType), true);
}

NDKSIM_API PVOID ExAllocatePool2(POOL_FLAGS Flags, SIZE_T NumberOfBytes, ULONG Tag) {
    const POOL_FLAGS kinds =
        Flags & (POOL_FLAG_NON_PAGED | POOL_FLAG_NON_PAGED_EXECUTE | POOL_FLAG_PAGED);
    // ExAllocatePool2: exactly one pool kind must be named; otherwise the call fails.
    if (kinds != POOL_FLAG_NON_PAGED && kinds != POOL_FLAG_NON_PAGED_EXECUTE &&
        kinds != POOL_FLAG_PAGED) {
        NDKSIM_WARN("ExAllocatePool2: flags 0x{:x} name no single pool kind", Flags);
        return nullptr;
    }
    return allocate("ExAllocatePool2", NumberOfBytes, Tag, kinds == POOL_FLAG_PAGED,
                    (Flags & POOL_FLAG_UNINITIALIZED) == 0);
}

NDKSIM_API VOID ExFreePoolWithTag(PVOID P, ULONG Tag) {
    // ExFreePoolWithTag: a zero tag is not checked (ExFreePool is ExFreePoolWithTag(P, 0)).
    release("ExFreePoolWithTag", P, Tag, Tag != 0);
}

NDKSIM_API VOID ExFreePool(PVOID P) {
    release("ExFreePool", P, 0, false);
}

NDKSIM_API SIZE_T ndksim_kernel_pool_live(ULONG Tag) {
    pool_table& pool = the_pool();
    const std::lock_guard lock(pool.mutex);
    SIZE_T count = 0;
    for (const auto& [block, record] : pool.live) {
        if (Tag == 0 || record.tag == Tag) {
            ++count;
        }
    }
    return count;
}

NDKSIM_API SIZE_T ndksim_kernel_pool_report(void) {
    pool_table& pool = the_pool();
    const std::lock_guard lock(pool.mutex);
    for (const auto& [block, record] : pool.live) {
        NDKSIM_ERROR("pool leak: {} bytes at {} tag {} ({} pool)", record.size, block,
                     tag_text(record.tag), record.paged ? "paged" : "nonpaged");
    }
    return pool.live.size();
}

}  // extern "C"
