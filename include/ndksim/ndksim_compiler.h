/* SPDX-License-Identifier: MIT */
/** \file
 * ndksim_compiler.h - the Microsoft compiler vocabulary that Windows driver sources use, mapped
 * to GCC and Clang on Linux. Included by wdm.h (through ndksim_kernel_rtl.h); include wdm.h.
 *
 * Calling conventions, linkage decorations and section pragmas have no meaning for a user-mode
 * Linux build and expand to nothing. Inlining and alignment requests keep their meaning through
 * GCC attributes. Every definition is guarded with `#ifndef` so that a consumer's own shim wins.
 *
 * Pragmas: "#pragma alloc_text(PAGE, f)", "#pragma code_seg(...)", "#pragma data_seg(...)",
 * "#pragma warning(...)" and "#pragma prefast(...)" are unknown to GCC and Clang, which ignore
 * them with a -Wunknown-pragmas warning. ndksim_add_kernel_consumer (cmake/NdksimKernelConsumer
 * .cmake) passes -Wno-unknown-pragmas, so driver sources keep them unchanged. Placing code in the
 * PAGE section has no counterpart: PAGED_CODE() checks the IRQL rule instead.
 */
#pragma once

#ifndef NDKSIM_WDM_H_INCLUDED
#error "include wdm.h, which includes ndksim_compiler.h"
#endif

/**
 * Clang applies warning flags in command-line order, so a -Wall placed after the consumer
 * function's -Wno-unknown-pragmas turns the warning back on; in driver sources it is silenced
 * here for the rest of the translation unit instead (GCC honours the flag in any order).
 */
#if defined(__clang__) && defined(NDKSIM_KERNEL_CONSUMER)
#pragma clang diagnostic ignored "-Wunknown-pragmas"
#pragma clang diagnostic ignored "-Wfour-char-constants"
#pragma clang diagnostic ignored "-Wmultichar"
#endif

/* ------------------------------------------------------------------------------------------ */
/* Calling conventions and linkage                                                             */
/* ------------------------------------------------------------------------------------------ */

/** x64 Windows has one calling convention; these only matter to 32-bit x86 code. */
#ifndef __stdcall
#define __stdcall
#endif
#ifndef __cdecl
#define __cdecl
#endif
#ifndef __fastcall
#define __fastcall
#endif
#ifndef __thiscall
#define __thiscall
#endif
#ifndef __vectorcall
#define __vectorcall
#endif
#ifndef FASTCALL
#define FASTCALL
#endif
#ifndef CALLBACK
#define CALLBACK
#endif
#ifndef NTAPI_INLINE
#define NTAPI_INLINE
#endif

/** Import and export decorations of the kernel's own routines: the library exports them itself. */
#ifndef NTKERNELAPI
#define NTKERNELAPI
#endif
#ifndef NTHALAPI
#define NTHALAPI
#endif
#ifndef NTSYSAPI
#define NTSYSAPI
#endif
#ifndef NTSYSCALLAPI
#define NTSYSCALLAPI
#endif
#ifndef DECLSPEC_IMPORT
#define DECLSPEC_IMPORT
#endif
#ifndef DECLSPEC_EXPORT
#define DECLSPEC_EXPORT
#endif

#ifndef EXTERN_C
#ifdef __cplusplus
#define EXTERN_C extern "C"
#define EXTERN_C_START extern "C" {
#define EXTERN_C_END }
#else
#define EXTERN_C extern
#define EXTERN_C_START
#define EXTERN_C_END
#endif
#endif

/* ------------------------------------------------------------------------------------------ */
/* Inlining, alignment and other declaration attributes                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * FORCEINLINE functions usually live in headers included by several translation units, where
 * MSVC merges the copies. C++ inline has that meaning; in C the nearest equivalent that links in
 * every case (including when the address is taken or the body uses file-scope statics) is static
 * inline. Consequence for C sources: write "FORCEINLINE", not "static FORCEINLINE" (a duplicate
 * storage class is an error in C).
 */
#ifndef FORCEINLINE
#ifdef __cplusplus
#define FORCEINLINE inline __attribute__((__always_inline__))
#else
#define FORCEINLINE static __inline__ __attribute__((__always_inline__, __unused__))
#endif
#endif
#ifndef __forceinline
#define __forceinline FORCEINLINE
#endif
#ifndef DECLSPEC_NOINLINE
#define DECLSPEC_NOINLINE __attribute__((__noinline__))
#endif
#ifndef DECLSPEC_ALIGN
#define DECLSPEC_ALIGN(x) __attribute__((__aligned__(x)))
#endif
/** SYSTEM_CACHE_ALIGNMENT_SIZE is 64 on x64 and ARM64. */
#ifndef SYSTEM_CACHE_ALIGNMENT_SIZE
#define SYSTEM_CACHE_ALIGNMENT_SIZE 64
#endif
#ifndef DECLSPEC_CACHEALIGN
#define DECLSPEC_CACHEALIGN DECLSPEC_ALIGN(SYSTEM_CACHE_ALIGNMENT_SIZE)
#endif
#ifndef DECLSPEC_NORETURN
#define DECLSPEC_NORETURN __attribute__((__noreturn__))
#endif
#ifndef DECLSPEC_NOTHROW
#define DECLSPEC_NOTHROW
#endif
/** selectany: one definition survives among the translation units; a weak symbol does the same. */
#ifndef DECLSPEC_SELECTANY
#define DECLSPEC_SELECTANY __attribute__((__weak__))
#endif
#ifndef DECLSPEC_NOVTABLE
#define DECLSPEC_NOVTABLE
#endif
#ifndef DECLSPEC_UUID
#define DECLSPEC_UUID(x)
#endif
#ifndef DECLSPEC_DEPRECATED
#define DECLSPEC_DEPRECATED __attribute__((__deprecated__))
#endif
#ifndef DECLSPEC_DEPRECATED_DDK
#define DECLSPEC_DEPRECATED_DDK
#endif
#ifndef DECLSPEC_DEPRECATED_DDK_WINXP
#define DECLSPEC_DEPRECATED_DDK_WINXP
#endif

