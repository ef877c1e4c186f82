// SPDX-License-Identifier: MIT
#pragma once
// The Windows kernel's printf dialect, shared by ntstrsafe's printf functions and DbgPrint. It
// differs from glibc's: l is 32 bits, I64 / I / I32 are size prefixes, %p is 16 upper-case hex
// digits, %Z / %wZ print counted strings, %s / %c follow the function family (narrow or wide),
// the '0' flag pads strings too, and unknown conversions print their character. Numbers are
// handed to snprintf once the Windows size rules have picked their type, because the
// digit-level rules of the two libraries agree.

#include <cstdarg>
#include <string>

namespace ndksim::kernel {

/// The result of one formatting call.
struct formatted {
    /// The output as UTF-16 units. A narrow caller converts it back with unicode_to_ansi, which
    /// restores narrow arguments and format text byte for byte.
    std::u16string text;
    /// True when a Unicode format code (%C, %S, %lc, %ls, %wc, %ws, %wZ and the like) read a
    /// wide argument in a narrow format; DbgPrint allows those only at PASSIVE_LEVEL.
    bool unicode_conversion = false;
};

/// Formats with the narrow family's rules (the A functions, DbgPrint): %s and %c are narrow.
formatted format_windows(const char* format, std::va_list args);

/// Formats with the wide family's rules (the W functions): %s and %c are wide.
formatted format_windows(const char16_t* format, std::va_list args);

}  // namespace ndksim::kernel
