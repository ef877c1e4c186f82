// SPDX-License-Identifier: MIT
#pragma once
// Token format: token = table index << 8 | key byte (STYLE.md habit 6). The index selects the
// token-table slot in O(1); the key byte changes on every activation of the slot (allocation,
// registration, fast-register initialization, bind; fast register itself only when the unit
// rotates fast-register tokens), so a token kept from an earlier life of the slot fails the
// full-token match. Index 0 is reserved, so token values 0..255 are never valid.
// Local and remote tokens of a region are the same value (as on ConnectX-class adapters); the
// rights recorded in the slot decide what each use may do.

#include <cstdint>

namespace ndksim::mem {

inline constexpr std::uint32_t token_key_bits = 8;
inline constexpr std::uint32_t token_key_mask = (1u << token_key_bits) - 1;
/// Number of addressable slots (index 0 included); the largest usable index is this - 1.
inline constexpr std::uint32_t token_index_limit = 1u << (32 - token_key_bits);

/// The token naming slot `index` with key byte `key`. Precondition: index < token_index_limit.
constexpr std::uint32_t make_token(std::uint32_t index, std::uint8_t key) noexcept {
    return (index << token_key_bits) | key;
}

/// The slot index carried by `token`.
constexpr std::uint32_t token_index(std::uint32_t token) noexcept {
    return token >> token_key_bits;
}

/// The key byte carried by `token`.
constexpr std::uint8_t token_key(std::uint32_t token) noexcept {
    return static_cast<std::uint8_t>(token & token_key_mask);
}

/// The key byte that follows `key` (wraps after 255; a slot repeats a token only after 256
/// activations).
constexpr std::uint8_t next_key(std::uint8_t key) noexcept {
    return static_cast<std::uint8_t>(key + 1u);
}

}  // namespace ndksim::mem
