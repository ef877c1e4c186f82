// SPDX-License-Identifier: MIT
#pragma once
// An allocator for tables that grow to many megabytes and are read at random on the data path
// (the token table: one 128-byte slot per memory region, 128 MB at a million regions). On 4 KiB
// pages every such read also misses the TLB, whose reach is a few megabytes, and the page walk
// adds its own cache misses. Blocks of 2 MiB and more are aligned to 2 MiB and marked for
// transparent huge pages (madvise(MADV_HUGEPAGE)), which the kernel then backs with 2 MiB pages
// where it can; smaller blocks come from operator new. Where the kernel does not offer huge
// pages the advice fails silently and the block stays an ordinary one.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace ndksim::util {

/// Bytes of a transparent huge page on x86-64 and the alignment of large blocks.
inline constexpr std::size_t k_huge_page_bytes = std::size_t{2} << 20;

template <class T>
class huge_page_allocator {
  public:
    using value_type = T;

    huge_page_allocator() noexcept = default;
    template <class U>
    huge_page_allocator(const huge_page_allocator<U>& /*other*/) noexcept {}

    /// Memory for `n` objects: huge-page backed (where the kernel allows) from 2 MiB on.
    T* allocate(std::size_t n) {
        if (n > SIZE_MAX / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        const std::size_t bytes = n * sizeof(T);
        if (!large(bytes)) {
            return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
        }
        const std::size_t rounded = round_up(bytes);
        void* p = std::aligned_alloc(k_huge_page_bytes, rounded);
        if (p == nullptr) {
            throw std::bad_alloc();
        }
        // Advice only: a kernel without transparent huge pages refuses it, and the block
        // works as it is.
        (void)::madvise(p, rounded, MADV_HUGEPAGE);
        return static_cast<T*>(p);
    }

    /// Frees what allocate(n) returned; `n` must be the same.
    void deallocate(T* p, std::size_t n) noexcept {
        if (!large(n * sizeof(T))) {
            ::operator delete (p, std::align_val_t{alignof(T)});
            return;
        }
        std::free(p);
    }

    template <class U>
    bool operator==(const huge_page_allocator<U>& /*other*/) const noexcept {
        return true;
    }

  private:
    static constexpr bool large(std::size_t bytes) noexcept { return bytes >= k_huge_page_bytes; }
    static constexpr std::size_t round_up(std::size_t bytes) noexcept {
        return (bytes + k_huge_page_bytes - 1) / k_huge_page_bytes * k_huge_page_bytes;
    }
};

}  // namespace ndksim::util
