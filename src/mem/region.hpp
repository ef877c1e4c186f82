// SPDX-License-Identifier: MIT
#pragma once
// A memory region (NDK_MR) and its rules: normal registration (NdkRegisterMr / NdkDeregisterMr)
// and fast registration (NdkInitializeFastRegisterMr, the NdkFastRegister work request,
// NdkInvalidate). Each rule is a pure check_*() returning the status the caller reports; the
// apply_*() that follows a successful check cannot fail.
//
// States:
//   normal:        unregistered --register--> valid --deregister--> unregistered
//   fast_register: unregistered --initialize--> free --fast_register--> valid --invalidate--> free
// A fast-register region accepts a new fast_register only while free: re-registration requires
// an invalidate first (invalid_device_state otherwise).

#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include "mem/access.hpp"
#include "mem/ids.hpp"
#include "util/status.hpp"

namespace ndksim::mem {

class iommu;

/// The FastRegister argument of NdkCreateMr.
enum class region_kind : std::uint8_t { normal, fast_register };

/// Registration state of a region.
enum class region_state : std::uint8_t {
    unregistered,  ///< no registration (normal) / not initialized for fast registration
    free,          ///< fast-register region initialized or invalidated: no mapping
    valid,         ///< registered: lookups may succeed
};

/// A region's page list: one entry per page of [base_va - fbo, base_va + length). A normally
/// registered region holds each page's host frame (PFN), as a real NIC's MTT holds each page's
/// bus address; a fast-register region holds the consumer's logical page addresses (LAM pages,
/// translated through the IOMMU at each access). A list of one entry lives inside the region:
/// a small MR costs no allocation, and its lookup reads no second cache line.
class page_list {
  public:
    page_list() = default;
    page_list(page_list&& other) noexcept { swap(other); }
    page_list& operator=(page_list&& other) noexcept {
        page_list(std::move(other)).swap(*this);
        return *this;
    }
    page_list(const page_list&) = delete;
    page_list& operator=(const page_list&) = delete;
    ~page_list() = default;

    /// Replaces the list with `n` zeroed entries. Returns false (and leaves the list empty)
    /// when memory runs out.
    [[nodiscard]] bool assign(std::uint32_t n) noexcept;

    /// The entries.
    std::uint64_t* data() noexcept { return capacity_ > 1 ? heap_.get() : &inline_; }
    const std::uint64_t* data() const noexcept { return capacity_ > 1 ? heap_.get() : &inline_; }

    /// Entries the list holds.
    std::uint32_t capacity() const noexcept { return capacity_; }

    /// Host memory of the entries [bytes].
    std::uint64_t bytes() const noexcept {
        return std::uint64_t{capacity_} * sizeof(std::uint64_t);
    }

    /// Exchanges the contents of two lists.
    void swap(page_list& other) noexcept {
        heap_.swap(other.heap_);
        std::swap(inline_, other.inline_);
        std::swap(capacity_, other.capacity_);
    }

