/* SPDX-License-Identifier: MIT */
/* A driver-style C file built through the installed package's ndksim_add_kernel_consumer. */
#include <ntddk.h>
#include <ntstrsafe.h>

#pragma alloc_text(INIT, main)

int main(void) {
    DECLARE_CONST_UNICODE_STRING(name, L"installed");
    WCHAR buffer[32];
    UNICODE_STRING text;
    UNICODE_STRING expected;
    if (!NT_SUCCESS(RtlStringCbPrintfW(buffer, sizeof(buffer), L"%wZ-%lu", &name, 1UL * 'ab'))) {
        return 1;
    }
    RtlInitUnicodeString(&text, buffer);
    RtlInitUnicodeString(&expected, L"installed-24930");
    return RtlEqualUnicodeString(&text, &expected, FALSE) ? 0 : 2;
}
