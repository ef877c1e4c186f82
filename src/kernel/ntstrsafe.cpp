// SPDX-License-Identifier: MIT
// The safe string functions of ntstrsafe.h. Each A/W pair shares one template over the
// character type; the Cb forms convert their byte counts and call the Cch forms' worker.
//
// Status rules (the WDK's ntstrsafe workers): a destination of 0 or more than NTSTRSAFE_MAX_CCH
// characters is STATUS_INVALID_PARAMETER and is not written; a result that does not fit is cut,
// NUL-terminated and reported as STATUS_BUFFER_OVERFLOW.

#include <cstdarg>
#include <cstring>
#include <string>

#include "kernel/code_page.hpp"
#include "kernel/rtl_format.hpp"
#include "ntstrsafe.h"

namespace ndksim::kernel {
namespace {

constexpr std::size_t k_max_cch = NTSTRSAFE_MAX_CCH;
constexpr std::size_t k_unicode_max_bytes = NTSTRSAFE_UNICODE_STRING_MAX_CCH * sizeof(WCHAR);

template <typename Char>
bool valid_destination(const Char* destination, std::size_t cch) {
    return destination != nullptr && cch != 0 && cch <= k_max_cch;
}

// Copies at most `limit` characters of source (stopping at its NUL) into destination[0, cch),
// always NUL-terminating; STATUS_BUFFER_OVERFLOW when source had more to copy.
template <typename Char>
NTSTATUS copy_bounded(Char* destination, std::size_t cch, const Char* source, std::size_t limit) {
    std::size_t n = 0;
    while (n < limit && source[n] != 0) {
        if (n + 1 == cch) {
            destination[n] = 0;
            return STATUS_BUFFER_OVERFLOW;
        }
        destination[n] = source[n];
        ++n;
    }
    destination[n] = 0;
    return STATUS_SUCCESS;
}

template <typename Char>
NTSTATUS copy_n(Char* destination, std::size_t cch, const Char* source, std::size_t limit) {
    if (!valid_destination(destination, cch)) {
        return STATUS_INVALID_PARAMETER;
    }
    if (source == nullptr || limit > NTSTRSAFE_MAX_LENGTH) {
        destination[0] = 0;
        return STATUS_INVALID_PARAMETER;
    }
    return copy_bounded(destination, cch, source, limit);
}

// The length of text if it is NUL-terminated within cch characters.
template <typename Char>
bool bounded_length(const Char* text, std::size_t cch, std::size_t& length) {
    for (std::size_t n = 0; n < cch; ++n) {
        if (text[n] == 0) {
            length = n;
            return true;
        }
    }
    return false;
}

template <typename Char>
NTSTATUS cat(Char* destination, std::size_t cch, const Char* source) {
    if (!valid_destination(destination, cch)) {
        return STATUS_INVALID_PARAMETER;
    }
    std::size_t used = 0;
    // "The destination buffer is already full": no NUL within its size.
    if (!bounded_length(destination, cch, used) || source == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return copy_bounded(destination + used, cch - used, source, NTSTRSAFE_MAX_LENGTH);
}

template <typename Char>
NTSTATUS length_of(const Char* text, std::size_t cch_max, std::size_t* length) {
    std::size_t n = 0;
    const bool ok = text != nullptr && cch_max <= k_max_cch && bounded_length(text, cch_max, n);
    if (length != nullptr) {
        *length = ok ? n : 0;
    }
    return ok ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

// Copies a formatted result into a character array: the ntstrsafe printf contract.
template <typename Char>
NTSTATUS store_formatted(Char* destination, std::size_t cch, const std::basic_string<Char>& text) {
    const std::size_t n = std::min(text.size(), cch - 1);
    std::memcpy(destination, text.data(), n * sizeof(Char));
    destination[n] = 0;
    return text.size() > cch - 1 ? STATUS_BUFFER_OVERFLOW : STATUS_SUCCESS;
}

NTSTATUS vprintf_narrow(char* destination, std::size_t cch, const char* format, std::va_list args) {
    if (!valid_destination(destination, cch)) {
        return STATUS_INVALID_PARAMETER;
    }
    if (format == nullptr) {
        destination[0] = 0;
        return STATUS_INVALID_PARAMETER;
    }
    return store_formatted(destination, cch, unicode_to_ansi(format_windows(format, args).text));
}

NTSTATUS vprintf_wide(WCHAR* destination, std::size_t cch, const WCHAR* format, std::va_list args) {
    if (!valid_destination(destination, cch)) {
        return STATUS_INVALID_PARAMETER;
    }
    if (format == nullptr) {
        destination[0] = 0;
        return STATUS_INVALID_PARAMETER;
    }
    return store_formatted(destination, cch, format_windows(format, args).text);
}

// A UNICODE_STRING the ntstrsafe functions accept: even lengths, Length <= MaximumLength, within
// NTSTRSAFE_UNICODE_STRING_MAX_CCH, and a Buffer unless both lengths are 0.
bool valid_unicode_string(PCUNICODE_STRING text) {
    return text != nullptr && text->Length % sizeof(WCHAR) == 0 &&
           text->MaximumLength % sizeof(WCHAR) == 0 && text->Length <= text->MaximumLength &&
           text->MaximumLength <= k_unicode_max_bytes &&
           (text->Buffer != nullptr || text->MaximumLength == 0);
}

// Writes text at offset `at` (characters) of destination; fills to MaximumLength and reports
// STATUS_BUFFER_OVERFLOW when it does not fit. No NUL: Length delimits a UNICODE_STRING.
NTSTATUS store_unicode(PUNICODE_STRING destination, std::size_t at, std::u16string_view text) {
    const std::size_t room = destination->MaximumLength / sizeof(WCHAR) - at;
    if (!text.empty() && destination->Buffer == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const std::size_t n = std::min(text.size(), room);
    if (n != 0) {
        std::memcpy(destination->Buffer + at, text.data(), n * sizeof(WCHAR));
    }
    destination->Length = static_cast<USHORT>((at + n) * sizeof(WCHAR));
    return n < text.size() ? STATUS_BUFFER_OVERFLOW : STATUS_SUCCESS;
}

// The copy and cat forms: the source is a counted string or, when counted is NULL, the
// NUL-terminated text; append writes after the destination's current text.
NTSTATUS store_checked(PUNICODE_STRING destination, bool append, PCUNICODE_STRING counted,
                       const WCHAR* text) {
    const bool source_ok = counted != nullptr ? valid_unicode_string(counted) : text != nullptr;
    if (!valid_unicode_string(destination) || !source_ok) {
        return STATUS_INVALID_PARAMETER;
    }
    const std::u16string_view source =
        counted != nullptr ? std::u16string_view(counted->Buffer, counted->Length / sizeof(WCHAR))
                           : std::u16string_view(text);
    return store_unicode(destination, append ? destination->Length / sizeof(WCHAR) : 0, source);
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS RtlStringCchCopyA(NTSTRSAFE_PSTR pszDest, size_t cchDest,
                                      NTSTRSAFE_PCSTR pszSrc) {
    return copy_n(pszDest, cchDest, pszSrc, NTSTRSAFE_MAX_LENGTH);
}

NDKSIM_API NTSTATUS RtlStringCchCopyW(NTSTRSAFE_PWSTR pszDest, size_t cchDest,
                                      NTSTRSAFE_PCWSTR pszSrc) {
    return copy_n(pszDest, cchDest, pszSrc, NTSTRSAFE_MAX_LENGTH);
}

NDKSIM_API NTSTATUS RtlStringCbCopyA(NTSTRSAFE_PSTR pszDest, size_t cbDest,
                                     NTSTRSAFE_PCSTR pszSrc) {
    return copy_n(pszDest, cbDest, pszSrc, NTSTRSAFE_MAX_LENGTH);
}

NDKSIM_API NTSTATUS RtlStringCbCopyW(NTSTRSAFE_PWSTR pszDest, size_t cbDest,
                                     NTSTRSAFE_PCWSTR pszSrc) {
    return copy_n(pszDest, cbDest / sizeof(WCHAR), pszSrc, NTSTRSAFE_MAX_LENGTH);
}

NDKSIM_API NTSTATUS RtlStringCchCopyNA(NTSTRSAFE_PSTR pszDest, size_t cchDest,
                                       STRSAFE_PCNZCH pszSrc, size_t cchToCopy) {
    return copy_n(pszDest, cchDest, pszSrc, cchToCopy);
}

NDKSIM_API NTSTATUS RtlStringCchCopyNW(NTSTRSAFE_PWSTR pszDest, size_t cchDest,
                                       STRSAFE_PCNZWCH pszSrc, size_t cchToCopy) {
    return copy_n(pszDest, cchDest, pszSrc, cchToCopy);
}

NDKSIM_API NTSTATUS RtlStringCbCopyNA(NTSTRSAFE_PSTR pszDest, size_t cbDest, STRSAFE_PCNZCH pszSrc,
                                      size_t cbToCopy) {
    return copy_n(pszDest, cbDest, pszSrc, cbToCopy);
}

NDKSIM_API NTSTATUS RtlStringCbCopyNW(NTSTRSAFE_PWSTR pszDest, size_t cbDest,
                                      STRSAFE_PCNZWCH pszSrc, size_t cbToCopy) {
    return copy_n(pszDest, cbDest / sizeof(WCHAR), pszSrc, cbToCopy / sizeof(WCHAR));
}

NDKSIM_API NTSTATUS RtlStringCchCatA(NTSTRSAFE_PSTR pszDest, size_t cchDest,
                                     NTSTRSAFE_PCSTR pszSrc) {
    return cat(pszDest, cchDest, pszSrc);
}

NDKSIM_API NTSTATUS RtlStringCchCatW(NTSTRSAFE_PWSTR pszDest, size_t cchDest,
                                     NTSTRSAFE_PCWSTR pszSrc) {
    return cat(pszDest, cchDest, pszSrc);
}

NDKSIM_API NTSTATUS RtlStringCbCatA(NTSTRSAFE_PSTR pszDest, size_t cbDest, NTSTRSAFE_PCSTR pszSrc) {
    return cat(pszDest, cbDest, pszSrc);
}

NDKSIM_API NTSTATUS RtlStringCbCatW(NTSTRSAFE_PWSTR pszDest, size_t cbDest,
                                    NTSTRSAFE_PCWSTR pszSrc) {
    return cat(pszDest, cbDest / sizeof(WCHAR), pszSrc);
}

NDKSIM_API NTSTATUS RtlStringCchLengthA(STRSAFE_PCNZCH psz, size_t cchMax, size_t* pcchLength) {
    return length_of(psz, cchMax, pcchLength);
}

NDKSIM_API NTSTATUS RtlStringCchLengthW(STRSAFE_PCNZWCH psz, size_t cchMax, size_t* pcchLength) {
    return length_of(psz, cchMax, pcchLength);
}

NDKSIM_API NTSTATUS RtlStringCbLengthA(STRSAFE_PCNZCH psz, size_t cbMax, size_t* pcbLength) {
    return length_of(psz, cbMax, pcbLength);
}

NDKSIM_API NTSTATUS RtlStringCbLengthW(STRSAFE_PCNZWCH psz, size_t cbMax, size_t* pcbLength) {
    const NTSTATUS status = length_of(psz, cbMax / sizeof(WCHAR), pcbLength);
    if (pcbLength != nullptr) {
        *pcbLength *= sizeof(WCHAR);
    }
    return status;
}

NDKSIM_API NTSTATUS RtlStringCchVPrintfA(NTSTRSAFE_PSTR pszDest, size_t cchDest,
                                         NTSTRSAFE_PCSTR pszFormat, va_list argList) {
    return vprintf_narrow(pszDest, cchDest, pszFormat, argList);
}

NDKSIM_API NTSTATUS RtlStringCchVPrintfW(NTSTRSAFE_PWSTR pszDest, size_t cchDest,
                                         NTSTRSAFE_PCWSTR pszFormat, va_list argList) {
    return vprintf_wide(pszDest, cchDest, pszFormat, argList);
}

NDKSIM_API NTSTATUS RtlStringCbVPrintfA(NTSTRSAFE_PSTR pszDest, size_t cbDest,
                                        NTSTRSAFE_PCSTR pszFormat, va_list argList) {
    return vprintf_narrow(pszDest, cbDest, pszFormat, argList);
}

NDKSIM_API NTSTATUS RtlStringCbVPrintfW(NTSTRSAFE_PWSTR pszDest, size_t cbDest,
                                        NTSTRSAFE_PCWSTR pszFormat, va_list argList) {
    return vprintf_wide(pszDest, cbDest / sizeof(WCHAR), pszFormat, argList);
}

NDKSIM_API NTSTATUS RtlStringCchPrintfA(NTSTRSAFE_PSTR pszDest, size_t cchDest,
                                        NTSTRSAFE_PCSTR pszFormat, ...) {
    va_list args;
    va_start(args, pszFormat);
    const NTSTATUS status = vprintf_narrow(pszDest, cchDest, pszFormat, args);
    va_end(args);
    return status;
}

NDKSIM_API NTSTATUS RtlStringCchPrintfW(NTSTRSAFE_PWSTR pszDest, size_t cchDest,
                                        NTSTRSAFE_PCWSTR pszFormat, ...) {
    va_list args;
    va_start(args, pszFormat);
    const NTSTATUS status = vprintf_wide(pszDest, cchDest, pszFormat, args);
    va_end(args);
    return status;
}

NDKSIM_API NTSTATUS RtlStringCbPrintfA(NTSTRSAFE_PSTR pszDest, size_t cbDest,
                                       NTSTRSAFE_PCSTR pszFormat, ...) {
    va_list args;
    va_start(args, pszFormat);
    const NTSTATUS status = vprintf_narrow(pszDest, cbDest, pszFormat, args);
    va_end(args);
    return status;
}

NDKSIM_API NTSTATUS RtlStringCbPrintfW(NTSTRSAFE_PWSTR pszDest, size_t cbDest,
                                       NTSTRSAFE_PCWSTR pszFormat, ...) {
    va_list args;
    va_start(args, pszFormat);
    const NTSTATUS status = vprintf_wide(pszDest, cbDest / sizeof(WCHAR), pszFormat, args);
    va_end(args);
    return status;
}

NDKSIM_API NTSTATUS RtlUnicodeStringVPrintf(PUNICODE_STRING DestinationString,
                                            NTSTRSAFE_PCWSTR pszFormat, va_list argList) {
    if (!valid_unicode_string(DestinationString) || pszFormat == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return store_unicode(DestinationString, 0, format_windows(pszFormat, argList).text);
}

NDKSIM_API NTSTATUS RtlUnicodeStringPrintf(PUNICODE_STRING DestinationString,
                                           NTSTRSAFE_PCWSTR pszFormat, ...) {
    va_list args;
    va_start(args, pszFormat);
    const NTSTATUS status = RtlUnicodeStringVPrintf(DestinationString, pszFormat, args);
    va_end(args);
    return status;
}

NDKSIM_API NTSTATUS RtlUnicodeStringCopy(PUNICODE_STRING DestinationString,
                                         PCUNICODE_STRING SourceString) {
    return store_checked(DestinationString, false, SourceString, nullptr);
}

NDKSIM_API NTSTATUS RtlUnicodeStringCopyString(PUNICODE_STRING DestinationString,
                                               NTSTRSAFE_PCWSTR pszSrc) {
    return store_checked(DestinationString, false, nullptr, pszSrc);
}

NDKSIM_API NTSTATUS RtlUnicodeStringCat(PUNICODE_STRING DestinationString,
                                        PCUNICODE_STRING SourceString) {
    return store_checked(DestinationString, true, SourceString, nullptr);
}

NDKSIM_API NTSTATUS RtlUnicodeStringCatString(PUNICODE_STRING DestinationString,
                                              NTSTRSAFE_PCWSTR pszSrc) {
    return store_checked(DestinationString, true, nullptr, pszSrc);
}

}  // extern "C"
