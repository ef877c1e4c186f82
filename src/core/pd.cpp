#include "core/pd.hpp"

#include "core/adapter.hpp"

namespace ndksim::core {

pd::pd(adapter& handle) : object(object_kind::pd, handle.dev(), &handle, &handle) {}

ref<pd> pd::create(adapter& handle) { return ref<pd>(new pd(handle), false); }

}  // namespace ndksim::core
