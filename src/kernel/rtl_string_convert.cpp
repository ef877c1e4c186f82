// SPDX-License-Identifier: MIT
// Conversions between counted strings: Unicode <-> ANSI (code page 1252, see code_page.hpp) with
// optional allocation from tracked pool, and integers <-> Unicode text.

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "kernel/code_page.hpp"
#include "kernel/irql.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

// The conversion, free and integer routines are documented "IRQL PASSIVE_LEVEL".
constexpr std::string_view k_passive_rule = "callers must be at IRQL == PASSIVE_LEVEL";

// Windows allocates the buffers of these routines from paged pool.
void* allocate_string(std::size_t bytes) {
    return ExAllocatePoolWithTag(PagedPool, bytes, NDKSIM_RTL_STRING_TAG);
}

bool is_space(char16_t unit) {
    return unit == u' ' || (unit >= u'\t' && unit <= u'\r');
}

// The value of a digit in base, or -1 when unit is not one.
int digit_value(char16_t unit, ULONG base) {
    int value = -1;
    if (unit >= u'0' && unit <= u'9') {
        value = unit - u'0';
    } else if (unit >= u'a' && unit <= u'f') {
        value = unit - u'a' + 10;
    } else if (unit >= u'A' && unit <= u'F') {
        value = unit - u'A' + 10;
    }
    return value >= 0 && static_cast<ULONG>(value) < base ? value : -1;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS RtlUnicodeStringToAnsiString(PANSI_STRING DestinationString,
                                                 PCUNICODE_STRING SourceString,
                                                 BOOLEAN AllocateDestinationString) {
    require_irql_at_most("RtlUnicodeStringToAnsiString", PASSIVE_LEVEL, k_passive_rule);
    const std::string text = unicode_to_ansi(
        std::u16string_view(SourceString->Buffer, SourceString->Length / sizeof(WCHAR)));
    // The converted size counts the NUL; it must fit a USHORT MaximumLength.
    const std::size_t size = text.size() + 1;
    if (size > MAXUSHORT) {
        return STATUS_INVALID_PARAMETER_2;
    }
    NTSTATUS status = STATUS_SUCCESS;
    std::size_t length = text.size();
    if (AllocateDestinationString != FALSE) {
        void* buffer = allocate_string(size);
        if (buffer == nullptr) {
            return STATUS_NO_MEMORY;
        }
        DestinationString->Buffer = static_cast<PCHAR>(buffer);
        DestinationString->MaximumLength = static_cast<USHORT>(size);
    } else if (length >= DestinationString->MaximumLength) {
        // Windows converts what fits (MaximumLength - 1 bytes plus the NUL) and reports it.
        if (DestinationString->MaximumLength == 0) {
            return STATUS_BUFFER_OVERFLOW;
        }
        length = DestinationString->MaximumLength - 1U;
        status = STATUS_BUFFER_OVERFLOW;
    }
    std::memcpy(DestinationString->Buffer, text.data(), length);
    DestinationString->Buffer[length] = ANSI_NULL;
    DestinationString->Length = static_cast<USHORT>(length);
    return status;
}

NDKSIM_API NTSTATUS RtlAnsiStringToUnicodeString(PUNICODE_STRING DestinationString,
                                                 PCANSI_STRING SourceString,
                                                 BOOLEAN AllocateDestinationString) {
    require_irql_at_most("RtlAnsiStringToUnicodeString", PASSIVE_LEVEL, k_passive_rule);
    const std::u16string text =
        ansi_to_unicode(std::string_view(SourceString->Buffer, SourceString->Length));
    const std::size_t bytes = text.size() * sizeof(WCHAR);
    const std::size_t size = bytes + sizeof(WCHAR);
    if (size > MAXUSHORT) {
        return STATUS_INVALID_PARAMETER_2;
    }
    if (AllocateDestinationString != FALSE) {
        void* buffer = allocate_string(size);
        if (buffer == nullptr) {
            return STATUS_NO_MEMORY;
        }
        DestinationString->Buffer = static_cast<PWSTR>(buffer);
        DestinationString->MaximumLength = static_cast<USHORT>(size);
    } else if (bytes >= DestinationString->MaximumLength) {
        return STATUS_BUFFER_OVERFLOW;
    }
    std::memcpy(DestinationString->Buffer, text.data(), bytes);
    DestinationString->Length = static_cast<USHORT>(bytes);
    if (size <= DestinationString->MaximumLength) {
        DestinationString->Buffer[text.size()] = UNICODE_NULL;
    }
    return STATUS_SUCCESS;
}

NDKSIM_API VOID RtlFreeUnicodeString(PUNICODE_STRING UnicodeString) {
    require_irql_at_most("RtlFreeUnicodeString", PASSIVE_LEVEL, k_passive_rule);
    if (UnicodeString->Buffer != nullptr) {
        ExFreePool(UnicodeString->Buffer);
    }
    UnicodeString->Buffer = nullptr;
    UnicodeString->Length = 0;
    UnicodeString->MaximumLength = 0;
}

NDKSIM_API VOID RtlFreeAnsiString(PANSI_STRING AnsiString) {
    require_irql_at_most("RtlFreeAnsiString", PASSIVE_LEVEL, k_passive_rule);
    if (AnsiString->Buffer != nullptr) {
        ExFreePool(AnsiString->Buffer);
    }
    AnsiString->Buffer = nullptr;
    AnsiString->Length = 0;
    AnsiString->MaximumLength = 0;
}

NDKSIM_API NTSTATUS RtlIntegerToUnicodeString(ULONG Value, ULONG Base, PUNICODE_STRING String) {
    require_irql_at_most("RtlIntegerToUnicodeString", PASSIVE_LEVEL, k_passive_rule);
    if (Base == 0) {
        Base = 10;
    }
    if (Base != 2 && Base != 8 && Base != 10 && Base != 16) {
        return STATUS_INVALID_PARAMETER;
    }
    std::u16string digits;
    do {
        digits.push_back(u"0123456789ABCDEF"[Value % Base]);
        Value /= Base;
    } while (Value != 0);
    std::reverse(digits.begin(), digits.end());
    const std::size_t bytes = digits.size() * sizeof(WCHAR);
    // Windows converts through RtlAnsiStringToUnicodeString, which needs room for the NUL too.
    if (bytes >= String->MaximumLength) {
        return STATUS_BUFFER_OVERFLOW;
    }
    std::memcpy(String->Buffer, digits.data(), bytes);
    String->Length = static_cast<USHORT>(bytes);
    String->Buffer[digits.size()] = UNICODE_NULL;
    return STATUS_SUCCESS;
}

NDKSIM_API NTSTATUS RtlUnicodeStringToInteger(PCUNICODE_STRING String, ULONG Base, PULONG Value) {
    require_irql_at_most("RtlUnicodeStringToInteger", PASSIVE_LEVEL, k_passive_rule);
    if (Base != 0 && Base != 2 && Base != 8 && Base != 10 && Base != 16) {
        return STATUS_INVALID_PARAMETER;
    }
    const std::u16string_view text(String->Buffer, String->Length / sizeof(WCHAR));
    if (text.empty()) {
        return STATUS_INVALID_PARAMETER;
    }
    std::size_t i = 0;
    while (i < text.size() && is_space(text[i])) {
        ++i;
    }
    bool negative = false;
    if (i < text.size() && (text[i] == u'+' || text[i] == u'-')) {
        negative = text[i] == u'-';
        ++i;
    }
    if (Base == 0) {
        Base = 10;
        if (i + 1 < text.size() && text[i] == u'0') {
            const char16_t kind = text[i + 1];
            const ULONG prefixed = kind == u'x' ? 16 : kind == u'o' ? 8 : kind == u'b' ? 2 : 0;
            if (prefixed != 0) {
                Base = prefixed;
                i += 2;
            }
        }
    }
    ULONG result = 0;
    for (; i < text.size(); ++i) {
        const int digit = digit_value(text[i], Base);
        if (digit < 0) {
            break;
        }
        result = result * Base + static_cast<ULONG>(digit);
    }
    *Value = negative ? 0U - result : result;
    return STATUS_SUCCESS;
}

}  // extern "C"