/**
 * __declspec(x) for the specifiers drivers write directly. Each maps through
 * NDKSIM_DECLSPEC_<x>; a specifier without a mapping is a compile error naming
 * NDKSIM_DECLSPEC_<x>, rather than a silently dropped request.
 */
#if !defined(_MSC_VER) && !defined(__declspec)
#define __declspec(spec) NDKSIM_DECLSPEC_##spec
#define NDKSIM_DECLSPEC_align(x) __attribute__((__aligned__(x)))
#define NDKSIM_DECLSPEC_noinline __attribute__((__noinline__))
#define NDKSIM_DECLSPEC_noreturn __attribute__((__noreturn__))
#define NDKSIM_DECLSPEC_selectany __attribute__((__weak__))
#define NDKSIM_DECLSPEC_deprecated __attribute__((__deprecated__))
#define NDKSIM_DECLSPEC_dllexport
#define NDKSIM_DECLSPEC_dllimport
#define NDKSIM_DECLSPEC_nothrow
#define NDKSIM_DECLSPEC_novtable
#define NDKSIM_DECLSPEC_restrict
#define NDKSIM_DECLSPEC_noalias
#define NDKSIM_DECLSPEC_code_seg(name)
#define NDKSIM_DECLSPEC_allocate(name)
#define NDKSIM_DECLSPEC_uuid(id)
#endif

/** MSVC's sized integer keywords. */
#if !defined(_MSC_VER)
#ifndef __int8
#define __int8 char
#endif
#ifndef __int16
#define __int16 short
#endif
#ifndef __int32
#define __int32 int
#endif
#ifndef __int64
#define __int64 long long
#endif
#endif

/**
 * __pragma(x) is MSVC's operator form of `#pragma`. _Pragma is the standard one; pragmas GCC and
 * Clang know (pack, ...) keep their effect, the others are ignored like their `#pragma` forms.
 */
#if !defined(_MSC_VER) && !defined(__pragma)
#define __pragma(x) _Pragma(#x)
#endif

/** An optimizer hint MSVC never evaluates; the simulator drops it. */
#if !defined(_MSC_VER) && !defined(__assume)
#define __assume(expr) ((void)0)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Small helpers of ntdef.h                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** A compile-time assertion usable wherever a declaration is (file and block scope). */
#ifndef C_ASSERT
#define C_ASSERT(expr) NDKSIM_STATIC_ASSERT(expr, #expr)
#endif

#ifndef ANYSIZE_ARRAY
#define ANYSIZE_ARRAY 1
#endif
#ifndef NOP_FUNCTION
#define NOP_FUNCTION ((void)0)
#endif
#ifndef DBG_UNREFERENCED_PARAMETER
#define DBG_UNREFERENCED_PARAMETER(param) ((void)(param))
#endif
#ifndef DBG_UNREFERENCED_LOCAL_VARIABLE
#define DBG_UNREFERENCED_LOCAL_VARIABLE(var) ((void)(var))
#endif
#ifndef _countof
#define _countof(array) RTL_NUMBER_OF(array)
#endif

/**
 * min and max. ntdef.h defines them as macros unless NOMINMAX is defined. In C they are the
 * same macros here. In C++ a macro named min or max breaks every standard header included after
 * it (std::numeric_limits<T>::max(), std::min), so C++ gets function templates in the global
 * namespace instead: unqualified min(a, b) in driver code still compiles, mixed argument types
 * yield the common type as the macro's ?: does, and std::min/std::max stay usable. Differences
 * from the macros: each argument is evaluated once, and the result is not an lvalue.
 * Define NOMINMAX to get neither.
 */
#ifndef NOMINMAX
#ifdef __cplusplus
#if !defined(min) && !defined(max)
/** extern "C++": C++ drivers often include the WDK headers inside extern "C" { }. */
extern "C++" {
template <typename T>
struct ndksim_without_reference {
    typedef T type;
};
template <typename T>
struct ndksim_without_reference<T&> {
    typedef T type;
};
template <typename NdksimA, typename NdksimB>
struct ndksim_minmax_type {
    typedef typename ndksim_without_reference<decltype(true ? NdksimA() : NdksimB())>::type type;
};
///@{
/**
 * The WDK's min and max for C++ code: both operands are converted to the result type first, as
 * ?: and < convert them anyway.
 */
template <typename NdksimA, typename NdksimB>
constexpr typename ndksim_minmax_type<NdksimA, NdksimB>::type min(NdksimA a, NdksimB b) {
    typedef typename ndksim_minmax_type<NdksimA, NdksimB>::type result;
    return static_cast<result>(a) < static_cast<result>(b) ? static_cast<result>(a)
                                                           : static_cast<result>(b);
}
template <typename NdksimA, typename NdksimB>
constexpr typename ndksim_minmax_type<NdksimA, NdksimB>::type max(NdksimA a, NdksimB b) {
    typedef typename ndksim_minmax_type<NdksimA, NdksimB>::type result;
    return static_cast<result>(a) > static_cast<result>(b) ? static_cast<result>(a)
                                                           : static_cast<result>(b);
}
}
///@}
#endif
#else
#ifndef min
#define min(a, b) (((a) < (b)) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) (((a) > (b)) ? (a) : (b))
#endif
#endif
#endif /* NOMINMAX */