  private:
    std::unique_ptr<std::uint64_t[]> heap_;  // when capacity_ > 1
    std::uint64_t inline_ = 0;               // when capacity_ == 1
    std::uint32_t capacity_ = 0;
};

struct region {
    region_kind kind = region_kind::normal;
    region_state state = region_state::unregistered;
    pd_id pd = pd_id::none;
    access rights = access::none;  ///< normalized rights of the current registration
    std::uint64_t base_va = 0;     ///< first registered virtual address (a key) [bytes]
    std::uint64_t length = 0;      ///< registered length [bytes]
    std::uint32_t fbo = 0;         ///< offset of base_va in the first page [bytes]
    std::uint32_t page_count = 0;  ///< entries of `pages` in use
    /// Host frames (normal regions, which pin them) or logical page addresses (fast-register
    /// regions, which reference the consumer's LAM pages; sized to fr_max_pages at
    /// initialization so that fast_register never allocates).
    page_list pages;
    std::uint32_t fr_max_pages = 0;   ///< AdapterPageCount of NdkInitializeFastRegisterMr
    bool fr_remote_access = false;    ///< RemoteAccess of NdkInitializeFastRegisterMr
    std::uint32_t bound_windows = 0;  ///< windows bound to this region (each pins it)
};

/// The arguments of an NdkFastRegister work request.
struct fast_register_request {
    region_id region = region_id::none;
    std::span<const std::uint64_t> pages;  ///< AdapterPageArray (AdapterPageCount entries)
    std::uint32_t fbo = 0;                 ///< FBO [bytes]
    std::uint64_t length = 0;              ///< Length [bytes]
    std::uint64_t base_va = 0;             ///< BaseVirtualAddress
    access rights = access::none;          ///< access_from_op_flags(Flags)
};

/// NdkRegisterMr on `r` at virtual address `va` (the chain itself is checked by check_chain):
/// invalid_device_request unless r is a normal region (REFERENCE.md rule 18);
/// invalid_device_state when r is already registered; invalid_parameter for va == 0
/// (zero-based addresses are not supported, ddi/nc-ndkpi-ndk_fn_register_mr.md).
[[nodiscard]] status check_register(const region& r, std::uint64_t va) noexcept;

/// NdkDeregisterMr on `r`: invalid_device_request unless normal; invalid_device_state unless
/// registered; device_busy while windows are bound to it (a bound window pins its region).
[[nodiscard]] status check_deregister(const region& r) noexcept;

/// Destroying `r`: device_busy while windows are bound to it; success otherwise.
[[nodiscard]] status check_destroy(const region& r) noexcept;

/// NdkInitializeFastRegisterMr(r, page_count): invalid_device_request unless r is a
/// fast-register region (ddi/nc-ndkpi-ndk_fn_initialize_fast_register_mr.md);
/// invalid_parameter for page_count 0; implementation_limit above `max_pages` (same page);
/// invalid_device_state while r holds a valid registration.
[[nodiscard]] status check_initialize_fast_register(const region& r, std::uint32_t page_count,
                                                    std::uint32_t max_pages) noexcept;

/// The checks of NdkFastRegister that do not depend on work requests queued ahead of it, run
/// when the request is posted and again when it executes. In order:
///   invalid_device_request  r is not a fast-register region (REFERENCE.md rule 18)
///   invalid_device_state    r was never initialized for fast registration
///   access_violation        r's PD is not the QP's PD `qp_pd`
///   access_violation        remote rights requested but r was initialized without RemoteAccess
///                           (ddi/nc-ndkpi-ndk_fn_fast_register.md, rule 19)
///   invalid_parameter       AdapterPageCount 0 or above the initialized count (rule 20); FBO
///                           >= PAGE_SIZE; Length > AdapterPageCount * PAGE_SIZE - FBO (rule 20);
///                           BaseVirtualAddress 0 (rule 18) or not FBO + n * PAGE_SIZE (rule 20)
///                           or base + Length wrapping; a page address not PAGE_SIZE-aligned.
[[nodiscard]] status check_fast_register_request(const region& r, pd_id qp_pd,
                                                 const fast_register_request& rq) noexcept;

/// The full NdkFastRegister check at execution: check_fast_register_request(), then
/// invalid_device_state while r is valid (re-registration requires invalidate first), then
/// invalid_parameter when any page address is not a LAM page mapped by `mmu`.
[[nodiscard]] status check_fast_register(const region& r, pd_id qp_pd,
                                         const fast_register_request& rq,
                                         const iommu& mmu) noexcept;

/// Installs a checked fast registration: copies the page array into r's preallocated list.
void apply_fast_register(region& r, const fast_register_request& rq) noexcept;

/// NdkInvalidate on region `r` from a QP of PD `qp_pd`: invalid_device_request unless r is a
/// fast-register region (never a normally registered one, REFERENCE.md rule 22);
/// access_violation when the PDs differ; invalid_device_state unless r is valid (an
/// invalidated token cannot be invalidated again, rule 16); device_busy while windows are
/// bound to it.
[[nodiscard]] status check_invalidate(const region& r, pd_id qp_pd) noexcept;

/// Invalidates a checked region: it stays initialized, holds no mapping, and refuses lookups.
void apply_invalidate(region& r) noexcept;

}  // namespace ndksim::mem
