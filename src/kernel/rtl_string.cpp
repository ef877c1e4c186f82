// SPDX-License-Identifier: MIT
// Counted strings (UNICODE_STRING, STRING): initialization, copy, comparison and append. The
// routines only read and write the caller's structures and buffers; conversions that allocate
// are in rtl_string_convert.cpp.

#include <algorithm>
#include <cstring>
#include <string_view>

#include "kernel/code_page.hpp"
#include "kernel/irql.hpp"
#include "ntddk.h"

namespace ndksim::kernel {
namespace {

// RtlInit*String: "IRQL <= DISPATCH_LEVEL" (the buffers must then be resident).
constexpr std::string_view k_init_rule = "callers must be at IRQL <= DISPATCH_LEVEL";
// RtlEqualUnicodeString, RtlCompareUnicodeString, RtlPrefixUnicodeString: "IRQL PASSIVE_LEVEL".
constexpr std::string_view k_compare_rule = "callers must be at IRQL == PASSIVE_LEVEL";

// The longest Length an initialized UNICODE_STRING may have: MaximumLength (Length plus the
// NUL) must still fit in the largest even USHORT.
constexpr std::size_t k_max_unicode_length = UNICODE_STRING_MAX_BYTES - sizeof(WCHAR);

void init_ansi(const char* function, PSTRING destination, PCSZ source) {
    require_irql_at_most(function, DISPATCH_LEVEL, k_init_rule);
    destination->Buffer = const_cast<PCHAR>(source);
    if (source == nullptr) {
        destination->Length = 0;
        destination->MaximumLength = 0;
        return;
    }
    // Windows cuts a longer source to MAXUSHORT - 1 bytes so that MaximumLength stays a USHORT.
    const std::size_t length = std::min<std::size_t>(std::strlen(source), MAXUSHORT - 1);
    destination->Length = static_cast<USHORT>(length);
    destination->MaximumLength = static_cast<USHORT>(length + 1);
}

std::u16string_view view(PCUNICODE_STRING text) {
    return {text->Buffer, text->Length / sizeof(WCHAR)};
}

// Compares the first n units of a and b (upper-cased when asked); the difference of the first
// pair that differs, or 0.
LONG compare_units(std::u16string_view a, std::u16string_view b, std::size_t n, bool fold) {
    for (std::size_t i = 0; i < n; ++i) {
        const char16_t x = fold ? upcase(a[i]) : a[i];
        const char16_t y = fold ? upcase(b[i]) : b[i];
        if (x != y) {
            return static_cast<LONG>(x) - static_cast<LONG>(y);
        }
    }
    return 0;
}

// Appends bytes of text to destination; the contract of both RtlAppend routines.
NTSTATUS append(PUNICODE_STRING destination, const WCHAR* text, std::size_t bytes) {
    if (bytes == 0) {
        return STATUS_SUCCESS;
    }
    const std::size_t length = destination->Length + bytes;
    if (length > destination->MaximumLength) {
        return STATUS_BUFFER_TOO_SMALL;
    }
    // memmove: the source may be a part of the destination's own buffer.
    std::memmove(reinterpret_cast<char*>(destination->Buffer) + destination->Length, text, bytes);
    destination->Length = static_cast<USHORT>(length);
    if (length + sizeof(WCHAR) <= destination->MaximumLength) {
        destination->Buffer[length / sizeof(WCHAR)] = UNICODE_NULL;
    }
    return STATUS_SUCCESS;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID RtlInitUnicodeString(PUNICODE_STRING DestinationString, PCWSTR SourceString) {
    require_irql_at_most("RtlInitUnicodeString", DISPATCH_LEVEL, k_init_rule);
    DestinationString->Buffer = const_cast<PWSTR>(SourceString);
    if (SourceString == nullptr) {
        DestinationString->Length = 0;
        DestinationString->MaximumLength = 0;
        return;
    }
    const std::size_t length =
        std::min(wide_length(SourceString) * sizeof(WCHAR), k_max_unicode_length);
    DestinationString->Length = static_cast<USHORT>(length);
    DestinationString->MaximumLength = static_cast<USHORT>(length + sizeof(WCHAR));
}

NDKSIM_API NTSTATUS RtlInitUnicodeStringEx(PUNICODE_STRING DestinationString, PCWSTR SourceString) {
    require_irql_at_most("RtlInitUnicodeStringEx", DISPATCH_LEVEL, k_init_rule);
    DestinationString->Length = 0;
    DestinationString->MaximumLength = 0;
    DestinationString->Buffer = const_cast<PWSTR>(SourceString);
    if (SourceString == nullptr) {
        return STATUS_SUCCESS;
    }
    const std::size_t length = wide_length(SourceString) * sizeof(WCHAR);
    if (length > k_max_unicode_length) {
        return STATUS_NAME_TOO_LONG;
    }
    DestinationString->Length = static_cast<USHORT>(length);
    DestinationString->MaximumLength = static_cast<USHORT>(length + sizeof(WCHAR));
    return STATUS_SUCCESS;
}

NDKSIM_API VOID RtlInitAnsiString(PANSI_STRING DestinationString, PCSZ SourceString) {
    init_ansi("RtlInitAnsiString", DestinationString, SourceString);
}

NDKSIM_API VOID RtlInitString(PSTRING DestinationString, PCSZ SourceString) {
    init_ansi("RtlInitString", DestinationString, SourceString);
}

NDKSIM_API VOID RtlCopyUnicodeString(PUNICODE_STRING DestinationString,
                                     PCUNICODE_STRING SourceString) {
    if (SourceString == nullptr) {
        DestinationString->Length = 0;
        return;
    }
    // Copies min(source Length, destination MaximumLength) bytes, rounded down to whole WCHARs.
    const std::size_t bytes =
        std::min<std::size_t>(SourceString->Length, DestinationString->MaximumLength) &
        ~(sizeof(WCHAR) - 1);
    if (bytes != 0) {
        std::memmove(DestinationString->Buffer, SourceString->Buffer, bytes);
    }
    DestinationString->Length = static_cast<USHORT>(bytes);
    if (bytes + sizeof(WCHAR) <= DestinationString->MaximumLength) {
        DestinationString->Buffer[bytes / sizeof(WCHAR)] = UNICODE_NULL;
    }
}

NDKSIM_API VOID RtlCopyString(PSTRING DestinationString, const STRING* SourceString) {
    if (SourceString == nullptr) {
        DestinationString->Length = 0;
        return;
    }
    const std::size_t bytes =
        std::min<std::size_t>(SourceString->Length, DestinationString->MaximumLength);
    if (bytes != 0) {
        std::memmove(DestinationString->Buffer, SourceString->Buffer, bytes);
    }
    DestinationString->Length = static_cast<USHORT>(bytes);
    if (bytes < DestinationString->MaximumLength) {
        DestinationString->Buffer[bytes] = ANSI_NULL;
    }
}

NDKSIM_API BOOLEAN RtlEqualUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                         BOOLEAN CaseInSensitive) {
    require_irql_at_most("RtlEqualUnicodeString", PASSIVE_LEVEL, k_compare_rule);
    if (String1->Length != String2->Length) {
        return FALSE;
    }
    const auto a = view(String1);
    return compare_units(a, view(String2), a.size(), CaseInSensitive != FALSE) == 0 ? TRUE : FALSE;
}

NDKSIM_API LONG RtlCompareUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                        BOOLEAN CaseInSensitive) {
    require_irql_at_most("RtlCompareUnicodeString", PASSIVE_LEVEL, k_compare_rule);
    const auto a = view(String1);
    const auto b = view(String2);
    const LONG difference =
        compare_units(a, b, std::min(a.size(), b.size()), CaseInSensitive != FALSE);
    if (difference != 0) {
        return difference;
    }
    return static_cast<LONG>(a.size()) - static_cast<LONG>(b.size());
}

NDKSIM_API BOOLEAN RtlPrefixUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                          BOOLEAN CaseInSensitive) {
    require_irql_at_most("RtlPrefixUnicodeString", PASSIVE_LEVEL, k_compare_rule);
    const auto prefix = view(String1);
    const auto text = view(String2);
    if (prefix.size() > text.size()) {
        return FALSE;
    }
    return compare_units(prefix, text, prefix.size(), CaseInSensitive != FALSE) == 0 ? TRUE : FALSE;
}

NDKSIM_API WCHAR RtlUpcaseUnicodeChar(WCHAR SourceCharacter) {
    return upcase(SourceCharacter);
}

NDKSIM_API NTSTATUS RtlAppendUnicodeToString(PUNICODE_STRING Destination, PCWSTR Source) {
    if (Source == nullptr) {
        return STATUS_SUCCESS;
    }
    return append(Destination, Source, wide_length(Source) * sizeof(WCHAR));
}

NDKSIM_API NTSTATUS RtlAppendUnicodeStringToString(PUNICODE_STRING Destination,
                                                   PCUNICODE_STRING Source) {
    return append(Destination, Source->Buffer, Source->Length & ~(sizeof(WCHAR) - 1));
}

}  // extern "C"
