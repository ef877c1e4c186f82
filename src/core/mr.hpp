#pragma once
// A memory region (NDK_MR), created for normal registration or for fast-register only
// (REFERENCE.md rule 18). Its translation and tokens live in the memory unit (src/mem).

#include "core/object.hpp"

namespace ndksim::core {

class pd;

class mr final : public object {
public:
    static ref<mr> create(pd& owner, bool fast_register);

    /// TRUE when created for NdkInitializeFastRegisterMr/NdkFastRegister only.
    bool fast_register() const noexcept { return fast_register_; }

private:
    mr(pd& owner, bool fast_register);

    bool fast_register_;
};

}  // namespace ndksim::core
