// SPDX-License-Identifier: MIT
// ntstrsafe copy, concatenation and length functions, and the UNICODE_STRING copy/cat forms:
// the exact statuses of each edge (zero and oversized destinations, truncation, unterminated
// destinations, NULL pointers).

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ntstrsafe.h"

namespace ndksim::kernel::test {
namespace {

TEST(NtstrsafeCopy, CopiesTruncatesAndRejects) {
    char buffer[4] = {'#', '#', '#', '#'};
    EXPECT_EQ(RtlStringCchCopyA(buffer, 4, "abc"), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "abc");
    EXPECT_EQ(RtlStringCchCopyA(buffer, 4, "abcd"), STATUS_BUFFER_OVERFLOW);
    EXPECT_STREQ(buffer, "abc");
    EXPECT_EQ(RtlStringCbCopyA(buffer, sizeof(buffer), "xy"), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "xy");
    std::memset(buffer, '#', sizeof(buffer));
    EXPECT_EQ(RtlStringCchCopyA(buffer, 0, "a"), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '#');
    EXPECT_EQ(RtlStringCchCopyA(buffer, size_t{NTSTRSAFE_MAX_CCH} + 1, "a"),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '#');
    EXPECT_EQ(RtlStringCchCopyA(buffer, 4, nullptr), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '\0');
}

TEST(NtstrsafeCopy, WideByteCountsDropAnOddByte) {
    WCHAR buffer[4];
    // 7 bytes hold 3 WCHARs: two characters and the NUL.
    EXPECT_EQ(RtlStringCbCopyW(buffer, 7, u"abc"), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(std::u16string(buffer), u"ab");
    EXPECT_EQ(RtlStringCchCopyW(buffer, 4, u"abc"), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(buffer), u"abc");
    EXPECT_EQ(RtlStringCbCopyW(buffer, 1, u"a"), STATUS_INVALID_PARAMETER);
}

TEST(NtstrsafeCopy, CopyNBoundsTheSourceRead) {
    char buffer[8];
    EXPECT_EQ(RtlStringCchCopyNA(buffer, 8, "abcdef", 3), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "abc");
    const char unterminated[2] = {'x', 'y'};
    EXPECT_EQ(RtlStringCbCopyNA(buffer, 8, unterminated, 2), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "xy");
    EXPECT_EQ(RtlStringCchCopyNA(buffer, 3, "abcdef", 5), STATUS_BUFFER_OVERFLOW);
    EXPECT_STREQ(buffer, "ab");
    EXPECT_EQ(RtlStringCchCopyNA(buffer, 8, "a", size_t{NTSTRSAFE_MAX_CCH}),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '\0');
    WCHAR wbuffer[8];
    EXPECT_EQ(RtlStringCbCopyNW(wbuffer, sizeof(wbuffer), u"abcdef", 4 * sizeof(WCHAR)),
              STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(wbuffer), u"abcd");
    EXPECT_EQ(RtlStringCchCopyNW(wbuffer, 8, u"xyz", 2), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(wbuffer), u"xy");
}

TEST(NtstrsafeCat, AppendsTruncatesAndRejectsAnUnterminatedDestination) {
    char buffer[5] = "ab";
    EXPECT_EQ(RtlStringCchCatA(buffer, 5, "cd"), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "abcd");
    EXPECT_EQ(RtlStringCchCatA(buffer, 5, ""), STATUS_SUCCESS);
    EXPECT_EQ(RtlStringCchCatA(buffer, 5, "e"), STATUS_BUFFER_OVERFLOW);
    EXPECT_STREQ(buffer, "abcd");
    std::strcpy(buffer, "ab");
    EXPECT_EQ(RtlStringCbCatA(buffer, 4, "cd"), STATUS_BUFFER_OVERFLOW);
    EXPECT_STREQ(buffer, "abc");
    char full[3] = {'x', 'y', 'z'};
    EXPECT_EQ(RtlStringCchCatA(full, 3, "a"), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(full[2], 'z');
    WCHAR wbuffer[6] = u"ab";
    EXPECT_EQ(RtlStringCbCatW(wbuffer, sizeof(wbuffer), u"cd"), STATUS_SUCCESS);
    EXPECT_EQ(RtlStringCchCatW(wbuffer, 6, u"efg"), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(std::u16string(wbuffer), u"abcde");
}

TEST(NtstrsafeLength, MeasuresWithinTheLimitOrFails) {
    size_t length = 99;
    EXPECT_EQ(RtlStringCchLengthA("abc", 4, &length), STATUS_SUCCESS);
    EXPECT_EQ(length, 3U);
    EXPECT_EQ(RtlStringCchLengthA("abc", 3, &length), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(length, 0U);
    EXPECT_EQ(RtlStringCchLengthA(nullptr, 3, &length), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlStringCchLengthA("a", size_t{NTSTRSAFE_MAX_CCH} + 1, &length),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlStringCchLengthA("abc", 10, nullptr), STATUS_SUCCESS);
    EXPECT_EQ(RtlStringCbLengthA("abcd", 10, &length), STATUS_SUCCESS);
    EXPECT_EQ(length, 4U);
    EXPECT_EQ(RtlStringCbLengthW(u"abc", 8, &length), STATUS_SUCCESS);
    EXPECT_EQ(length, 6U);
    EXPECT_EQ(RtlStringCbLengthW(u"abc", 6, &length), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(length, 0U);
    EXPECT_EQ(RtlStringCchLengthW(u"ab", 3, &length), STATUS_SUCCESS);
    EXPECT_EQ(length, 2U);
}

TEST(NtstrsafeUnicodeString, CopyAndCatFillToMaximumLength) {
    WCHAR buffer[4];
    UNICODE_STRING dest{0, sizeof(buffer), buffer};
    const UNICODE_STRING ab = RTL_CONSTANT_STRING(u"ab");
    EXPECT_EQ(RtlUnicodeStringCopy(&dest, &ab), STATUS_SUCCESS);
    EXPECT_EQ(dest.Length, 4);
    EXPECT_EQ(RtlUnicodeStringCat(&dest, &ab), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(buffer, 4), u"abab");
    EXPECT_EQ(RtlUnicodeStringCatString(&dest, u"x"), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(dest.Length, 8);
    EXPECT_EQ(RtlUnicodeStringCopyString(&dest, u"xyz12"), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(std::u16string(buffer, 4), u"xyz1");
    EXPECT_EQ(RtlUnicodeStringCopyString(&dest, u"q"), STATUS_SUCCESS);
    EXPECT_EQ(dest.Length, 2);
    UNICODE_STRING bad{6, 4, buffer};
    EXPECT_EQ(RtlUnicodeStringCopy(&bad, &ab), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlUnicodeStringCopy(&dest, &bad), STATUS_INVALID_PARAMETER);
    UNICODE_STRING no_buffer{0, 4, nullptr};
    EXPECT_EQ(RtlUnicodeStringCatString(&no_buffer, u"a"), STATUS_INVALID_PARAMETER);
}

}  // namespace
}  // namespace ndksim::kernel::test
