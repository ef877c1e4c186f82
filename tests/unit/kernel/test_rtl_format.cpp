// SPDX-License-Identifier: MIT
// The Windows printf dialect through ntstrsafe's printf functions: sizes (32-bit l, I64, I),
// family-dependent %s/%c, counted strings, %p, flags, widths, precisions, and the truncation
// contract. Expected outputs are the Microsoft CRT's.

#include <gtest/gtest.h>

#include <cstdarg>
#include <string>

#include "kernel_test.hpp"
#include "ntstrsafe.h"

namespace ndksim::kernel::test {
namespace {

template <typename... Args>
std::string narrow(const char* format, Args... args) {
    char buffer[256];
    EXPECT_EQ(RtlStringCbPrintfA(buffer, sizeof(buffer), format, args...), STATUS_SUCCESS)
        << format;
    return buffer;
}

template <typename... Args>
std::u16string wide(const char16_t* format, Args... args) {
    WCHAR buffer[256];
    EXPECT_EQ(RtlStringCbPrintfW(buffer, sizeof(buffer), format, args...), STATUS_SUCCESS);
    return buffer;
}

TEST(WindowsPrintf, SignedAndUnsignedIntegers) {
    EXPECT_EQ(narrow("%d", 42), "42");
    EXPECT_EQ(narrow("%i", -1), "-1");
    EXPECT_EQ(narrow("%5d|%-5d|", 42, 42), "   42|42   |");
    EXPECT_EQ(narrow("%05d", -42), "-0042");
    EXPECT_EQ(narrow("%+d % d", 5, 5), "+5  5");
    EXPECT_EQ(narrow("%.3d", 7), "007");
    EXPECT_EQ(narrow("%.0d", 0), "");
    EXPECT_EQ(narrow("%u", 0xFFFFFFFFU), "4294967295");
    EXPECT_EQ(narrow("%x %X", 255, 255), "ff FF");
    EXPECT_EQ(narrow("%#x %#X %#o %o", 255, 255, 8, 8), "0xff 0XFF 010 10");
    EXPECT_EQ(narrow("%#x", 0), "0");
    EXPECT_EQ(narrow("%08x", 0xbeef), "0000beef");
}

TEST(WindowsPrintf, LongIsThirtyTwoBits) {
    EXPECT_EQ(narrow("%ld", LONG{-5}), "-5");
    EXPECT_EQ(narrow("%lu", ULONG{0xFFFFFFFFU}), "4294967295");
    EXPECT_EQ(narrow("%lx", ULONG{0xdeadbeefU}), "deadbeef");
    // A 32-bit %lu consumes one 32-bit argument: the next one lines up.
    EXPECT_EQ(narrow("%lu %d", ULONG{1}, 2), "1 2");
    EXPECT_EQ(narrow("%I32u %I32d", ULONG{3}, -4), "3 -4");
}

TEST(WindowsPrintf, SixtyFourBitAndPointerSizedIntegers) {
    EXPECT_EQ(narrow("%I64d", LONGLONG{-1234567890123LL}), "-1234567890123");
    EXPECT_EQ(narrow("%I64u", ULONGLONG{0xFFFFFFFFFFFFFFFFULL}), "18446744073709551615");
    EXPECT_EQ(narrow("%I64x", ULONGLONG{0x123456789abcdef0ULL}), "123456789abcdef0");
    EXPECT_EQ(narrow("%I64X", ULONGLONG{0xabcULL}), "ABC");
    EXPECT_EQ(narrow("%lld %llu %llx", LONGLONG{-1}, ULONGLONG{2}, ULONGLONG{0x1fULL}), "-1 2 1f");
    EXPECT_EQ(narrow("%Iu", SIZE_T{1} << 40), "1099511627776");
    EXPECT_EQ(narrow("%Id", SSIZE_T{-1}), "-1");
    EXPECT_EQ(narrow("%Ix", ULONG_PTR{0xfeedULL}), "feed");
    EXPECT_EQ(narrow("%zu", SIZE_T{7}), "7");
    EXPECT_EQ(narrow("%I64d|%d", LONGLONG{1}, 2), "1|2");
}

TEST(WindowsPrintf, ShortAndCharSizes) {
    EXPECT_EQ(narrow("%hd", 70000), "4464");
    EXPECT_EQ(narrow("%hu", 65537), "1");
    EXPECT_EQ(narrow("%hx", 0x12345), "2345");
    EXPECT_EQ(narrow("%hhd", 257), "1");
}

TEST(WindowsPrintf, NarrowFamilyCharactersAndStrings) {
    EXPECT_EQ(narrow("%c%5c|%-3c|", 'A', 'B', 'C'), "A    B|C  |");
    EXPECT_EQ(narrow("%C%wc%lc%hc", u'W', u'x', u'y', 'z'), "Wxyz");
    EXPECT_EQ(narrow("%s|%.2s|%5s|%-5s|", "abc", "abc", "abc", "abc"), "abc|ab|  abc|abc  |");
    EXPECT_EQ(narrow("%05s", "ab"), "000ab");
    EXPECT_EQ(
        narrow("%s %S", static_cast<const char*>(nullptr), static_cast<const WCHAR*>(nullptr)),
        "(null) (null)");
    EXPECT_EQ(narrow("%S|%ws|%ls|%hs", u"wide", u"w2", u"w3", "n"), "wide|w2|w3|n");
    EXPECT_EQ(narrow("%.2S", u"wide"), "wi");
}

TEST(WindowsPrintf, CountedStrings) {
    const UNICODE_STRING u = RTL_CONSTANT_STRING(u"hello");
    const ANSI_STRING a = RTL_CONSTANT_STRING("ansi");
    EXPECT_EQ(narrow("%wZ|%Z", &u, &a), "hello|ansi");
    EXPECT_EQ(narrow("%8wZ|%-6Z|%.3wZ", &u, &a, &u), "   hello|ansi  |hel");
    EXPECT_EQ(narrow("%wZ", static_cast<const UNICODE_STRING*>(nullptr)), "(null)");
    // Length bounds the text: no NUL is needed or read.
    WCHAR raw[3] = {u'a', u'b', u'c'};
    const UNICODE_STRING partial{4, 6, raw};
    EXPECT_EQ(narrow("[%wZ]", &partial), "[ab]");
}

TEST(WindowsPrintf, PointersPercentAndUnknownConversions) {
    EXPECT_EQ(narrow("%p", reinterpret_cast<void*>(0x1234)), "0000000000001234");
    EXPECT_EQ(narrow("%p", static_cast<void*>(nullptr)), "0000000000000000");
    EXPECT_EQ(narrow("%p", reinterpret_cast<void*>(0xabcdef0123ULL)), "000000ABCDEF0123");
    EXPECT_EQ(narrow("%20p|", reinterpret_cast<void*>(1)), "    0000000000000001|");
    EXPECT_EQ(narrow("100%% %y"), "100% y");
    EXPECT_EQ(narrow("end%"), "end");
}

TEST(WindowsPrintf, StarWidthAndPrecision) {
    EXPECT_EQ(narrow("%*d|%-*d|%*d|", 5, 42, 4, 1, -4, 2), "   42|1   |2   |");
    EXPECT_EQ(narrow("%.*s|%.*d", 2, "abc", 3, 5), "ab|005");
}

TEST(WindowsPrintf, FloatingPointMatchesTheCLibrary) {
    EXPECT_EQ(narrow("%f %.2f", 1.5, 3.14159), "1.500000 3.14");
    EXPECT_EQ(narrow("%e|%g|%10.3f|", 1.0, 0.0001, 2.5), "1.000000e+00|0.0001|     2.500|");
}

TEST(WindowsPrintf, NarrowOutputUsesCodePage1252) {
    EXPECT_EQ(narrow("%S", u"\u00e9\u20ac\u4e2d"), "\xe9\x80?");
    EXPECT_EQ(narrow("%s", "\xc3\xa9"), "\xc3\xa9");  // narrow bytes pass through unchanged
}

TEST(WindowsPrintf, WideFamilySwapsTheDefaultWidth) {
    const UNICODE_STRING u = RTL_CONSTANT_STRING(u"uni");
    const ANSI_STRING a = RTL_CONSTANT_STRING("ans");
    EXPECT_EQ(wide(u"%s|%S|%hs|%ls|%ws", u"w", "n", "h", u"l", u"ws"), u"w|n|h|l|ws");
    EXPECT_EQ(wide(u"%c%C%hc%wc", u'a', 'b', 'c', u'd'), u"abcd");
    EXPECT_EQ(wide(u"%wZ|%Z|%hZ", &u, &u, &a), u"uni|uni|ans");
    EXPECT_EQ(wide(u"%d %I64x %lu", -3, ULONGLONG{0xabcULL}, ULONG{7}), u"-3 abc 7");
    EXPECT_EQ(wide(u"%hs", "\xe9"), u"\u00e9");
    EXPECT_EQ(wide(u"%s", static_cast<const WCHAR*>(nullptr)), u"(null)");
}

TEST(Ntstrsafe, PrintfTruncatesWithOverflowAndTerminates) {
    char buffer[8];
    EXPECT_EQ(RtlStringCchPrintfA(buffer, 4, "%d", 12345), STATUS_BUFFER_OVERFLOW);
    EXPECT_STREQ(buffer, "123");
    EXPECT_EQ(RtlStringCchPrintfA(buffer, 6, "%d", 12345), STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "12345");
    WCHAR wbuffer[4];
    EXPECT_EQ(RtlStringCbPrintfW(wbuffer, sizeof(wbuffer), u"%s", u"abcdef"),
              STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(std::u16string(wbuffer), u"abc");
    EXPECT_EQ(RtlStringCchPrintfW(wbuffer, 4, u"%d", 123), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(wbuffer), u"123");
}

TEST(Ntstrsafe, PrintfRejectsZeroAndOversizedDestinations) {
    char buffer[4] = {'#', '#', '#', '\0'};
    EXPECT_EQ(RtlStringCchPrintfA(buffer, 0, "x"), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '#');
    EXPECT_EQ(RtlStringCchPrintfA(buffer, size_t{NTSTRSAFE_MAX_CCH} + 1, "x"),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '#');
    WCHAR wbuffer[2];
    EXPECT_EQ(RtlStringCbPrintfW(wbuffer, 1, u"x"), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlStringCchPrintfA(buffer, sizeof(buffer), nullptr), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(buffer[0], '\0');
}

NTSTATUS forward_narrow(char* destination, size_t size, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const NTSTATUS status = RtlStringCbVPrintfA(destination, size, format, args);
    va_end(args);
    return status;
}

NTSTATUS forward_wide(WCHAR* destination, size_t size, const WCHAR* format, ...) {
    va_list args;
    va_start(args, format);
    const NTSTATUS status = RtlStringCchVPrintfW(destination, size, format, args);
    va_end(args);
    return status;
}

TEST(Ntstrsafe, VPrintfFormsTakeAVaList) {
    char buffer[32];
    EXPECT_EQ(forward_narrow(buffer, sizeof(buffer), "%s-%I64u", "v", ULONGLONG{9}),
              STATUS_SUCCESS);
    EXPECT_STREQ(buffer, "v-9");
    WCHAR wbuffer[32];
    EXPECT_EQ(forward_wide(wbuffer, 32, u"%s=%x", u"k", 255), STATUS_SUCCESS);
    EXPECT_EQ(std::u16string(wbuffer), u"k=ff");
}

TEST(Ntstrsafe, UnicodeStringPrintfFillsToMaximumLength) {
    WCHAR buffer[5];
    UNICODE_STRING s{0, sizeof(buffer), buffer};
    EXPECT_EQ(RtlUnicodeStringPrintf(&s, u"%d", 123), STATUS_SUCCESS);
    EXPECT_EQ(s.Length, 6);
    EXPECT_EQ(RtlUnicodeStringPrintf(&s, u"%s", u"toolong"), STATUS_BUFFER_OVERFLOW);
    EXPECT_EQ(s.Length, 10);
    EXPECT_EQ(std::u16string(buffer, 5), u"toolo");
    UNICODE_STRING odd{1, sizeof(buffer), buffer};
    EXPECT_EQ(RtlUnicodeStringPrintf(&odd, u"x"), STATUS_INVALID_PARAMETER);
    UNICODE_STRING none{0, 0, nullptr};
    EXPECT_EQ(RtlUnicodeStringPrintf(&none, u"x"), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(RtlUnicodeStringPrintf(&none, u""), STATUS_SUCCESS);
}

}  // namespace
}  // namespace ndksim::kernel::test
