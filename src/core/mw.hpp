// SPDX-License-Identifier: MIT
#pragma once
// A memory window (NDK_MW); bound to a region by the NdkBind work request. Its binding and
// remote token live in the memory unit under window().

#include "core/object.hpp"
#include "mem/ids.hpp"

namespace ndksim::core {

class pd;

class mw final : public object {
  public:
    /// Creates the MW and its window in the memory unit. Returns success, or
    /// insufficient_resources when the memory unit's table is full.
    [[nodiscard]] static status create(pd& owner, ref<mw>& out);

    /// The memory unit's window.
    mem::window_id window() const noexcept { return window_; }

  private:
    mw(pd& owner, mem::window_id window);
    void on_closed() override;

    mem::window_id window_;
};

}  // namespace ndksim::core
