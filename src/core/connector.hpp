#pragma once
// A connector (NDK_CONNECTOR): the active or passive side of one connection.

#include "core/object.hpp"

namespace ndksim::core {

class connector final : public object {
public:
    static ref<connector> create(adapter& handle);

private:
    explicit connector(adapter& handle);
};

}  // namespace ndksim::core
