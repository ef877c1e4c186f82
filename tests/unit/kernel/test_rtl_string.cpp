// SPDX-License-Identifier: MIT
// Counted strings: initialization, copy, comparison, append, conversions and integers, with the
// Windows contracts of wdm.h (lengths in bytes, NUL only when room is left, exact statuses).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "kernel_test.hpp"
#include "ntddk.h"
#include "wdmsec.h"

namespace ndksim::kernel::test {
namespace {

using RtlString = KernelTest;

std::u16string text_of(const UNICODE_STRING& s) {
    return {s.Buffer, s.Length / sizeof(WCHAR)};
}

UNICODE_STRING view_of(const char16_t* text) {
    UNICODE_STRING s;
    RtlInitUnicodeString(&s, text);
    return s;
}

TEST_F(RtlString, InitUnicodeStringCountsBytesWithoutAndWithTheNul) {
    UNICODE_STRING s;
    RtlInitUnicodeString(&s, u"abc");
    EXPECT_EQ(s.Length, 6);
    EXPECT_EQ(s.MaximumLength, 8);
    EXPECT_EQ(text_of(s), u"abc");
    RtlInitUnicodeString(&s, nullptr);
    EXPECT_EQ(s.Length, 0);
    EXPECT_EQ(s.MaximumLength, 0);
    EXPECT_EQ(s.Buffer, nullptr);
}

TEST_F(RtlString, InitUnicodeStringCutsAnOverlongSourceAndExReportsIt) {
    const std::u16string big(40000, u'x');
    UNICODE_STRING s;
    RtlInitUnicodeString(&s, big.c_str());
    EXPECT_EQ(s.Length, 0xFFFC);
    EXPECT_EQ(s.MaximumLength, 0xFFFE);
    EXPECT_EQ(RtlInitUnicodeStringEx(&s, big.c_str()), STATUS_NAME_TOO_LONG);
    EXPECT_EQ(s.Length, 0);
    EXPECT_EQ(RtlInitUnicodeStringEx(&s, u"ok"), STATUS_SUCCESS);
    EXPECT_EQ(s.Length, 4);
}

TEST_F(RtlString, InitAnsiStringAndInitString) {
    ANSI_STRING a;
    RtlInitAnsiString(&a, "hello");
    EXPECT_EQ(a.Length, 5);
    EXPECT_EQ(a.MaximumLength, 6);
    STRING s;
    RtlInitString(&s, nullptr);
    EXPECT_EQ(s.Length, 0);
    EXPECT_EQ(s.Buffer, nullptr);
}

TEST_F(RtlString, ConstantStringMacrosBuildCountedStrings) {
    UNICODE_STRING u = RTL_CONSTANT_STRING(u"abc");
    EXPECT_EQ(u.Length, 6);
    EXPECT_EQ(u.MaximumLength, 8);
    STRING a = RTL_CONSTANT_STRING("ab");
    EXPECT_EQ(a.Length, 2);
    EXPECT_EQ(a.MaximumLength, 3);
    DECLARE_CONST_UNICODE_STRING(name, u"xyz");
    EXPECT_EQ(name.Length, 6);
    EXPECT_EQ(text_of(name), u"xyz");
    DECLARE_UNICODE_STRING_SIZE(scratch, 16);
    EXPECT_EQ(scratch.Length, 0);
    EXPECT_EQ(scratch.MaximumLength, 32);
    EXPECT_EQ(scratch.Buffer, scratch_buffer);
}

TEST_F(RtlString, CopyUnicodeStringCutsToMaximumLengthAndTerminatesWhenRoomIsLeft) {
    WCHAR buffer[8];
    std::fill(std::begin(buffer), std::end(buffer), u'#');
    UNICODE_STRING dest{0, 4, buffer};
    const UNICODE_STRING source = view_of(u"abc");
    RtlCopyUnicodeString(&dest, &source);
    EXPECT_EQ(dest.Length, 4);
    EXPECT_EQ(buffer[2], u'#');
    dest.MaximumLength = sizeof(buffer);
    RtlCopyUnicodeString(&dest, &source);
    EXPECT_EQ(text_of(dest), u"abc");
    EXPECT_EQ(buffer[3], u'\0');
    RtlCopyUnicodeString(&dest, nullptr);
    EXPECT_EQ(dest.Length, 0);
    EXPECT_EQ(dest.MaximumLength, sizeof(buffer));
}

TEST_F(RtlString, CopyStringOfNtddk) {
    char buffer[4] = {'#', '#', '#', '#'};
    STRING dest{0, 4, buffer};
    STRING source;
    RtlInitString(&source, "ab");
    RtlCopyString(&dest, &source);
    EXPECT_EQ(dest.Length, 2);
    EXPECT_STREQ(buffer, "ab");
}

TEST_F(RtlString, EqualCompareAndPrefixHonourCaseInsensitivity) {
    const UNICODE_STRING abc = view_of(u"Abc");
    const UNICODE_STRING ABC = view_of(u"aBC");
    const UNICODE_STRING abd = view_of(u"abd");
    const UNICODE_STRING ab = view_of(u"ab");
    EXPECT_TRUE(RtlEqualUnicodeString(&abc, &ABC, TRUE));
    EXPECT_FALSE(RtlEqualUnicodeString(&abc, &ABC, FALSE));
    EXPECT_FALSE(RtlEqualUnicodeString(&ab, &abc, TRUE));
    EXPECT_EQ(RtlCompareUnicodeString(&abc, &ABC, TRUE), 0);
    EXPECT_LT(RtlCompareUnicodeString(&abc, &abd, TRUE), 0);
    EXPECT_GT(RtlCompareUnicodeString(&abd, &abc, TRUE), 0);
    EXPECT_LT(RtlCompareUnicodeString(&ab, &abc, TRUE), 0);
    EXPECT_LT(RtlCompareUnicodeString(&abc, &abd, FALSE), 0);  // 'A' < 'a'
    EXPECT_TRUE(RtlPrefixUnicodeString(&ab, &abc, TRUE));
    EXPECT_FALSE(RtlPrefixUnicodeString(&ab, &abc, FALSE));
    EXPECT_FALSE(RtlPrefixUnicodeString(&abc, &ab, TRUE));
    const UNICODE_STRING lower = view_of(u"\u00e9\u0444");
    const UNICODE_STRING upper = view_of(u"\u00c9\u0424");
    EXPECT_TRUE(RtlEqualUnicodeString(&lower, &upper, TRUE));
    EXPECT_EQ(RtlUpcaseUnicodeChar(u'z'), u'Z');
    EXPECT_EQ(RtlUpcaseUnicodeChar(u'1'), u'1');
}

TEST_F(RtlString, ComparisonsNeedPassiveLevel) {
    const UNICODE_STRING a = view_of(u"a");
    KIRQL old;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { RtlEqualUnicodeString(&a, &a, FALSE); }), 1U);
    EXPECT_EQ(violations_of([&] { RtlCompareUnicodeString(&a, &a, FALSE); }), 1U);
    EXPECT_EQ(violations_of([&] { RtlPrefixUnicodeString(&a, &a, FALSE); }), 1U);
    UNICODE_STRING copy{};
    EXPECT_EQ(violations_of([&] { RtlInitUnicodeString(&copy, u"x"); }), 0U);
    KeLowerIrql(old);
}

