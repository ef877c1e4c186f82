// SPDX-License-Identifier: MIT
#pragma once
// An MDL chain as the memory unit sees it (mem::mdl_segment), built from the consumer's MDLs.
// Only the fields are read: StartVa/ByteOffset are keys, never dereferenced (REFERENCE.md 8.1).

#include <vector>

#include "mem/mdl_chain.hpp"
#include "ndkpi.h"

namespace ndksim::api {

/// The segments of the chain starting at `mdl`, in Next order (empty for NULL).
std::vector<mem::mdl_segment> mdl_segments(const MDL* mdl);

}  // namespace ndksim::api
