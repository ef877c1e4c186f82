// SPDX-License-Identifier: MIT
#pragma once
// A memory region (NDK_MR), created for normal registration or for fast-register only
// (REFERENCE.md rule 18). Its translation, state and tokens live in the memory unit (src/mem)
// under region().

#include "core/object.hpp"
#include "mem/ids.hpp"

namespace ndksim::core {

class pd;

class mr final : public object {
  public:
    /// Creates the MR and its region in the memory unit. Returns success, or
    /// insufficient_resources when the memory unit's table is full.
    [[nodiscard]] static status create(pd& owner, bool fast_register, ref<mr>& out);

    /// TRUE when created for NdkInitializeFastRegisterMr/NdkFastRegister only.
    bool fast_register() const noexcept { return fast_register_; }

    /// The memory unit's region.
    mem::region_id region() const noexcept { return region_; }

    /// Re-checks a close waiting for bound windows (device::windows_changed calls it); ends the
    /// wait when none is bound any more. Returns true when the wait ended.
    bool recheck_bound_windows();

  private:
    mr(pd& owner, bool fast_register, mem::region_id region);
    void on_close_requested() override;
    void on_closed() override;

    bool fast_register_;
    mem::region_id region_;
    bool waiting_for_windows_ = false;
};

}  // namespace ndksim::core
