/* SPDX-License-Identifier: MIT */
/** \file
 * ndksim_kernel_rtl.h - the run-time library routines of wdm.h that drivers call besides the
 * kernel objects: counted strings (UNICODE_STRING, ANSI_STRING), integer and IP address
 * conversions, byte swaps, debug output (DbgPrint, KdPrint) and PAGED_CODE. Included by wdm.h;
 * include wdm.h. The safe string functions are in ntstrsafe.h.
 *
 * Character sets. WCHAR is a 16-bit UTF-16 unit (wdm.h). Where Windows converts between Unicode
 * and the system's ANSI code page (RtlUnicodeStringToAnsiString, %S in a narrow format, %hs in a
 * wide one), the simulator uses code page 1252 (Windows' Western European ANSI code page): bytes
 * map one to one onto characters, and a character outside the code page becomes '?' (Windows may
 * apply a "best fit" mapping instead, e.g. U+0100 to 'A'; the simulator does not).
 *
 * docs/kernel-runtime.md lists every routine with its IRQL rule and what differs from Windows.
 */
#pragma once

#ifndef NDKSIM_WDM_H_INCLUDED
#error "include wdm.h, which includes ndksim_kernel_rtl.h"
#endif

#include <stdarg.h>

#include "ndksim_compiler.h"

#ifdef __cplusplus
#define NDKSIM_CCAST(type, expr) (const_cast<type>(expr))
#else
#define NDKSIM_CCAST(type, expr) ((type)(expr))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Counted strings                                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef WCHAR* PWCH;
typedef const WCHAR* PCWCH;
typedef CHAR* PCH;
typedef const CHAR* PCCH;

#define UNICODE_NULL NDKSIM_SCAST(WCHAR, 0)
#define ANSI_NULL NDKSIM_SCAST(CHAR, 0)
/** The largest even USHORT: the byte limit of a UNICODE_STRING. */
#define UNICODE_STRING_MAX_BYTES NDKSIM_SCAST(USHORT, 65534)
#define UNICODE_STRING_MAX_CHARS 32767

#ifndef STATUS_INVALID_PARAMETER_2
#define STATUS_INVALID_PARAMETER_2 NDKSIM_SCAST(NTSTATUS, 0xC00000F0L)
#endif
#ifndef STATUS_NAME_TOO_LONG
#define STATUS_NAME_TOO_LONG NDKSIM_SCAST(NTSTATUS, 0xC0000106L)
#endif

/**
 * A counted string initializer for a string literal: Length excludes the terminating NUL,
 * MaximumLength includes it. Works for "narrow" (STRING) and L"wide" (UNICODE_STRING) literals.
 * In C++ the literal's constness is cast away as the WDK's C++ form does; the buffer must not
 * be written through.
 */
#ifdef __cplusplus
extern "C++" {
///@{
/** The literal of RTL_CONSTANT_STRING as the Buffer member's type (C++ only). */
constexpr CHAR* ndksim_rtl_constant_buffer(const CHAR* text) {
    return const_cast<CHAR*>(text);
}
constexpr WCHAR* ndksim_rtl_constant_buffer(const WCHAR* text) {
    return const_cast<WCHAR*>(text);
}
///@}
}
#define RTL_CONSTANT_STRING(s)                                                             \
    {                                                                                      \
        NDKSIM_SCAST(USHORT, sizeof(s) - sizeof((s)[0])), NDKSIM_SCAST(USHORT, sizeof(s)), \
            ndksim_rtl_constant_buffer(s)                                                  \
    }
#else
#define RTL_CONSTANT_STRING(s) \
    { NDKSIM_SCAST(USHORT, sizeof(s) - sizeof((s)[0])), NDKSIM_SCAST(USHORT, sizeof(s)), (s) }
#endif

