// SPDX-License-Identifier: MIT
#pragma once
// A C-ABI-free view of an MDL chain (REFERENCE.md 8.1) and the checks NdkRegisterMr and
// NdkBuildLam apply to it. The api layer converts each MDL of the chain into one mdl_segment;
// nothing here ever dereferences a virtual address.

#include <cstdint>
#include <span>

#include "util/status.hpp"

namespace ndksim::mem {

/// One MDL of a chain.
struct mdl_segment {
    std::uint64_t virtual_address = 0;    ///< MmGetMdlVirtualAddress: StartVa + ByteOffset (a key)
    std::uint32_t byte_count = 0;         ///< MmGetMdlByteCount [bytes]
    std::uint32_t byte_offset = 0;        ///< MmGetMdlByteOffset: offset in the first page [bytes]
    std::span<const std::uint64_t> pfns;  ///< MmGetMdlPfnArray: one PFN per spanned page
};

/// An MDL chain in Next order.
using mdl_chain = std::span<const mdl_segment>;

/// Validates the part of `chain` that describes its first `length` bytes, in this order:
/// non-empty chain and length > 0 (invalid_parameter); every used segment's byte_offset equals
/// the low 12 bits of its virtual address and its PFN array covers its spanned pages
/// (invalid_parameter); each next segment's virtual address equals the previous one's plus its
/// byte count (virtual contiguity, ddi/nc-ndkpi-ndk_fn_register_mr.md and
/// nc-ndkpi-ndk_fn_build_lam.md: invalid_parameter); `length` does not exceed the chain's total
/// byte count (same pages: invalid_parameter). Segments after the first `length` bytes are not
/// examined. Returns success when the chain is usable.
[[nodiscard]] status check_chain(mdl_chain chain, std::uint64_t length) noexcept;

/// Page geometry of the range a valid chain describes.
struct chain_geometry {
    status st = status::success;  ///< check_chain's result, or insufficient_resources when the
                                  ///< range spans more than 2^32 - 1 pages
    std::uint64_t virtual_address = 0;  ///< first byte of the range (the key of a registration)
    std::uint32_t pages = 0;            ///< pages spanned by [virtual_address, + length)
    std::uint32_t fbo = 0;              ///< first byte offset in the first page [bytes]
};

/// check_chain() plus the page count and FBO of the first `length` bytes. This is the size
/// query behind NdkBuildLam's BUFFER_TOO_SMALL negotiation: the LAM needs `pages` entries.
[[nodiscard]] chain_geometry chain_page_count(mdl_chain chain, std::uint64_t length) noexcept;

/// Writes the PFN of every page of the first `length` bytes of `chain` into `pfns_out`
/// (precondition: chain_page_count() succeeded and pfns_out.size() == its pages). A page shared
/// by two segments (a segment boundary inside a page) must carry the same PFN in both, otherwise
/// the chain does not describe one contiguous range: returns invalid_parameter.
[[nodiscard]] status chain_frames(mdl_chain chain, std::uint64_t length,
                                  std::span<std::uint64_t> pfns_out) noexcept;

}  // namespace ndksim::mem
