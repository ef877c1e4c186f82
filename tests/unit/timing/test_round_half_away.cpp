// SPDX-License-Identifier: MIT
// round_half_away gives std::llround's result on every value the cost model can produce and on
// the edges of the double format: halves, the double just below a half, the last doubles with
// a fraction, integers beyond them, and what it hands to the library.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "timing/round_half_away.hpp"

namespace ndksim::timing {
namespace {

void expect_llround(double x) {
    EXPECT_EQ(std::llround(x), round_half_away(x)) << "x = " << x;
}

TEST(RoundHalfAway, AgreesWithLlroundOnTheEdges) {
    const double below_half = std::nextafter(0.5, 0.0);  // 0.49999999999999994
    for (double x : {0.0, 0.25, 0.5, below_half, std::nextafter(0.5, 1.0), 1.0, 1.5, 2.5, 3.5,
                     std::nextafter(1.5, 0.0), 4503599627370495.5, 4503599627370496.0,
                     9007199254740994.0, 1e18, std::nextafter(9223372036854775808.0, 0.0)}) {
        expect_llround(x);
    }
    // The library's cases: negative values, and (as llround) no crash on the rest.
    for (double x : {-0.5, -1.5, -2.4, -1e6}) {
        expect_llround(x);
    }
}

TEST(RoundHalfAway, AgreesWithLlroundOnTheCostModelsQuotients) {
    // bytes * 8e12 / rate, as the cost model forms every transfer time [ps], for packet sizes
    // and link, PCIe and memory rates from 1 Gb/s to 1.6 Tb/s.
    std::mt19937_64 random(20261129);
    std::uniform_int_distribution<std::uint64_t> bytes(0, 1u << 24);
    std::uniform_int_distribution<std::uint64_t> rate(1'000'000'000, 1'600'000'000'000);
    for (int i = 0; i < 200'000; ++i) {
        const double x =
            static_cast<double>(bytes(random)) * 8.0e12 / static_cast<double>(rate(random));
        ASSERT_EQ(std::llround(x), round_half_away(x)) << "x = " << x;
    }
    // Exact halves: 1 byte at 16 Tb/s is 0.5 ps.
    expect_llround(1.0 * 8.0e12 / 16e12);
}

}  // namespace
}  // namespace ndksim::timing
