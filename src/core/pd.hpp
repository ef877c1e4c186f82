// SPDX-License-Identifier: MIT
#pragma once
// A protection domain (NDK_PD): parent of MRs, MWs, SRQs and QPs, and a protection domain of
// the adapter's memory unit, which owns its privileged memory region token
// (REFERENCE.md section 9, rule 21).

#include "core/object.hpp"
#include "mem/ids.hpp"

namespace ndksim::core {

class pd final : public object {
  public:
    /// Creates a PD under `handle` and its domain in the memory unit. Returns success, or
    /// insufficient_resources when the memory unit has no room for another domain.
    [[nodiscard]] static status create(adapter& handle, ref<pd>& out);

    /// The memory unit's id of this domain.
    mem::pd_id memory_pd() const noexcept { return memory_pd_; }

  private:
    pd(adapter& handle, mem::pd_id id);
    void on_closed() override;

    mem::pd_id memory_pd_;
};

}  // namespace ndksim::core
