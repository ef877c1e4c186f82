// SPDX-License-Identifier: MIT
// libFuzzer target: hostile frames into a live responder (live_responder.hpp). Build with clang
// (see fuzz/CMakeLists.txt); seeds: fuzz/corpus/ (each seed is tried as the frame of every
// input mode by the bounded driver; libFuzzer mutates the mode byte itself).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "live_responder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ndksim::fuzz::live_responder responder;
    const std::string broke = responder.feed(std::span<const std::uint8_t>(data, size));
    if (!broke.empty()) {
        std::fprintf(stderr, "live responder: %s\n", broke.c_str());
        std::abort();
    }
    return 0;
}
