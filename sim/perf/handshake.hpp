// SPDX-License-Identifier: MIT
#pragma once
// The private data of a two-process run's connections (--role server/client): the client's
// NdkConnect carries its workload and its buffer, the server's NdkAccept answers with its
// buffer. Both sides must run the same workload, since the server replays its half of each
// exchange (the replies of a ping-pong, the receives of a send) from its own options.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "options.hpp"

namespace ndksim::perf {

/// A side's registered buffer as its peer addresses it.
struct remote_buffer {
    std::uint64_t address = 0;  ///< virtual address of the buffer's first byte
    std::uint32_t token = 0;    ///< remote token of its memory region
};

/// What the client sends: 53 bytes, within every profile's MaxCallerData (56 for cx4-edr).
struct connect_request {
    std::uint8_t test = 0;  ///< test_kind
    std::uint8_t mode = 0;  ///< run_mode
    std::uint16_t inline_size = 0;
    std::uint32_t warmup = 0;
    std::uint32_t iterations = 0;
    std::uint32_t qps = 0;
    std::uint32_t outstanding = 0;
    std::uint32_t size_count = 0;
    std::uint32_t sizes_hash = 0;  ///< FNV-1a of the sizes in order
    std::uint64_t largest = 0;
    remote_buffer buffer;  ///< the client's
};

inline constexpr std::size_t k_request_bytes = 53;
inline constexpr std::size_t k_reply_bytes = 20;

/// The request describing `o` and the client's buffer.
connect_request request_for(const options& o, remote_buffer client);

std::array<std::byte, k_request_bytes> encode(const connect_request& r);
std::array<std::byte, k_reply_bytes> encode(const remote_buffer& server);

/// Decodes private data of `length` bytes; nullopt when it is not ndksim-perf's (wrong length,
/// magic or version).
std::optional<connect_request> decode_request(const std::byte* data, std::size_t length);
std::optional<remote_buffer> decode_reply(const std::byte* data, std::size_t length);

/// The first workload field in which `theirs` differs from `mine`, as "--flag: mine vs theirs";
/// empty when they match.
std::string mismatch(const connect_request& mine, const connect_request& theirs);

}  // namespace ndksim::perf
