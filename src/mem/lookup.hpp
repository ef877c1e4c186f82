// SPDX-License-Identifier: MIT
#pragma once
// The lookup: the one function through which every NIC access to host memory is validated and
// translated (ARCHITECTURE.md "Every memory access by the NIC goes through mem/"). Its checks
// run in a fixed order, each a pure function citing its rule:
//
//   1. token -> entry   index from the token (check_entry), then the full token (check_key)
//   2. protection domain                                   (check_pd)
//   3. access rights for the operation                     (check_rights)
//   4. state: region valid / window bound                  (check_state)
//   5. bounds: [address, address + length) in the region, window, or (privileged) anywhere
//                                                          (check_bounds, overflow-safe)
//   6. translation, page by page: a normal region's page list holds its (pinned) frames; a
//      fast-register region's list and a privileged address hold logical pages, which go
//      through the IOMMU to a frame, each page mapped and covering the accessed bytes
//      (check_page); frame -> host pointer
//
// The first failing check names the fault; every fault is reported as
// STATUS_ACCESS_VIOLATION (fault_status), and the fault tells the engine which completion or
// NAK to produce. A successful lookup returns a grant: the validated range, usable for data
// movement (host_run) while the caller holds the same read_guard.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "mem/access.hpp"
#include "mem/ids.hpp"
#include "mem/iommu.hpp"
#include "util/status.hpp"

namespace ndksim::mem {

class host_memory;
class region_table;
class translation_cache;
struct slot;

/// Why a lookup refused an access (the first failing check).
enum class fault : std::uint8_t {
    none,
    unknown_token,  ///< 1: the token's index names no live entry
    stale_token,    ///< 1: the entry exists but its key byte differs (an old token)
    wrong_pd,       ///< 2: the entry belongs to another protection domain
    access_denied,  ///< 3: the entry does not grant the operation
    invalid_state,  ///< 4: region not registered / invalidated, window not bound
    out_of_bounds,  ///< 5: the range leaves the region or window, or wraps
    unmapped,       ///< 6: a page is not mapped by the IOMMU or the bytes leave its mapping
};

/// The name of `f` ("stale_token").
std::string_view fault_name(fault f) noexcept;

/// The NTSTATUS a fault is reported with: success for fault::none, access_violation for every
/// protection fault.
status fault_status(fault f) noexcept;

/// One access the NIC is about to make.
struct access_request {
    std::uint32_t token = 0;  ///< memory token (local token, remote token or privileged)
    pd_id pd = pd_id::none;   ///< PD of the QP on whose behalf the access is made
    access_op op = access_op::local_read;
    std::uint64_t address = 0;  ///< virtual address, or logical address for a privileged token
    std::uint64_t length = 0;   ///< bytes
};

/// A validated range. Valid only under the read_guard it was obtained with, and only while
/// `generation` equals the unit's generation (sge_cursor re-validates otherwise).
struct grant {
    const std::uint64_t* pages = nullptr;  ///< region page list; nullptr: `position` is logical
    bool frames = false;  ///< `pages` holds host frames (a normal region), not logical addresses
    std::uint64_t position = 0;  ///< byte position in the page-list space (page = position >> 12)
    std::uint64_t length = 0;    ///< bytes granted
    std::uint64_t generation = 0;
    std::byte* first_page = nullptr;  ///< host page holding `position` (translated by lookup)
};

/// Outcome of a lookup.
struct lookup_result {
    fault failed = fault::none;
    std::uint32_t cache_misses = 0;  ///< translation-cache misses this lookup caused
    grant range;                     ///< meaningful when failed == fault::none

    bool ok() const noexcept { return failed == fault::none; }
    status st() const noexcept { return fault_status(failed); }
};

/// The unit state a lookup reads. Built by translation_unit inside its access gate.
struct lookup_context {
    const region_table& table;
    const iommu& mmu;
    const host_memory& host;
    translation_cache& cache;
    bool read_sink_not_required;
    std::uint64_t generation;
    /// false: the lookup leaves the translation cache as it is (a check repeated for an access
    /// the cache already saw, so the modelled misses are not counted twice)
    bool touch_cache = true;
};

/// Step 1a: the live entry the token's index names, or nullptr (token = index << 8 | key,
/// STYLE.md habit 6).
[[nodiscard]] const slot* check_entry(const region_table& table, std::uint32_t token) noexcept;

/// Step 1b: unknown_token for no entry, stale_token unless the entry's active key equals the
/// token's key byte (a token from an earlier registration, bind or slot life never matches).
[[nodiscard]] fault check_key(const slot* entry, std::uint32_t token) noexcept;

/// Step 2: wrong_pd unless the entry's PD is the requester's (MRs, MWs and QPs are children of
/// a PD, REFERENCE.md 9; an access through a QP reaches only memory of the QP's PD).
[[nodiscard]] fault check_pd(pd_id owner, pd_id requester) noexcept;

/// Step 3: access_denied unless `granted` allows `op` (NDK_MR_FLAG_* / NDK_OP_FLAG_* rights,
/// REFERENCE.md rule 21 for privileged tokens, rule 23 for read sinks).
[[nodiscard]] fault check_rights(access granted, access_op op,
                                 bool read_sink_not_required) noexcept;

/// Step 4: invalid_state unless the entry is usable (region valid, window bound).
[[nodiscard]] fault check_state(bool usable) noexcept;

/// Step 5: out_of_bounds unless [address, address + length) lies in [base, base + size) and
/// does not wrap.
[[nodiscard]] fault check_bounds(std::uint64_t base, std::uint64_t size, std::uint64_t address,
                                 std::uint64_t length) noexcept;

/// Step 6, one page: unmapped unless `m` exists, covers bytes [offset, offset + n) of its page
/// (an IOMMU mapping describes only the bytes of the MDL it was built from) and, for a
/// privileged token (`direct`), was made by NdkBuildLam (REFERENCE.md rule 21: the SGE carries
/// a LogicalAddress returned by NdkBuildLam, ddi/ns-ndkpi-_ndk_sge.md).
[[nodiscard]] fault check_page(const iommu::page_mapping* m, bool direct, std::uint32_t offset,
                               std::uint64_t n) noexcept;

/// Runs steps 1-6 for `rq`. Records one translation-cache touch per page unless
/// ctx.touch_cache is false. Allocation-free.
lookup_result lookup(const lookup_context& ctx, const access_request& rq) noexcept;

/// The longest run of host-contiguous bytes of `g` starting `offset` bytes into it, at most
/// `max` bytes long; empty when offset >= g.length or a page does not translate. Data movement
/// loops over runs; consecutive pages that are consecutive in host memory form one run.
std::span<std::byte> host_run(const iommu& mmu, const host_memory& host, const grant& g,
                              std::uint64_t offset, std::uint64_t max) noexcept;

}  // namespace ndksim::mem
