// SPDX-License-Identifier: MIT
#include "api/mdl_view.hpp"

namespace ndksim::api {

std::vector<mem::mdl_segment> mdl_segments(const MDL* mdl) {
    std::vector<mem::mdl_segment> out;
    // A chain longer than this is a corrupt (cyclic) Next list, not a real buffer.
    constexpr std::size_t k_max_chain = 1U << 16;
    for (const MDL* m = mdl; m != nullptr && out.size() < k_max_chain; m = m->Next) {
        const auto start = reinterpret_cast<std::uintptr_t>(m->StartVa);
        // ADDRESS_AND_SIZE_TO_SPAN_PAGES of the MDL's first byte and length.
        const std::size_t pages = (static_cast<std::uint64_t>(m->ByteOffset & (PAGE_SIZE - 1)) +
                                   m->ByteCount + PAGE_SIZE - 1) >>
                                  PAGE_SHIFT;
        const auto* pfns =
            reinterpret_cast<const std::uint64_t*>(MmGetMdlPfnArray(const_cast<MDL*>(m)));
        static_assert(sizeof(PFN_NUMBER) == sizeof(std::uint64_t));
        out.push_back(mem::mdl_segment{start + m->ByteOffset, m->ByteCount, m->ByteOffset,
                                       std::span<const std::uint64_t>(pfns, pages)});
    }
    return out;
}

}  // namespace ndksim::api
