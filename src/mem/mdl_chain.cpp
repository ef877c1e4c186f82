// SPDX-License-Identifier: MIT
#include "mem/mdl_chain.hpp"

#include <algorithm>
#include <limits>

#include "mem/page.hpp"
#include "util/log.hpp"

namespace ndksim::mem {

status check_chain(mdl_chain chain, std::uint64_t length) noexcept {
    if (chain.empty() || length == 0) {
        return status::invalid_parameter;
    }
    std::uint64_t covered = 0;
    for (std::size_t i = 0; i < chain.size() && covered < length; ++i) {
        const mdl_segment& seg = chain[i];
        // REFERENCE.md 8.1: VirtualAddress = StartVa + ByteOffset with StartVa page-aligned.
        if (seg.byte_offset != byte_offset(seg.virtual_address)) {
            NDKSIM_DEBUG("mdl chain: segment {} byte offset {:#x} disagrees with va {:#x}", i,
                         seg.byte_offset, seg.virtual_address);
            return status::invalid_parameter;
        }
        if (!range_fits(seg.virtual_address, seg.byte_count) ||
            seg.pfns.size() < span_pages(seg.virtual_address, seg.byte_count)) {
            NDKSIM_DEBUG("mdl chain: segment {} PFN array too short", i);
            return status::invalid_parameter;
        }
        // ddi/nc-ndkpi-ndk_fn_register_mr.md, nc-ndkpi-ndk_fn_build_lam.md: the first Length
        // bytes must be one virtually contiguous range (REFERENCE.md 8.1: next VA == VA +
        // ByteCount).
        if (i > 0) {
            const mdl_segment& prev = chain[i - 1];
            if (seg.virtual_address != prev.virtual_address + prev.byte_count) {
                NDKSIM_DEBUG("mdl chain: segment {} at {:#x} does not follow {:#x}+{:#x}", i,
                             seg.virtual_address, prev.virtual_address, prev.byte_count);
                return status::invalid_parameter;
            }
        }
        covered += seg.byte_count;
    }
    // Length must not exceed the total number of bytes the chain describes.
    if (covered < length) {
        NDKSIM_DEBUG("mdl chain: length {:#x} exceeds the chain's {:#x} bytes", length, covered);
        return status::invalid_parameter;
    }
    return status::success;
}

chain_geometry chain_page_count(mdl_chain chain, std::uint64_t length) noexcept {
    chain_geometry g;
    g.st = check_chain(chain, length);
    if (g.st != status::success) {
        return g;
    }
    const std::uint64_t va = chain.front().virtual_address;
    const std::uint64_t pages = span_pages(va, length);
    if (pages > std::numeric_limits<std::uint32_t>::max()) {
        g.st = status::insufficient_resources;
        return g;
    }
    g.virtual_address = va;
    g.pages = static_cast<std::uint32_t>(pages);
    g.fbo = byte_offset(va);
    return g;
}

status chain_frames(mdl_chain chain, std::uint64_t length,
                    std::span<std::uint64_t> pfns_out) noexcept {
    const std::uint64_t first_vpn = page_number(chain.front().virtual_address);
    const std::uint64_t end_va = chain.front().virtual_address + length;
    std::uint64_t filled = 0;  // pages of pfns_out written so far
    for (const mdl_segment& seg : chain) {
        if (filled == pfns_out.size() || seg.virtual_address >= end_va) {
            break;
        }
        if (seg.byte_count == 0) {
            continue;
        }
        const std::uint64_t seg_end = std::min(seg.virtual_address + seg.byte_count, end_va);
        const std::uint64_t seg_first_vpn = page_number(seg.virtual_address);
        const std::uint64_t seg_last_vpn = page_number(seg_end - 1);
        for (std::uint64_t vpn = seg_first_vpn; vpn <= seg_last_vpn; ++vpn) {
            const std::uint64_t slot = vpn - first_vpn;
            const std::uint64_t pfn = seg.pfns[vpn - seg_first_vpn];
            if (slot < filled) {
                // A segment boundary inside a page: both MDLs describe the same page.
                if (pfns_out[slot] != pfn) {
                    return status::invalid_parameter;
                }
                continue;
            }
            pfns_out[slot] = pfn;
            filled = slot + 1;
        }
    }
    return filled == pfns_out.size() ? status::success : status::invalid_parameter;
}

}  // namespace ndksim::mem
