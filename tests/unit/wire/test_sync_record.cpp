// SPDX-License-Identifier: MIT
// The sync record (wire/sync_record.hpp): what encode writes decode reads back, a body not
// marked as a record is left to the frame path, and a marked body that is not exactly a record
// of this version is refused, so nothing malformed reaches the sync domain.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <limits>
#include <span>

#include "wire/sync_record.hpp"

namespace ndksim::wire {
namespace {

std::array<std::byte, sync_record_size> encoded(const sync_record& r) {
    std::array<std::byte, sync_record_size> b{};
    encode_sync_record(r, std::span<std::byte, sync_record_size>(b));
    return b;
}

TEST(SyncRecord, WhatIsEncodedDecodesToTheSameFields) {
    sync_record r;
    r.promise = 123'456'789'012ULL;
    r.frames_seen = 77;
    r.frames_sent = 1ULL << 40;
    const auto b = encoded(r);
    EXPECT_EQ(b[0], std::byte{0xFF}) << "marked with an IBA manufacturer-specific opcode";
    sync_record out;
    ASSERT_EQ(sync_body::record, decode_sync_record(b, out));
    EXPECT_EQ(out.promise, r.promise);
    EXPECT_EQ(out.frames_seen, r.frames_seen);
    EXPECT_EQ(out.frames_sent, r.frames_sent);
    EXPECT_FALSE(out.leaving);

    r.leaving = true;
    r.promise = std::numeric_limits<timing::sim_time>::max();
    ASSERT_EQ(sync_body::record, decode_sync_record(encoded(r), out));
    EXPECT_TRUE(out.leaving);
    EXPECT_EQ(out.promise, r.promise);
}

TEST(SyncRecord, ABodyNotMarkedAsARecordIsLeftToTheFramePath) {
    std::array<std::byte, sync_record_size> b{};
    b[0] = std::byte{0x0A};  // RC RDMA WRITE ONLY: a frame's first byte
    sync_record out;
    EXPECT_EQ(sync_body::not_a_record, decode_sync_record(b, out));
    EXPECT_EQ(sync_body::not_a_record, decode_sync_record({}, out));
}

TEST(SyncRecord, AMarkedBodyThatIsNotExactlyARecordIsRefused) {
    const auto good = encoded(sync_record{});
    sync_record out;
    // Too short and too long.
    EXPECT_EQ(
        sync_body::bad_record,
        decode_sync_record(std::span<const std::byte>(good).first(sync_record_size - 1), out));
    std::array<std::byte, sync_record_size + 8> longer{};
    std::copy(good.begin(), good.end(), longer.begin());
    EXPECT_EQ(sync_body::bad_record, decode_sync_record(longer, out));
    // Each byte that must hold a fixed value.
    for (const std::size_t at : {1U, 2U, 3U, 4U, 5U, 6U, 7U, 32U, 39U}) {
        auto b = good;
        b[at] ^= std::byte{0x80};
        EXPECT_EQ(sync_body::bad_record, decode_sync_record(b, out)) << "byte " << at;
    }
}

}  // namespace
}  // namespace ndksim::wire
