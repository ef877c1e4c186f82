/* SPDX-License-Identifier: MIT */
/** \file
 * ntstrsafe.h - the kernel's safe string functions: bounded copy, concatenation, length and
 * printf into character arrays and UNICODE_STRINGs, with the WDK's statuses:
 *
 *   STATUS_SUCCESS            the whole result fits and is NUL-terminated;
 *   STATUS_BUFFER_OVERFLOW    the result was cut to fit; a character array is still
 *                             NUL-terminated, a UNICODE_STRING is filled to MaximumLength;
 *   STATUS_INVALID_PARAMETER  a zero or oversized destination (more than NTSTRSAFE_MAX_CCH
 *                             characters), a NULL pointer, an invalid UNICODE_STRING, or a
 *                             concatenation destination that is not NUL-terminated within its
 *                             size. When the destination itself is usable it is set to "".
 *
 * "Cch" functions take sizes in characters, "Cb" functions in bytes (a W function's byte size
 * is divided by sizeof(WCHAR), dropping an odd byte). The WDK implements these as inline
 * functions in the header; the simulator exports them from the library with the same names.
 *
 * Format strings follow the Windows kernel's printf rules, not glibc's (one formatter serves
 * these functions and DbgPrint): l is 32 bits (%ld, %lu, %lx take LONG/ULONG), %I64d/%I64u/%I64x
 * and %ll are 64 bits, %Id/%Iu/%Ix are pointer-sized, %p prints 16 upper-case hex digits, %Z
 * takes a PCANSI_STRING and %wZ a PCUNICODE_STRING. Strings and characters follow Microsoft's
 * rule for the function's family: in the A functions %s and %c are narrow and %S and %C wide; in
 * the W functions %s and %c are wide and %S and %C narrow; %hs/%hc are always narrow and %ls,
 * %ws, %lc, %wc always wide. NULL strings print "(null)". The '0' flag pads strings with zeros
 * as the Microsoft CRT does. An unknown conversion prints its character; %n writes nothing.
 *
 * IRQL: any, when the strings are resident (always, in the simulator).
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NTSTRSAFE_MAX_CCH 2147483647
#define NTSTRSAFE_MAX_LENGTH (NTSTRSAFE_MAX_CCH - 1)
#define NTSTRSAFE_UNICODE_STRING_MAX_CCH (0xffff / sizeof(WCHAR))

typedef CHAR* NTSTRSAFE_PSTR;
typedef const CHAR* NTSTRSAFE_PCSTR;
typedef WCHAR* NTSTRSAFE_PWSTR;
typedef const WCHAR* NTSTRSAFE_PCWSTR;
/** Pointers to possibly not NUL-terminated text (the N functions bound the read). */
typedef const CHAR* STRSAFE_PCNZCH;
typedef const WCHAR* STRSAFE_PCNZWCH;

#ifndef NTSTRSAFEDDI
#define NTSTRSAFEDDI NDKSIM_API NTSTATUS
#endif

