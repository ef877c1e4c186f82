// SPDX-License-Identifier: MIT
// A driver-style C++ translation unit: the WDK headers inside extern "C" { } (as C++ drivers
// include them), standard headers after them (min/max must not break them), L"..." literals and
// the same glue as driver.c.

extern "C" {
#include <ntddk.h>
#include <ntstrsafe.h>
}

#include <algorithm>
#include <limits>

#include "selftest.h"

namespace {

constexpr ULONG kTag = 'ppCx';

DECLARE_CONST_UNICODE_STRING(kPrefix, L"ndk");

_IRQL_requires_max_(APC_LEVEL) _Requires_lock_not_held_(lock) NTSTATUS
    Describe(_Out_writes_(Count) PWCHAR Buffer, _In_ size_t Count, _In_ LONG Value) {
    PAGED_CODE();
    return RtlStringCchPrintfW(Buffer, Count, L"%wZ:%ld:%s", &kPrefix, Value, L"ok");
}

int Check(bool ok, const char* what) {
    if (!ok) {
        DbgPrint("driver_cpp.cpp: check failed: %s\n", what);
    }
    return ok ? 0 : 1;
}

}  // namespace

extern "C" int driver_cpp_selftest(void) {
    int failures = 0;
    WCHAR buffer[32];
    failures += Check(NT_SUCCESS(Describe(buffer, RTL_NUMBER_OF(buffer), -12)), "Describe");
    UNICODE_STRING text;
    RtlInitUnicodeString(&text, buffer);
    const UNICODE_STRING expected = RTL_CONSTANT_STRING(L"ndk:-12:ok");
    failures += Check(RtlEqualUnicodeString(&text, &expected, TRUE), "formatted text");
    failures += Check(min(ULONG{4}, 9) == 4 && max(-1, 2L) == 2, "min/max templates");
    failures += Check(std::max(1, 2) == 2 && std::numeric_limits<ULONG>::max() == MAXULONG,
                      "standard headers after the WDK headers");
    failures += Check(kTag == 0x70704378, "pool tag");
    KdPrint(("driver_cpp.cpp: KdPrint in a debug build\n"));
    return failures;
}
