#pragma once
// A protection domain (NDK_PD): parent of MRs, MWs, SRQs and QPs, owner of the privileged
// memory region token (REFERENCE.md section 9).

#include "core/object.hpp"

namespace ndksim::core {

class pd final : public object {
public:
    /// Creates a PD under `handle`.
    static ref<pd> create(adapter& handle);

private:
    explicit pd(adapter& handle);
};

}  // namespace ndksim::core