///@{
/** Copies pszSrc into pszDest (cchDest characters), cutting it to cchDest - 1 characters. */
NTSTRSAFEDDI RtlStringCchCopyA(_Out_writes_(cchDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cchDest,
                               _In_ NTSTRSAFE_PCSTR pszSrc);
NTSTRSAFEDDI RtlStringCchCopyW(_Out_writes_(cchDest) NTSTRSAFE_PWSTR pszDest, _In_ size_t cchDest,
                               _In_ NTSTRSAFE_PCWSTR pszSrc);
///@}
///@{
/** RtlStringCchCopy with the destination size in bytes. */
NTSTRSAFEDDI RtlStringCbCopyA(_Out_writes_bytes_(cbDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cbDest,
                              _In_ NTSTRSAFE_PCSTR pszSrc);
NTSTRSAFEDDI RtlStringCbCopyW(_Out_writes_bytes_(cbDest) NTSTRSAFE_PWSTR pszDest,
                              _In_ size_t cbDest, _In_ NTSTRSAFE_PCWSTR pszSrc);
///@}

///@{
/**
 * Copies at most cchToCopy characters of pszSrc (stopping earlier at its NUL). A cchToCopy above
 * NTSTRSAFE_MAX_LENGTH is STATUS_INVALID_PARAMETER.
 */
NTSTRSAFEDDI RtlStringCchCopyNA(_Out_writes_(cchDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cchDest,
                                _In_reads_or_z_(cchToCopy) STRSAFE_PCNZCH pszSrc,
                                _In_ size_t cchToCopy);
NTSTRSAFEDDI RtlStringCchCopyNW(_Out_writes_(cchDest) NTSTRSAFE_PWSTR pszDest, _In_ size_t cchDest,
                                _In_reads_or_z_(cchToCopy) STRSAFE_PCNZWCH pszSrc,
                                _In_ size_t cchToCopy);
///@}
///@{
/** RtlStringCchCopyN with both sizes in bytes. */
NTSTRSAFEDDI RtlStringCbCopyNA(_Out_writes_bytes_(cbDest) NTSTRSAFE_PSTR pszDest,
                               _In_ size_t cbDest, _In_reads_bytes_(cbToCopy) STRSAFE_PCNZCH pszSrc,
                               _In_ size_t cbToCopy);
NTSTRSAFEDDI RtlStringCbCopyNW(_Out_writes_bytes_(cbDest) NTSTRSAFE_PWSTR pszDest,
                               _In_ size_t cbDest,
                               _In_reads_bytes_(cbToCopy) STRSAFE_PCNZWCH pszSrc,
                               _In_ size_t cbToCopy);
///@}

///@{
/**
 * Appends pszSrc to the NUL-terminated string in pszDest, cutting the result to fit. A pszDest
 * without a NUL within its size is STATUS_INVALID_PARAMETER (and is left unchanged).
 */
NTSTRSAFEDDI RtlStringCchCatA(_Inout_updates_(cchDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cchDest,
                              _In_ NTSTRSAFE_PCSTR pszSrc);
NTSTRSAFEDDI RtlStringCchCatW(_Inout_updates_(cchDest) NTSTRSAFE_PWSTR pszDest, _In_ size_t cchDest,
                              _In_ NTSTRSAFE_PCWSTR pszSrc);
NTSTRSAFEDDI RtlStringCbCatA(_Inout_updates_bytes_(cbDest) NTSTRSAFE_PSTR pszDest,
                             _In_ size_t cbDest, _In_ NTSTRSAFE_PCSTR pszSrc);
NTSTRSAFEDDI RtlStringCbCatW(_Inout_updates_bytes_(cbDest) NTSTRSAFE_PWSTR pszDest,
                             _In_ size_t cbDest, _In_ NTSTRSAFE_PCWSTR pszSrc);
///@}

///@{
/**
 * Stores the length of psz (characters, or bytes for Cb, without the NUL) in *pcchLength when it
 * is NUL-terminated within cchMax characters. Otherwise, or for a NULL psz or cchMax above
 * NTSTRSAFE_MAX_CCH, returns STATUS_INVALID_PARAMETER and stores 0. pcchLength may be NULL.
 */
NTSTRSAFEDDI RtlStringCchLengthA(_In_reads_or_z_(cchMax) STRSAFE_PCNZCH psz, _In_ size_t cchMax,
                                 _Out_opt_ size_t* pcchLength);
NTSTRSAFEDDI RtlStringCchLengthW(_In_reads_or_z_(cchMax) STRSAFE_PCNZWCH psz, _In_ size_t cchMax,
                                 _Out_opt_ size_t* pcchLength);
NTSTRSAFEDDI RtlStringCbLengthA(_In_reads_or_z_(cbMax) STRSAFE_PCNZCH psz, _In_ size_t cbMax,
                                _Out_opt_ size_t* pcbLength);
NTSTRSAFEDDI RtlStringCbLengthW(_In_reads_or_z_(cbMax / sizeof(WCHAR)) STRSAFE_PCNZWCH psz,
                                _In_ size_t cbMax, _Out_opt_ size_t* pcbLength);
///@}

///@{
/** Formats into pszDest (see the format rules above), cutting the result to fit. */
NTSTRSAFEDDI RtlStringCchPrintfA(_Out_writes_(cchDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cchDest,
                                 _In_z_ _Printf_format_string_ NTSTRSAFE_PCSTR pszFormat, ...);
NTSTRSAFEDDI RtlStringCchPrintfW(_Out_writes_(cchDest) NTSTRSAFE_PWSTR pszDest, _In_ size_t cchDest,
                                 _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat, ...);
NTSTRSAFEDDI RtlStringCbPrintfA(_Out_writes_bytes_(cbDest) NTSTRSAFE_PSTR pszDest,
                                _In_ size_t cbDest,
                                _In_z_ _Printf_format_string_ NTSTRSAFE_PCSTR pszFormat, ...);
NTSTRSAFEDDI RtlStringCbPrintfW(_Out_writes_bytes_(cbDest) NTSTRSAFE_PWSTR pszDest,
                                _In_ size_t cbDest,
                                _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat, ...);
NTSTRSAFEDDI RtlStringCchVPrintfA(_Out_writes_(cchDest) NTSTRSAFE_PSTR pszDest, _In_ size_t cchDest,
                                  _In_z_ _Printf_format_string_ NTSTRSAFE_PCSTR pszFormat,
                                  _In_ va_list argList);
NTSTRSAFEDDI RtlStringCchVPrintfW(_Out_writes_(cchDest) NTSTRSAFE_PWSTR pszDest,
                                  _In_ size_t cchDest,
                                  _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat,
                                  _In_ va_list argList);
NTSTRSAFEDDI RtlStringCbVPrintfA(_Out_writes_bytes_(cbDest) NTSTRSAFE_PSTR pszDest,
                                 _In_ size_t cbDest,
                                 _In_z_ _Printf_format_string_ NTSTRSAFE_PCSTR pszFormat,
                                 _In_ va_list argList);
NTSTRSAFEDDI RtlStringCbVPrintfW(_Out_writes_bytes_(cbDest) NTSTRSAFE_PWSTR pszDest,
                                 _In_ size_t cbDest,
                                 _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat,
                                 _In_ va_list argList);
///@}

///@{
/**
 * UNICODE_STRING forms. A valid UNICODE_STRING has even Length and MaximumLength, Length <=
 * MaximumLength, and a Buffer unless both are 0. The result is not NUL-terminated (Length says
 * where it ends). When it does not fit, MaximumLength bytes are written and Length is set to
 * MaximumLength; a destination with no buffer and a nonempty result is STATUS_INVALID_PARAMETER.
 */
NTSTRSAFEDDI RtlUnicodeStringPrintf(_Inout_ PUNICODE_STRING DestinationString,
                                    _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat, ...);
NTSTRSAFEDDI RtlUnicodeStringVPrintf(_Inout_ PUNICODE_STRING DestinationString,
                                     _In_z_ _Printf_format_string_ NTSTRSAFE_PCWSTR pszFormat,
                                     _In_ va_list argList);
///@}
/** Replaces DestinationString's text with SourceString's. */
NTSTRSAFEDDI RtlUnicodeStringCopy(_Inout_ PUNICODE_STRING DestinationString,
                                  _In_ PCUNICODE_STRING SourceString);
/** Replaces DestinationString's text with the NUL-terminated pszSrc. */
NTSTRSAFEDDI RtlUnicodeStringCopyString(_Inout_ PUNICODE_STRING DestinationString,
                                        _In_z_ NTSTRSAFE_PCWSTR pszSrc);
/** Appends SourceString's text to DestinationString. */
NTSTRSAFEDDI RtlUnicodeStringCat(_Inout_ PUNICODE_STRING DestinationString,
                                 _In_ PCUNICODE_STRING SourceString);
/** Appends the NUL-terminated pszSrc to DestinationString. */
NTSTRSAFEDDI RtlUnicodeStringCatString(_Inout_ PUNICODE_STRING DestinationString,
                                       _In_z_ NTSTRSAFE_PCWSTR pszSrc);

#ifdef __cplusplus
}
#endif
