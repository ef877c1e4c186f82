// SPDX-License-Identifier: MIT
#pragma once
// The messages the two loopback processes exchange through NDK sends. They are plain structs in
// host byte order: both processes run on the same machine from the same build.

#include <cstdint>

namespace ndksim::loopback {

/// What a message asks for (connector -> listener) or reports (listener -> connector).
enum class msg_kind : std::uint32_t {
    hello = 1,        ///< listener: the window and region it exposes (address, tokens, length)
    fill = 2,         ///< connector: fill [offset, offset+length) with the pattern of `seed`
    verify = 3,       ///< connector: check that range against the pattern of `seed`
    invalidated = 4,  ///< connector, by NdkSendAndInvalidate: the window token is gone
    rebind = 5,       ///< connector: bind the window again; the reply carries the new token
    bye = 6,          ///< connector: no more requests; the connector disconnects next
    reply = 7,        ///< listener: the answer to the request (result 0 = done)
};

constexpr std::uint32_t k_magic = 0x4e4b4c42;  // "NKLB"

/// One message: it always fits in one receive slot.
struct message {
    std::uint32_t magic = k_magic;
    msg_kind kind = msg_kind::reply;
    std::uint64_t address = 0;   ///< hello: the exposed buffer's virtual address
    std::uint32_t mr_token = 0;  ///< hello: the region's remote token
    std::uint32_t mw_token = 0;  ///< hello, rebind reply: the window's remote token
    std::uint64_t offset = 0;
    std::uint64_t length = 0;  ///< hello: bytes the window and the region expose
    std::uint64_t seed = 0;
    std::uint32_t result = 0;  ///< reply: 0 = done; otherwise 1 + the first bad byte's offset
    std::uint32_t reserved = 0;
};

/// Message slots are this large: a message and a multi-MTU payload after it fit in one.
constexpr std::uint32_t k_slot_size = 64 * 1024;
static_assert(sizeof(message) <= k_slot_size);

/// The byte at `index` of the pattern `seed`: cheap, and different for every seed and offset.
constexpr std::uint8_t pattern_byte(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t x = (index + 1) * 0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull);
    return static_cast<std::uint8_t>((x >> 29) ^ (x >> 47) ^ x);
}

}  // namespace ndksim::loopback
