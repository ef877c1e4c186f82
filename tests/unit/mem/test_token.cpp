// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "mem/token.hpp"

namespace ndksim::mem {
namespace {

TEST(Token, CarriesIndexInTheHighBitsAndKeyInTheLowByte) {
    const std::uint32_t t = make_token(0x123456, 0x9A);
    EXPECT_EQ(t, 0x1234569Au);
    EXPECT_EQ(token_index(t), 0x123456u);
    EXPECT_EQ(token_key(t), 0x9A);
}

TEST(Token, NextKeyChangesTheKeyAndWrapsAfter255) {
    EXPECT_EQ(next_key(0), 1);
    EXPECT_EQ(next_key(0xFF), 0);
    std::uint8_t k = 7;
    for (int i = 0; i < 255; ++i) {
        k = next_key(k);
        EXPECT_NE(k, 7);
    }
    EXPECT_EQ(next_key(k), 7);
}

TEST(Token, LargestIndexRoundTrips) {
    const std::uint32_t t = make_token(token_index_limit - 1, 0xFF);
    EXPECT_EQ(t, 0xFFFFFFFFu);
    EXPECT_EQ(token_index(t), token_index_limit - 1);
}

}  // namespace
}  // namespace ndksim::mem
