// SPDX-License-Identifier: MIT
#include "mem/region.hpp"

#include <algorithm>
#include <new>

#include "mem/iommu.hpp"
#include "mem/page.hpp"

namespace ndksim::mem {

bool page_list::assign(std::uint32_t n) noexcept {
    std::unique_ptr<std::uint64_t[]> heap;
    if (n > 1) {
        heap.reset(new (std::nothrow) std::uint64_t[n]());
        if (!heap) {
            page_list().swap(*this);
            return false;
        }
    }
    heap_ = std::move(heap);
    inline_ = 0;
    capacity_ = n;
    return true;
}

status check_register(const region& r, std::uint64_t va) noexcept {
    // REFERENCE.md rule 18: RegisterMr only on an MR created with FastRegister = FALSE.
    if (r.kind != region_kind::normal) {
        return status::invalid_device_request;
    }
    if (r.state != region_state::unregistered) {
        return status::invalid_device_state;
    }
    // ddi/nc-ndkpi-ndk_fn_register_mr.md: zero-based virtual addresses are not supported.
    if (va == 0) {
        return status::invalid_parameter;
    }
    return status::success;
}

status check_deregister(const region& r) noexcept {
    if (r.kind != region_kind::normal) {
        return status::invalid_device_request;
    }
    if (r.state != region_state::valid) {
        return status::invalid_device_state;
    }
    // STYLE.md habit 5: a bound window pins its region.
    if (r.bound_windows != 0) {
        return status::device_busy;
    }
    return status::success;
}

status check_destroy(const region& r) noexcept {
    return r.bound_windows != 0 ? status::device_busy : status::success;
}

status check_initialize_fast_register(const region& r, std::uint32_t page_count,
                                      std::uint32_t max_pages) noexcept {
    // ddi/nc-ndkpi-ndk_fn_initialize_fast_register_mr.md: only on MRs created with
    // FastRegister = TRUE.
    if (r.kind != region_kind::fast_register) {
        return status::invalid_device_request;
    }
    if (page_count == 0) {
        return status::invalid_parameter;
    }
    // Same page: STATUS_IMPLEMENTATION_LIMIT when the adapter does not support AdapterPageCount.
    if (page_count > max_pages) {
        return status::implementation_limit;
    }
    if (r.state == region_state::valid) {
        return status::invalid_device_state;
    }
    return status::success;
}

status check_fast_register_request(const region& r, pd_id qp_pd,
                                   const fast_register_request& rq) noexcept {
    // REFERENCE.md rule 18: FastRegister only on FastRegister = TRUE MRs.
    if (r.kind != region_kind::fast_register) {
        return status::invalid_device_request;
    }
    if (r.state == region_state::unregistered) {
        return status::invalid_device_state;
    }
    if (r.pd != qp_pd) {
        return status::access_violation;
    }
    // ddi/nc-ndkpi-ndk_fn_fast_register.md, rule 19: remote flags need RemoteAccess = TRUE.
    if ((rq.rights & remote_rights) != access::none && !r.fr_remote_access) {
        return status::access_violation;
    }
    // Rule 20: AdapterPageCount must not exceed the count given to InitializeFastRegisterMr.
    if (rq.pages.empty() || rq.pages.size() > r.fr_max_pages) {
        return status::invalid_parameter;
    }
    // The FBO is an offset within the first page.
    if (rq.fbo >= page_size) {
        return status::invalid_parameter;
    }
    // Rule 20: Length <= AdapterPageCount * PAGE_SIZE - FBO.
    if (rq.length > (std::uint64_t{rq.pages.size()} << page_shift) - rq.fbo) {
        return status::invalid_parameter;
    }
    // Rule 18: zero-based virtual addresses are not supported; rule 20: BaseVirtualAddress =
    // FBO + n * PAGE_SIZE.
    if (rq.base_va == 0 || byte_offset(rq.base_va) != rq.fbo ||
        !range_fits(rq.base_va, rq.length)) {
        return status::invalid_parameter;
    }
    // ddi/nc-ndkpi-ndk_fn_fast_register.md: each adapter page address is PAGE_SIZE-aligned.
    const bool aligned = std::all_of(rq.pages.begin(), rq.pages.end(),
                                     [](std::uint64_t a) { return byte_offset(a) == 0; });
    return aligned ? status::success : status::invalid_parameter;
}

status check_fast_register(const region& r, pd_id qp_pd, const fast_register_request& rq,
                           const iommu& mmu) noexcept {
    if (const status st = check_fast_register_request(r, qp_pd, rq); st != status::success) {
        return st;
    }
    // Re-registration of a valid region requires NdkInvalidate first.
    if (r.state == region_state::valid) {
        return status::invalid_device_state;
    }
    // ddi/nc-ndkpi-ndk_fn_build_lam.md: the page array holds logical addresses from
    // NdkBuildLam; each must be a LAM page mapped by this adapter's IOMMU (a logical address
    // that is not mapped is never translated).
    const bool mapped = std::all_of(rq.pages.begin(), rq.pages.end(),
                                    [&mmu](std::uint64_t a) { return mmu.is_lam_page(a); });
    return mapped ? status::success : status::invalid_parameter;
}

void apply_fast_register(region& r, const fast_register_request& rq) noexcept {
    std::copy(rq.pages.begin(), rq.pages.end(), r.pages.data());
    r.page_count = static_cast<std::uint32_t>(rq.pages.size());
    r.fbo = rq.fbo;
    r.length = rq.length;
    r.base_va = rq.base_va;
    r.rights = normalize(rq.rights);
    r.state = region_state::valid;
}

status check_invalidate(const region& r, pd_id qp_pd) noexcept {
    // REFERENCE.md rule 22: NdkInvalidate applies to fast-registered MRs only.
    if (r.kind != region_kind::fast_register) {
        return status::invalid_device_request;
    }
    if (r.pd != qp_pd) {
        return status::access_violation;
    }
    // Rule 16: an already invalidated token cannot be invalidated again.
    if (r.state != region_state::valid) {
        return status::invalid_device_state;
    }
    // STYLE.md habit 5: an MR with bound MWs cannot be invalidated.
    if (r.bound_windows != 0) {
        return status::device_busy;
    }
    return status::success;
}

void apply_invalidate(region& r) noexcept {
    r.state = region_state::free;
    r.page_count = 0;
    r.length = 0;
}

}  // namespace ndksim::mem
