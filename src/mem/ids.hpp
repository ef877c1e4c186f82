// SPDX-License-Identifier: MIT
#pragma once
// Strong identifiers of the objects a translation unit owns. Each is an opaque index; 0 is never
// a live object. The core layer stores them in its MR/MW/PD objects and passes them back.

#include <cstdint>

namespace ndksim::mem {

/// A protection domain of one translation unit.
enum class pd_id : std::uint32_t { none = 0 };

/// A memory region (MR); equal to its token-table index, stable across re-registrations.
enum class region_id : std::uint32_t { none = 0 };

/// A memory window (MW); equal to its token-table index, stable across binds.
enum class window_id : std::uint32_t { none = 0 };

/// A logical address mapping built by build_lam (the LAM's AdapterContext in the api layer).
enum class lam_id : std::uint32_t { none = 0 };

/// The raw value of any of the identifiers above.
template <class Id>
constexpr std::uint32_t raw(Id id) noexcept {
    return static_cast<std::uint32_t>(id);
}

}  // namespace ndksim::mem