TEST_F(RtlString, AppendChecksRoomAndTerminatesWhenRoomIsLeft) {
    WCHAR buffer[6] = {};
    UNICODE_STRING dest{0, sizeof(buffer), buffer};
    EXPECT_EQ(RtlAppendUnicodeToString(&dest, u"ab"), STATUS_SUCCESS);
    const UNICODE_STRING cd = view_of(u"cd");
    EXPECT_EQ(RtlAppendUnicodeStringToString(&dest, &cd), STATUS_SUCCESS);
    EXPECT_EQ(text_of(dest), u"abcd");
    EXPECT_EQ(buffer[4], u'\0');
    EXPECT_EQ(RtlAppendUnicodeToString(&dest, u"xyz"), STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(dest.Length, 8);
    EXPECT_EQ(RtlAppendUnicodeToString(&dest, u"e"), STATUS_SUCCESS);
    EXPECT_EQ(dest.Length, 10);  // full: no NUL
    EXPECT_EQ(RtlAppendUnicodeToString(&dest, nullptr), STATUS_SUCCESS);
}

TEST_F(RtlString, UnicodeToAnsiAllocatesFromTrackedPool) {
    const UNICODE_STRING source = view_of(u"h\u00e9llo\u20ac\u4e2d");
    ANSI_STRING ansi{};
    const SIZE_T before = ndksim_kernel_pool_live(NDKSIM_RTL_STRING_TAG);
    ASSERT_EQ(RtlUnicodeStringToAnsiString(&ansi, &source, TRUE), STATUS_SUCCESS);
    EXPECT_EQ(ndksim_kernel_pool_live(NDKSIM_RTL_STRING_TAG), before + 1);
    EXPECT_EQ(ansi.Length, 7);
    EXPECT_EQ(ansi.MaximumLength, 8);
    EXPECT_STREQ(ansi.Buffer, "h\xe9llo\x80?");
    RtlFreeAnsiString(&ansi);
    EXPECT_EQ(ansi.Buffer, nullptr);
    EXPECT_EQ(ansi.Length, 0);
    EXPECT_EQ(ndksim_kernel_pool_live(NDKSIM_RTL_STRING_TAG), before);
}

TEST_F(RtlString, UnicodeToAnsiCutsIntoASmallBufferWithOverflow) {
    const UNICODE_STRING source = view_of(u"abcdef");
    char buffer[4];
    ANSI_STRING ansi{0, sizeof(buffer), buffer};
    EXPECT_EQ(RtlUnicodeStringToAnsiString(&ansi, &source, FALSE), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(ansi.Length, 3);
    EXPECT_STREQ(buffer, "abc");
    ANSI_STRING empty{0, 0, buffer};
    EXPECT_EQ(RtlUnicodeStringToAnsiString(&empty, &source, FALSE), STATUS_BUFFER_OVERFLOW);
}

TEST_F(RtlString, AnsiToUnicodeAllocatesOrRefusesASmallBuffer) {
    ANSI_STRING source;
    RtlInitAnsiString(&source, "ab\x80");
    UNICODE_STRING unicode{};
    ASSERT_EQ(RtlAnsiStringToUnicodeString(&unicode, &source, TRUE), STATUS_SUCCESS);
    EXPECT_EQ(text_of(unicode), u"ab\u20ac");
    EXPECT_EQ(unicode.MaximumLength, 8);
    EXPECT_EQ(unicode.Buffer[3], u'\0');
    RtlFreeUnicodeString(&unicode);
    EXPECT_EQ(unicode.Buffer, nullptr);
    WCHAR buffer[3];
    UNICODE_STRING small{0, sizeof(buffer), buffer};
    EXPECT_EQ(RtlAnsiStringToUnicodeString(&small, &source, FALSE), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(small.Length, 0);
}

TEST_F(RtlString, IntegerToUnicodeStringInEachBase) {
    WCHAR buffer[40];
    UNICODE_STRING s{0, sizeof(buffer), buffer};
    EXPECT_EQ(RtlIntegerToUnicodeString(1234, 10, &s), STATUS_SUCCESS);
    EXPECT_EQ(text_of(s), u"1234");
    EXPECT_EQ(buffer[4], u'\0');
    EXPECT_EQ(RtlIntegerToUnicodeString(255, 16, &s), STATUS_SUCCESS);
    EXPECT_EQ(text_of(s), u"FF");
    EXPECT_EQ(RtlIntegerToUnicodeString(5, 2, &s), STATUS_SUCCESS);
    EXPECT_EQ(text_of(s), u"101");
    EXPECT_EQ(RtlIntegerToUnicodeString(8, 8, &s), STATUS_SUCCESS);
    EXPECT_EQ(text_of(s), u"10");
    EXPECT_EQ(RtlIntegerToUnicodeString(4294967295U, 0, &s), STATUS_SUCCESS);
    EXPECT_EQ(text_of(s), u"4294967295");
    EXPECT_EQ(RtlIntegerToUnicodeString(1, 3, &s), STATUS_INVALID_PARAMETER);
    UNICODE_STRING tight{0, 8, buffer};
    EXPECT_EQ(RtlIntegerToUnicodeString(1234, 10, &tight), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(tight.Length, 0);
}

TEST_F(RtlString, UnicodeStringToIntegerFollowsTheDocumentedExamples) {
    struct example {
        const char16_t* text;
        ULONG base;
        ULONG value;
    };
    const example examples[] = {
        {u"123", 10, 123},
        {u"-345", 10, 0U - 345U},
        {u"xyz", 10, 0},
        {u"+678abc", 10, 678},
        {u"+678abc", 16, 0x678abc},
        {u"0x1F", 0, 31},
        {u"0o17", 0, 15},
        {u"0b101", 0, 5},
        {u"  \t42", 0, 42},
        {u"-0x10", 0, 0U - 16U},
        {u"4294967295", 10, 4294967295U},
        {u"9", 8, 0},
    };
    for (const auto& e : examples) {
        const UNICODE_STRING s = view_of(e.text);
        ULONG value = 77;
        EXPECT_EQ(RtlUnicodeStringToInteger(&s, e.base, &value), STATUS_SUCCESS);
        EXPECT_EQ(value, e.value);
    }
    const UNICODE_STRING empty = view_of(u"");
    ULONG value = 0;
    EXPECT_EQ(RtlUnicodeStringToInteger(&empty, 10, &value), STATUS_INVALID_PARAMETER);
    const UNICODE_STRING one = view_of(u"1");
    EXPECT_EQ(RtlUnicodeStringToInteger(&one, 7, &value), STATUS_INVALID_PARAMETER);
}

TEST_F(RtlString, ByteSwaps) {
    EXPECT_EQ(RtlUshortByteSwap(0x1234), 0x3412);
    EXPECT_EQ(RtlUlongByteSwap(0x12345678U), 0x78563412U);
    EXPECT_EQ(RtlUlonglongByteSwap(0x0102030405060708ULL), 0x0807060504030201ULL);
}

TEST_F(RtlString, SddlStringsOfWdmsec) {
    EXPECT_EQ(text_of(SDDL_DEVOBJ_KERNEL_ONLY), u"D:P");
    EXPECT_EQ(text_of(SDDL_DEVOBJ_SYS_ALL_ADM_ALL), u"D:P(A;;GA;;;SY)(A;;GA;;;BA)");
    EXPECT_EQ(SDDL_DEVOBJ_SYS_ALL.MaximumLength, SDDL_DEVOBJ_SYS_ALL.Length + sizeof(WCHAR));
    EXPECT_EQ(&SDDL_DEVOBJ_INF_SUPPLIED, &SDDL_DEVOBJ_KERNEL_ONLY);
}

TEST(CompilerGlue, MinAndMaxAreTemplatesThatLeaveStdAlone) {
    EXPECT_EQ(min(1, 2L), 1L);
    EXPECT_EQ(max(3U, 2U), 3U);
    EXPECT_EQ(std::max(4, 5), 5);
    C_ASSERT(sizeof(ULONG) == 4);
    EXPECT_EQ(sizeof(__int64), 8U);
    DECLSPEC_ALIGN(64) static char aligned[8];
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % 64, 0U);
}

}  // namespace
}  // namespace ndksim::kernel::test
