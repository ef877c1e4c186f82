// SPDX-License-Identifier: MIT
// Code page 1252 and upper-casing. Windows converts with the system's ANSI code page; 1252 is the
// one of English and Western European installations. Bytes 0x00-0x7F and 0xA0-0xFF are the
// Unicode characters of the same value; 0x80-0x9F carry the typographic characters below (the
// five bytes 1252 leaves undefined map to the C1 control of the same value, as Windows'
// MultiByteToWideChar does), so every byte round-trips.

#include "kernel/code_page.hpp"

#include <array>
#include <clocale>
#include <cwctype>

#include <locale.h>

namespace ndksim::kernel {
namespace {

constexpr std::array<char16_t, 32> k_cp1252_80_9f = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

// The C library's case tables for a UTF-8 locale; created once, never freed (process lifetime).
locale_t unicode_locale() noexcept {
    static const locale_t instance = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
    return instance;
}

}  // namespace

char16_t ansi_to_unicode(unsigned char byte) noexcept {
    if (byte >= 0x80 && byte <= 0x9F) {
        return k_cp1252_80_9f[byte - 0x80];
    }
    return static_cast<char16_t>(byte);
}

char unicode_to_ansi(char16_t unit) noexcept {
    if (unit < 0x80 || (unit >= 0xA0 && unit <= 0xFF)) {
        return static_cast<char>(static_cast<unsigned char>(unit));
    }
    for (std::size_t i = 0; i < k_cp1252_80_9f.size(); ++i) {
        if (k_cp1252_80_9f[i] == unit) {
            return static_cast<char>(static_cast<unsigned char>(0x80 + i));
        }
    }
    return '?';
}

std::u16string ansi_to_unicode(std::string_view text) {
    std::u16string out;
    out.reserve(text.size());
    for (const char c : text) {
        out.push_back(ansi_to_unicode(static_cast<unsigned char>(c)));
    }
    return out;
}

std::string unicode_to_ansi(std::u16string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char16_t unit : text) {
        out.push_back(unicode_to_ansi(unit));
    }
    return out;
}

char16_t upcase(char16_t unit) noexcept {
    if (unit < 0x80) {
        return (unit >= u'a' && unit <= u'z') ? static_cast<char16_t>(unit - 0x20) : unit;
    }
    if (unit >= 0xD800 && unit <= 0xDFFF) {
        return unit;
    }
    const locale_t locale = unicode_locale();
    if (locale == static_cast<locale_t>(0)) {
        // Without a UTF-8 locale only Latin-1 is mapped: U+00E0-U+00FE (except U+00F7) and U+00FF.
        if (unit >= 0xE0 && unit <= 0xFE && unit != 0xF7) {
            return static_cast<char16_t>(unit - 0x20);
        }
        return unit == 0xFF ? char16_t{0x0178} : unit;
    }
    const wint_t upper = towupper_l(static_cast<wint_t>(unit), locale);
    // A mapping that leaves the BMP has no single UTF-16 unit; keep the character as it is.
    return upper <= 0xFFFF ? static_cast<char16_t>(upper) : unit;
}

std::size_t wide_length(const char16_t* text) noexcept {
    std::size_t n = 0;
    while (text[n] != 0) {
        ++n;
    }
    return n;
}

}  // namespace ndksim::kernel
