#include "core/mr.hpp"

#include "core/adapter.hpp"
#include "core/pd.hpp"

namespace ndksim::core {

mr::mr(pd& owner, bool fast_register)
    : object(object_kind::mr, owner.dev(), &owner.handle(), &owner),
      fast_register_(fast_register) {}

ref<mr> mr::create(pd& owner, bool fast_register) {
    return ref<mr>(new mr(owner, fast_register), false);
}

}  // namespace ndksim::core
