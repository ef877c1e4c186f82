#include "core/connector.hpp"

#include "core/adapter.hpp"

namespace ndksim::core {

connector::connector(adapter& handle)
    : object(object_kind::connector, handle.dev(), &handle, &handle) {}

ref<connector> connector::create(adapter& handle) {
    return ref<connector>(new connector(handle), false);
}

}  // namespace ndksim::core
