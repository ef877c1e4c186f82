// SPDX-License-Identifier: MIT
#include "wire/sync_record.hpp"

#include <algorithm>
#include <array>

#include "wire/proto.hpp"

namespace ndksim::wire {
namespace {

constexpr std::array<std::byte, 4> k_magic{std::byte{0xFF}, std::byte{'N'}, std::byte{'D'},
                                           std::byte{'S'}};
constexpr std::byte k_version{1};
constexpr std::byte k_flag_leaving{0x01};

constexpr std::size_t k_version_at = 4;
constexpr std::size_t k_flags_at = 5;
constexpr std::size_t k_reserved_at = 6;
constexpr std::size_t k_promise_at = 8;
constexpr std::size_t k_seen_at = 16;
constexpr std::size_t k_sent_at = 24;
constexpr std::size_t k_tail_at = 32;

}  // namespace

void encode_sync_record(const sync_record& r, std::span<std::byte, sync_record_size> out) noexcept {
    std::fill(out.begin(), out.end(), std::byte{0});
    std::copy(k_magic.begin(), k_magic.end(), out.begin());
    out[k_version_at] = k_version;
    out[k_flags_at] = r.leaving ? k_flag_leaving : std::byte{0};
    store_be<8>(out.data() + k_promise_at, r.promise);
    store_be<8>(out.data() + k_seen_at, r.frames_seen);
    store_be<8>(out.data() + k_sent_at, r.frames_sent);
}

sync_body decode_sync_record(std::span<const std::byte> body, sync_record& out) noexcept {
    if (body.empty() || body[0] != k_magic[0]) {
        return sync_body::not_a_record;
    }
    if (body.size() != sync_record_size ||
        !std::equal(k_magic.begin(), k_magic.end(), body.begin()) ||
        body[k_version_at] != k_version || (body[k_flags_at] & ~k_flag_leaving) != std::byte{0} ||
        load_be<2>(body.data() + k_reserved_at) != 0 || load_be<8>(body.data() + k_tail_at) != 0) {
        return sync_body::bad_record;
    }
    out.leaving = (body[k_flags_at] & k_flag_leaving) != std::byte{0};
    out.promise = load_be<8>(body.data() + k_promise_at);
    out.frames_seen = load_be<8>(body.data() + k_seen_at);
    out.frames_sent = load_be<8>(body.data() + k_sent_at);
    return sync_body::record;
}

}  // namespace ndksim::wire
