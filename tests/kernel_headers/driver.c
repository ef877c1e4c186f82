/* SPDX-License-Identifier: MIT */
/*
 * A driver-style C translation unit built with ndksim_add_kernel_consumer: WDK headers, SAL,
 * section pragmas, pool tags, L"..." literals (16-bit WCHAR through -fshort-wchar), counted
 * strings, ntstrsafe, DbgPrint/KdPrint and PAGED_CODE, all as a Windows driver writes them.
 */
#include <Wdmsec.h>
#include <ndis.h>
#include <ntddk.h>
#include <ntstrsafe.h>

#include "selftest.h"

#define DRIVER_TAG 'gaTx'

__pragma(warning(push)) __pragma(warning(disable : 4201)) C_ASSERT(sizeof(WCHAR) == 2);
C_ASSERT(sizeof(L"ab") == 3 * sizeof(WCHAR));
C_ASSERT(sizeof(ULONG) == 4);
__pragma(warning(pop))

    DECLARE_CONST_UNICODE_STRING(g_DeviceName, L"\\Device\\NdkSim0");

_IRQL_requires_max_(PASSIVE_LEVEL) _Must_inspect_result_ NTSTATUS
    DriverFormatName(_Out_writes_bytes_(Size) PWCHAR Buffer, _In_ size_t Size,
                     _In_ PCUNICODE_STRING Name, _In_ ULONG Index);

#pragma alloc_text(PAGE, DriverFormatName)
#pragma code_seg("PAGE")
_Use_decl_annotations_ NTSTATUS DriverFormatName(PWCHAR Buffer, size_t Size, PCUNICODE_STRING Name,
                                                 ULONG Index) {
    PAGED_CODE();
    return RtlStringCbPrintfW(Buffer, Size, L"%wZ#%lu", Name, Index);
}
#pragma code_seg()
#pragma data_seg("NONPAGE")
#pragma data_seg()

FORCEINLINE ULONG DriverLarger(_In_ ULONG a, _In_ ULONG b) {
    return max(a, b);
}

static DECLSPEC_NOINLINE int check(int ok, const char* what) {
    if (!ok) {
        DbgPrintEx(DPFLTR_IHVDRIVER_ID, DPFLTR_ERROR_LEVEL, "driver.c: check failed: %s\n", what);
    }
    return ok ? 0 : 1;
}

int driver_c_selftest(void) {
    int failures = 0;
    WCHAR buffer[64];
    UNICODE_STRING formatted;
    UNICODE_STRING expected;
    IN_ADDR address;
    USHORT port = 0;
    PVOID block;
    CHAR narrow[32];

    failures += check(DRIVER_TAG == 0x67615478, "multi-character pool tag value");
    failures += check(NT_SUCCESS(DriverFormatName(buffer, sizeof(buffer), &g_DeviceName, 7)),
                      "RtlStringCbPrintfW");
    RtlInitUnicodeString(&formatted, buffer);
    RtlInitUnicodeString(&expected, L"\\Device\\NdkSim0#7");
    failures += check(RtlEqualUnicodeString(&formatted, &expected, FALSE), "%wZ result");
    failures += check(DriverLarger(3, 9) == 9 && min(2, 5) == 2, "min/max macros");
    failures +=
        check(NT_SUCCESS(RtlIpv4StringToAddressExW(L"10.1.2.3:4791", TRUE, &address, &port)) &&
                  port == RtlUshortByteSwap(4791),
              "RtlIpv4StringToAddressExW");
    failures += check(NT_SUCCESS(RtlStringCbPrintfA(narrow, sizeof(narrow), "%ws|%S|%I64u", L"w",
                                                    L"s", (ULONGLONG)1 << 40)) &&
                          strcmp(narrow, "w|s|1099511627776") == 0,
                      "wide arguments in a narrow format");
    failures += check(SDDL_DEVOBJ_SYS_ALL.Length == sizeof(L"D:P(A;;GA;;;SY)") - sizeof(WCHAR),
                      "SDDL string");
    block = ExAllocatePool2(POOL_FLAG_NON_PAGED, 64, DRIVER_TAG);
    failures += check(block != NULL && ndksim_kernel_pool_live(DRIVER_TAG) == 1, "pool tag");
    if (block != NULL) {
        ExFreePoolWithTag(block, DRIVER_TAG);
    }
    KdPrint(("driver.c: KdPrint in a debug build, %d failures so far\n", failures));
    DbgPrint("driver.c: %d failures\n", failures);
    return failures;
}
