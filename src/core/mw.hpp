#pragma once
// A memory window (NDK_MW); bound to a region by the NdkBind work request.

#include "core/object.hpp"

namespace ndksim::core {

class pd;

class mw final : public object {
public:
    static ref<mw> create(pd& owner);

private:
    explicit mw(pd& owner);
};

}  // namespace ndksim::core
