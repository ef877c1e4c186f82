// SPDX-License-Identifier: MIT
#pragma once
// A memory window (NDK_MW) and its rules: the NdkBind work request, NdkInvalidate on a window,
// and the counted pin a bound window holds on its region. Pure check_*() functions return the
// status to report; the apply_*() that follows a successful check cannot fail.
//
// States: free --bind--> bound --invalidate--> free; binding a bound window rebinds it (the old
// region is unpinned, a new token replaces the old one).

#include <cstdint>

#include "mem/access.hpp"
#include "mem/ids.hpp"
#include "mem/region.hpp"
#include "util/status.hpp"

namespace ndksim::mem {

enum class window_state : std::uint8_t { free, bound };

struct window {
    pd_id pd = pd_id::none;
    window_state state = window_state::free;
    access rights = access::none;    ///< remote rights granted by the bind (never local ones)
    std::uint64_t va = 0;            ///< first bound virtual address (a key into the region)
    std::uint64_t length = 0;        ///< bound length [bytes]
    std::uint32_t region_index = 0;  ///< token-table index of the region it pins (0 = none)
};

/// The arguments of an NdkBind work request.
struct bind_request {
    window_id window = window_id::none;
    region_id region = region_id::none;
    std::uint64_t va = 0;          ///< VirtualAddress
    std::uint64_t length = 0;      ///< Length [bytes]
    access rights = access::none;  ///< access_from_op_flags(Flags)
};

/// Rights a window gets from bind flags: only remote read and remote write; a window never
/// grants local access.
constexpr access window_rights(access requested) noexcept {
    return requested & remote_rights;
}

/// The checks of NdkBind that do not depend on work requests queued ahead of it (run at post
/// and again at execution), in order:
///   access_violation   the window, the region and the QP (`qp_pd`) are not all in one PD
///   invalid_parameter  VirtualAddress 0 (ddi/nc-ndkpi-ndk_fn_bind.md: zero-based addresses
///                      are not supported)
/// and, only when the region currently holds a valid registration:
///   invalid_parameter  [va, va + length) not inside the region's registered range (rule 20)
///   access_violation   remote write requested on a region without local write
///                      (ddi/nc-ndkpi-ndk_fn_bind.md, REFERENCE.md rule 19)
[[nodiscard]] status check_bind_request(const window& w, const region& r, pd_id qp_pd,
                                        const bind_request& rq) noexcept;

/// The full NdkBind check at execution: the PD and zero-address checks above, then
/// invalid_device_state unless the region is valid, then the range and local-write checks.
[[nodiscard]] status check_bind(const window& w, const region& r, pd_id qp_pd,
                                const bind_request& rq) noexcept;

/// Binds a checked window to `target` (table index `target_index`): unpins `previous` (the
/// region it was bound to, or nullptr) and pins `target`.
void apply_bind(window& w, region& target, std::uint32_t target_index, region* previous,
                const bind_request& rq) noexcept;

/// NdkInvalidate on window `w` from a QP of PD `qp_pd`: access_violation when the PDs differ;
/// invalid_device_state unless w is bound (an invalidated token cannot be invalidated again,
/// REFERENCE.md rule 16).
[[nodiscard]] status check_invalidate(const window& w, pd_id qp_pd) noexcept;

/// Invalidates a checked window and unpins `bound`, the region it was bound to.
void apply_invalidate(window& w, region& bound) noexcept;

}  // namespace ndksim::mem
