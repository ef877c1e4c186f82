// SPDX-License-Identifier: MIT
#pragma once
// The text conversions behind the Rtl string routines and the Windows printf formatter: the ANSI
// code page (1252, Windows' Western European code page) and Unicode upper-casing. Both directions
// of the code page are one character per unit, which keeps the byte counts of converted strings
// equal to their character counts as on a single-byte Windows system.

#include <cstddef>
#include <string>
#include <string_view>

namespace ndksim::kernel {

/// The Unicode character of one code page 1252 byte (every byte has one).
char16_t ansi_to_unicode(unsigned char byte) noexcept;

/// The code page 1252 byte of a UTF-16 unit, or '?' when the code page has no such character.
char unicode_to_ansi(char16_t unit) noexcept;

/// Whole-string forms of the two conversions above.
std::u16string ansi_to_unicode(std::string_view text);
std::string unicode_to_ansi(std::u16string_view text);

/// Upper-case form of a UTF-16 unit (Unicode simple case mapping of the BMP; surrogates and
/// characters without an upper-case form come back unchanged).
char16_t upcase(char16_t unit) noexcept;

/// Length of a NUL-terminated UTF-16 string, in units.
std::size_t wide_length(const char16_t* text) noexcept;

}  // namespace ndksim::kernel
