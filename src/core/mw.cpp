#include "core/mw.hpp"

#include "core/adapter.hpp"
#include "core/pd.hpp"

namespace ndksim::core {

mw::mw(pd& owner) : object(object_kind::mw, owner.dev(), &owner.handle(), &owner) {}

ref<mw> mw::create(pd& owner) { return ref<mw>(new mw(owner), false); }

}  // namespace ndksim::core