/** Declares a read-only UNICODE_STRING _var (and its buffer _var_buffer) holding L"..." _string. */
#define DECLARE_CONST_UNICODE_STRING(_var, _string)                                     \
    const WCHAR _var##_buffer[] = _string;                                              \
    const UNICODE_STRING _var = {NDKSIM_SCAST(USHORT, sizeof(_string) - sizeof(WCHAR)), \
                                 NDKSIM_SCAST(USHORT, sizeof(_string)),                 \
                                 NDKSIM_CCAST(PWCH, _var##_buffer)}

/** DECLARE_CONST_UNICODE_STRING for a global that several translation units may define. */
#ifdef __cplusplus
#define DECLARE_GLOBAL_CONST_UNICODE_STRING(_var, _str) \
    extern const DECLSPEC_SELECTANY UNICODE_STRING _var = RTL_CONSTANT_STRING(_str)
#else
#define DECLARE_GLOBAL_CONST_UNICODE_STRING(_var, _str) \
    const DECLSPEC_SELECTANY UNICODE_STRING _var = RTL_CONSTANT_STRING(_str)
#endif

/** Declares an empty UNICODE_STRING _var backed by a WCHAR array _var_buffer of _size characters.
 */
#define DECLARE_UNICODE_STRING_SIZE(_var, _size) \
    WCHAR _var##_buffer[_size];                  \
    UNICODE_STRING _var = {0, NDKSIM_SCAST(USHORT, (_size) * sizeof(WCHAR)), _var##_buffer}

/**
 * Points DestinationString at the NUL-terminated SourceString: Length is its length in bytes
 * without the NUL, MaximumLength adds the NUL; a NULL source gives an empty string with a NULL
 * Buffer. A source longer than UNICODE_STRING_MAX_CHARS - 1 characters is cut to that length, as
 * Windows does. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID RtlInitUnicodeString(_Out_ PUNICODE_STRING DestinationString,
                                     _In_opt_z_ PCWSTR SourceString);

/**
 * As RtlInitUnicodeString, but a source too long for a UNICODE_STRING returns STATUS_NAME_TOO_LONG
 * (the destination is then empty) instead of being cut. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API NTSTATUS RtlInitUnicodeStringEx(_Out_ PUNICODE_STRING DestinationString,
                                           _In_opt_z_ PCWSTR SourceString);

/**
 * Points DestinationString at a NUL-terminated byte string (lengths in bytes; MaximumLength
 * counts the NUL). A source longer than MAXUSHORT - 1 bytes is cut. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID RtlInitAnsiString(_Out_ PANSI_STRING DestinationString,
                                  _In_opt_z_ PCSZ SourceString);

/** RtlInitAnsiString for a STRING. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API VOID RtlInitString(_Out_ PSTRING DestinationString, _In_opt_z_ PCSZ SourceString);

/**
 * Copies min(SourceString->Length, DestinationString->MaximumLength) bytes into the destination's
 * buffer, sets its Length, and appends a NUL when room is left. A NULL source sets Length to 0.
 * MaximumLength and Buffer are not changed. Any IRQL.
 */
NDKSIM_API VOID RtlCopyUnicodeString(_Inout_ PUNICODE_STRING DestinationString,
                                     _In_opt_ PCUNICODE_STRING SourceString);

/**
 * TRUE when both strings have the same length and characters; CaseInSensitive compares their
 * upper-case forms (RtlUpcaseUnicodeChar). Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API BOOLEAN RtlEqualUnicodeString(_In_ PCUNICODE_STRING String1,
                                         _In_ PCUNICODE_STRING String2,
                                         _In_ BOOLEAN CaseInSensitive);

/**
 * Compares character by character (upper-cased when CaseInSensitive): returns < 0, 0 or > 0 as
 * String1 sorts before, equal to or after String2; a string that is a prefix of the other sorts
 * first. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API LONG RtlCompareUnicodeString(_In_ PCUNICODE_STRING String1,
                                        _In_ PCUNICODE_STRING String2,
                                        _In_ BOOLEAN CaseInSensitive);

/** TRUE when String1 is a prefix of String2. Rule: IRQL == PASSIVE_LEVEL. */
NDKSIM_API BOOLEAN RtlPrefixUnicodeString(_In_ PCUNICODE_STRING String1,
                                          _In_ PCUNICODE_STRING String2,
                                          _In_ BOOLEAN CaseInSensitive);

/**
 * The upper-case form of a UTF-16 unit (Unicode simple case mapping of the BMP; surrogates and
 * characters without an upper-case form are returned unchanged). Any IRQL.
 */
NDKSIM_API WCHAR RtlUpcaseUnicodeChar(_In_ WCHAR SourceCharacter);

/**
 * Appends the NUL-terminated Source to Destination and appends a NUL when room is left. Returns
 * STATUS_BUFFER_TOO_SMALL, changing nothing, when the result would exceed MaximumLength. A NULL
 * Source appends nothing. Any IRQL.
 */
NDKSIM_API NTSTATUS RtlAppendUnicodeToString(_Inout_ PUNICODE_STRING Destination,
                                             _In_opt_z_ PCWSTR Source);

/** RtlAppendUnicodeToString with a counted Source. Any IRQL. */
NDKSIM_API NTSTATUS RtlAppendUnicodeStringToString(_Inout_ PUNICODE_STRING Destination,
                                                   _In_ PCUNICODE_STRING Source);

/** Pool tag of the buffers the conversion routines allocate ("RtlS" in a pool listing). */
#define NDKSIM_RTL_STRING_TAG 0x536C7452UL

/**
 * Converts SourceString to the ANSI code page (1252 here). With AllocateDestinationString the
 * buffer (Length + 1 bytes) comes from paged pool with tag NDKSIM_RTL_STRING_TAG and is freed with
 * RtlFreeAnsiString; otherwise the caller's buffer is used, and when it is too small the result is
 * cut to MaximumLength - 1 bytes and STATUS_BUFFER_OVERFLOW is returned. The result is
 * NUL-terminated. STATUS_INVALID_PARAMETER_2 when the result would exceed MAXUSHORT bytes,
 * STATUS_NO_MEMORY when the allocation fails. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS RtlUnicodeStringToAnsiString(_Inout_ PANSI_STRING DestinationString,
                                                 _In_ PCUNICODE_STRING SourceString,
                                                 _In_ BOOLEAN AllocateDestinationString);

/**
 * Converts an ANSI (code page 1252) string to Unicode, NUL-terminated. Allocation as above (free
 * with RtlFreeUnicodeString). Without allocation, a destination whose MaximumLength cannot hold
 * the result and its NUL gets STATUS_BUFFER_OVERFLOW and is not written. STATUS_INVALID_PARAMETER_2
 * when the result would exceed MAXUSHORT bytes. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS RtlAnsiStringToUnicodeString(_Inout_ PUNICODE_STRING DestinationString,
                                                 _In_ PCANSI_STRING SourceString,
                                                 _In_ BOOLEAN AllocateDestinationString);

/** Frees a buffer allocated by a conversion routine and empties the string. PASSIVE_LEVEL. */
NDKSIM_API VOID RtlFreeUnicodeString(_Inout_ PUNICODE_STRING UnicodeString);

/**
 * Frees a buffer allocated by RtlUnicodeStringToAnsiString and empties the string.
 * PASSIVE_LEVEL.
 */
NDKSIM_API VOID RtlFreeAnsiString(_Inout_ PANSI_STRING AnsiString);

/**
 * Writes Value in Base (0 or 10: decimal; 2, 8, 16: upper-case digits, no prefix) into String,
 * NUL-terminated. STATUS_INVALID_PARAMETER for another base, STATUS_BUFFER_OVERFLOW (String
 * unchanged) when the digits and the NUL do not fit in MaximumLength. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS RtlIntegerToUnicodeString(_In_ ULONG Value, _In_opt_ ULONG Base,
                                              _Inout_ PUNICODE_STRING String);

/**
 * Parses String as an integer: leading white space is skipped, then an optional '+' or '-', then
 * (when Base is 0) an optional prefix "0x", "0o" or "0b" selecting the base (10 otherwise), then
 * digits up to the first character that is not a digit of the base. A string without digits
 * yields 0 with STATUS_SUCCESS; an empty string is STATUS_INVALID_PARAMETER, as is a Base other
 * than 0, 2, 8, 10 or 16. '-' negates the result modulo 2^32. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS RtlUnicodeStringToInteger(_In_ PCUNICODE_STRING String, _In_opt_ ULONG Base,
                                              _Out_ PULONG Value);

/* ------------------------------------------------------------------------------------------ */
/* Byte order                                                                                  */
/* ------------------------------------------------------------------------------------------ */

///@{
/** Reverse the byte order of a 16-, 32- or 64-bit value (network <-> host order on x64). */
static inline USHORT RtlUshortByteSwap(_In_ USHORT Source) {
    return __builtin_bswap16(Source);
}
static inline ULONG RtlUlongByteSwap(_In_ ULONG Source) {
    return __builtin_bswap32(Source);
}
static inline ULONGLONG RtlUlonglongByteSwap(_In_ ULONGLONG Source) {
    return __builtin_bswap64(Source);
}
///@}
#ifndef _byteswap_ushort
#define _byteswap_ushort(x) RtlUshortByteSwap(x)
#define _byteswap_ulong(x) RtlUlongByteSwap(x)
#define _byteswap_uint64(x) RtlUlonglongByteSwap(x)
#endif

/* ------------------------------------------------------------------------------------------ */
/* IP address strings (ip2string.h)                                                            */
/* ------------------------------------------------------------------------------------------ */

///@{
/**
 * Parses an IPv4 address at the start of S into *Addr (network byte order) and points
 * *Terminator at the first character after it. Strict: exactly four decimal parts of 0-255.
 * Not strict: one to four parts, each decimal, octal (leading 0) or hexadecimal (0x); the last
 * part fills the remaining bytes ("a.b.c" puts c in the low 16 bits, "a.b" b in the low 24,
 * "a" the whole address). STATUS_INVALID_PARAMETER when S does not start with an address, a
 * part is out of range, or an argument is NULL. Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv4StringToAddressA(_In_ PCSTR S, _In_ BOOLEAN Strict,
                                            _Out_ PCSTR* Terminator, _Out_ IN_ADDR* Addr);
NDKSIM_API NTSTATUS RtlIpv4StringToAddressW(_In_ PCWSTR S, _In_ BOOLEAN Strict,
                                            _Out_ PCWSTR* Terminator, _Out_ IN_ADDR* Addr);
///@}

///@{
/**
 * Parses a whole string "address[:port]" (address as above, port decimal 0-65535) into *Address
 * and *Port, both in network byte order; *Port is 0 without a port. STATUS_INVALID_PARAMETER
 * for anything else after the address, or a NULL argument. Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv4StringToAddressExA(_In_ PCSTR AddressString, _In_ BOOLEAN Strict,
                                              _Out_ IN_ADDR* Address, _Out_ PUSHORT Port);
NDKSIM_API NTSTATUS RtlIpv4StringToAddressExW(_In_ PCWSTR AddressString, _In_ BOOLEAN Strict,
                                              _Out_ IN_ADDR* Address, _Out_ PUSHORT Port);
///@}

///@{
/**
 * Writes Addr as dotted decimal into S (at least 16 characters) and returns a pointer to the
 * terminating NUL. Any IRQL.
 */
NDKSIM_API PSTR RtlIpv4AddressToStringA(_In_ const IN_ADDR* Addr, _Out_writes_(16) PSTR S);
NDKSIM_API PWSTR RtlIpv4AddressToStringW(_In_ const IN_ADDR* Addr, _Out_writes_(16) PWSTR S);
///@}

///@{
/**
 * Writes "a.b.c.d" or, when Port (network byte order) is nonzero, "a.b.c.d:port". On input
 * *AddressStringLength is the buffer size in characters; on success it is set to the characters
 * written including the NUL. A buffer too small returns STATUS_INVALID_PARAMETER and sets
 * *AddressStringLength to the size needed; so does a NULL argument (without the size). Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv4AddressToStringExA(_In_ const IN_ADDR* Address, _In_ USHORT Port,
                                              _Out_writes_to_(*AddressStringLength,
                                                              *AddressStringLength)
                                                  PSTR AddressString,
                                              _Inout_ PULONG AddressStringLength);
NDKSIM_API NTSTATUS RtlIpv4AddressToStringExW(_In_ const IN_ADDR* Address, _In_ USHORT Port,
                                              _Out_writes_to_(*AddressStringLength,
                                                              *AddressStringLength)
                                                  PWSTR AddressString,
                                              _Inout_ PULONG AddressStringLength);
///@}

///@{
/**
 * Parses an IPv6 address (RFC 4291 text form, including "::" and an embedded dotted IPv4 tail) at
 * the start of S into *Addr and points *Terminator after it. STATUS_INVALID_PARAMETER when S does
 * not start with an address. Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv6StringToAddressA(_In_ PCSTR S, _Out_ PCSTR* Terminator,
                                            _Out_ IN6_ADDR* Addr);
NDKSIM_API NTSTATUS RtlIpv6StringToAddressW(_In_ PCWSTR S, _Out_ PCWSTR* Terminator,
                                            _Out_ IN6_ADDR* Addr);
///@}

///@{
/**
 * Parses a whole string "addr", "addr%scope", "[addr]", "[addr%scope]", "[addr]:port" or
 * "[addr%scope]:port" (scope and port decimal). *ScopeId is in host order, *Port in network byte
 * order; both are 0 when absent. STATUS_INVALID_PARAMETER otherwise. Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv6StringToAddressExA(_In_ PCSTR AddressString, _Out_ IN6_ADDR* Address,
                                              _Out_ PULONG ScopeId, _Out_ PUSHORT Port);
NDKSIM_API NTSTATUS RtlIpv6StringToAddressExW(_In_ PCWSTR AddressString, _Out_ IN6_ADDR* Address,
                                              _Out_ PULONG ScopeId, _Out_ PUSHORT Port);
///@}

///@{
/**
 * Writes Addr in the RFC 5952 form (lower-case hex, the longest run of two or more zero groups
 * as "::", IPv4-mapped and IPv4-compatible addresses with a dotted tail) into S (at least 46
 * characters) and returns a pointer to the terminating NUL. Any IRQL.
 */
NDKSIM_API PSTR RtlIpv6AddressToStringA(_In_ const IN6_ADDR* Addr, _Out_writes_(46) PSTR S);
NDKSIM_API PWSTR RtlIpv6AddressToStringW(_In_ const IN6_ADDR* Addr, _Out_writes_(46) PWSTR S);
///@}

///@{
/**
 * Writes "addr", "addr%scope" (ScopeId nonzero), or with a nonzero Port (network byte order)
 * "[addr]:port" / "[addr%scope]:port". Buffer length in and out as RtlIpv4AddressToStringExA.
 * Any IRQL.
 */
NDKSIM_API NTSTATUS RtlIpv6AddressToStringExA(
    _In_ const IN6_ADDR* Address, _In_ ULONG ScopeId, _In_ USHORT Port,
    _Out_writes_to_(*AddressStringLength, *AddressStringLength) PSTR AddressString,
    _Inout_ PULONG AddressStringLength);
NDKSIM_API NTSTATUS RtlIpv6AddressToStringExW(
    _In_ const IN6_ADDR* Address, _In_ ULONG ScopeId, _In_ USHORT Port,
    _Out_writes_to_(*AddressStringLength, *AddressStringLength) PWSTR AddressString,
    _Inout_ PULONG AddressStringLength);
///@}

/* ------------------------------------------------------------------------------------------ */
/* Debug output                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Importance levels of DbgPrintEx (a Level above 31 is a bit mask, DPFLTR_MASK optional). */
#define DPFLTR_ERROR_LEVEL 0
#define DPFLTR_WARNING_LEVEL 1
#define DPFLTR_TRACE_LEVEL 2
#define DPFLTR_INFO_LEVEL 3
#define DPFLTR_MASK 0x80000000U

/** Component ids drivers pass to DbgPrintEx (the WDK's DPFLTR_TYPE values). */
typedef enum _DPFLTR_TYPE {
    DPFLTR_SYSTEM_ID = 0,
    DPFLTR_TCPIP_ID = 30,
    DPFLTR_NTOSPNP_ID = 32,
    DPFLTR_NETAPI_ID = 36,
    DPFLTR_IHVDRIVER_ID = 77,
    DPFLTR_IHVVIDEO_ID = 78,
    DPFLTR_IHVAUDIO_ID = 79,
    DPFLTR_IHVNETWORK_ID = 80,
    DPFLTR_IHVSTREAMING_ID = 81,
    DPFLTR_IHVBUS_ID = 82,
    DPFLTR_DEFAULT_ID = 101,
    DPFLTR_NDIS_ID = 120
} DPFLTR_TYPE;

/**
 * Formats Format with Windows printf rules (see ntstrsafe.h and docs/kernel-runtime.md: %wZ, %ws,
 * %I64d, 32-bit %ld, ...) and sends the text to the library's logger at info level, each line
 * prefixed with "[driver] ". Same as DbgPrintEx(DPFLTR_DEFAULT_ID, DPFLTR_INFO_LEVEL, ...).
 * Returns STATUS_SUCCESS. Rules: any IRQL, but the Unicode conversions (%C, %S, %lc, %ls, %wc,
 * %ws, %wZ) need IRQL == PASSIVE_LEVEL (reported as a violation; the text is still logged).
 */
NDKSIM_API ULONG DbgPrint(_In_z_ _Printf_format_string_ PCSTR Format, ...);

/**
 * DbgPrint with a component and an importance level. The level picks the log level:
 * DPFLTR_ERROR_LEVEL -> error, DPFLTR_WARNING_LEVEL -> warn, DPFLTR_TRACE_LEVEL -> debug,
 * DPFLTR_INFO_LEVEL -> info, higher levels -> trace; a mask Level uses its lowest level bit.
 * The prefix names the component ("[driver IHVNETWORK] "). Which messages appear is decided by
 * NDKSIM_LOG, not by Windows' per-component filter masks. Rules as for DbgPrint.
 */
NDKSIM_API ULONG DbgPrintEx(_In_ ULONG ComponentId, _In_ ULONG Level,
                            _In_z_ _Printf_format_string_ PCSTR Format, ...);

/** DbgPrintEx with a va_list. Rules as for DbgPrint. */
NDKSIM_API ULONG vDbgPrintEx(_In_ ULONG ComponentId, _In_ ULONG Level, _In_z_ PCCH Format,
                             _In_ va_list arglist);

/** vDbgPrintEx with Prefix written before the text of each line. Rules as for DbgPrint. */
NDKSIM_API ULONG vDbgPrintExWithPrefix(_In_z_ PCCH Prefix, _In_ ULONG ComponentId, _In_ ULONG Level,
                                       _In_z_ PCCH Format, _In_ va_list arglist);

/**
 * KdPrint((fmt, ...)) and KdPrintEx((component, level, fmt, ...)) print only in debug builds
 * (DBG defined nonzero), as in the WDK; otherwise they expand to a no-op and do not evaluate
 * their arguments. Note the double parentheses.
 */
#if defined(DBG) && DBG
#define KdPrint(_x_) DbgPrint _x_
#define KdPrintEx(_x_) DbgPrintEx _x_
#define vKdPrintEx(_x_) vDbgPrintEx _x_
#define vKdPrintExWithPrefix(_x_) vDbgPrintExWithPrefix _x_
#else
#define KdPrint(_x_) ((void)0)
#define KdPrintEx(_x_) ((void)0)
#define vKdPrintEx(_x_) ((void)0)
#define vKdPrintExWithPrefix(_x_) ((void)0)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Pageable code                                                                               */
/* ------------------------------------------------------------------------------------------ */

/**
 * Reports a violation when the calling thread's IRQL is above APC_LEVEL. Called by PAGED_CODE();
 * not for consumer use.
 */
NDKSIM_API VOID ndksim_kernel_paged_code(_In_z_ const char* Function);

/**
 * PAGED_CODE() states that the enclosing function may be paged out, so it must run at IRQL <=
 * APC_LEVEL. The WDK checks it in debug builds only; the simulator checks it in every build,
 * because a pageable routine at DISPATCH_LEVEL is a bug Windows shows only when the page happens
 * to be out. PAGED_CODE_LOCKED() (code locked in memory by MmLockPagableCodeSection) checks
 * nothing.
 */
#define PAGED_CODE() ndksim_kernel_paged_code(__func__)
#define PAGED_CODE_LOCKED() ((void)0)
#if defined(DBG) && DBG
#define PAGED_ASSERT(exp) ASSERT(exp)
#else
#define PAGED_ASSERT(exp) ((void)0)
#endif

#ifdef __cplusplus
}
#endif
