// SPDX-License-Identifier: MIT
#pragma once
// An allocator for tables that grow to many megabytes and are read at random on the data path
// (the token table: one 128-byte slot per memory region, 128 MB at a million regions). On 4 KiB
// pages every such read also misses the TLB, whose reach is a few megabytes, and the page walk
// adds its own cache misses. Blocks of 2 MiB and more are aligned to 2 MiB and marked for
// transparent huge pages (madvise(MADV_HUGEPAGE)), which the kernel then backs with 2 MiB pages
// where it can; they are mappings of their own (mmap). Smaller blocks come from operator new. Where
// the kernel does not offer huge pages the advice fails silently and the block stays an ordinary
// one.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
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
        if (n > (SIZE_MAX - k_huge_page_bytes) / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        const std::size_t bytes = n * sizeof(T);
        if (!large(bytes)) {
            return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
        }
        // A mapping of its own, not malloc's: the advice stays with this block and leaves with
        // it, instead of marking memory malloc hands out again after a free. Mapped with a
        // huge page to spare, then trimmed to a 2 MiB boundary at both ends.
        const std::size_t rounded = round_up(bytes);
        void* raw = ::mmap(nullptr, rounded + k_huge_page_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) {
            throw std::bad_alloc();
        }
        const auto at = reinterpret_cast<std::uintptr_t>(raw);
        const std::uintptr_t aligned = (at + k_huge_page_bytes - 1) & ~(k_huge_page_bytes - 1);
        const std::size_t head = aligned - at;
        if (head > 0) {
            ::munmap(raw, head);
        }
        const std::size_t tail = k_huge_page_bytes - head;
        if (tail > 0) {
            ::munmap(reinterpret_cast<void*>(aligned + rounded), tail);
        }
        void* p = reinterpret_cast<void*>(aligned);
        // Advice only: a kernel without transparent huge pages refuses it, and the block
        // works as it is.
        (void)::madvise(p, rounded, MADV_HUGEPAGE);
        return static_cast<T*>(p);
    }

    /// Frees what allocate(n) returned; `n` must be the same.
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (!large(bytes)) {
            ::operator delete (p, std::align_val_t{alignof(T)});
            return;
        }
        ::munmap(p, round_up(bytes));
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
