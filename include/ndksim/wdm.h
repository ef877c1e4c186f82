/* SPDX-License-Identifier: MIT */
/** \file
 * wdm.h - the subset of the Windows kernel headers that NDK consumer code needs, for Linux.
 *
 * Every type has its Windows (LLP64) width: ULONG and LONG are 32 bits even though Linux x64 is
 * LP64, because every NDKPI structure offset in REFERENCE.md sections 3, 4 and 8 depends on it
 * (REFERENCE.md 8.4). The header compiles as C11 and as C++; the few functions it declares are
 * implemented by the ndksim library and have C linkage.
 *
 * Names that would clash with the platform's own socket headers are avoided on purpose: the
 * Windows socket address typedefs below use struct tags of their own, AF_INET/AF_INET6 always
 * come from <sys/socket.h>, and the Windows "s_addr"/"s6_addr" convenience macros are not
 * defined (see the socket address section).
 */
#pragma once
#define NDKSIM_WDM_H_INCLUDED 1

#include "sal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Toolchain glue                                                                              */
/* ------------------------------------------------------------------------------------------ */

/** Compile-time checks usable at file scope in both languages. */
#ifdef __cplusplus
#define NDKSIM_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#define NDKSIM_ALIGNOF(type) alignof(type)
#else
#define NDKSIM_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define NDKSIM_ALIGNOF(type) _Alignof(type)
#endif

/**
 * Casts used inside the macros of these headers. Consumers and the library build C++ with
 * -Wold-style-cast, and a C-style cast inside a macro from a non-system header is reported at
 * every expansion site, so C++ gets the named casts.
 */
#ifdef __cplusplus
#define NDKSIM_SCAST(type, expr) (static_cast<type>(expr))
#define NDKSIM_RCAST(type, expr) (reinterpret_cast<type>(expr))
#else
#define NDKSIM_SCAST(type, expr) ((type)(expr))
#define NDKSIM_RCAST(type, expr) ((type)(expr))
#endif

/**
 * Marks the functions the library exports to consumer code. The build may predefine it (for
 * example to nothing for a static build); the default keeps the symbols visible when the library
 * is compiled with -fvisibility=hidden.
 */
#ifndef NDKSIM_API
#if defined(__GNUC__) || defined(__clang__)
#define NDKSIM_API __attribute__((visibility("default")))
#else
#define NDKSIM_API
#endif
#endif

/**
 * The layout checks in these headers hold for every 64-bit target whose C ABI matches Windows x64
 * for the types used here (natural alignment, 8-byte pointers). 32-bit Linux is not covered:
 * its 8-byte integers are only 4-byte aligned inside structures, unlike Windows x86.
 */
#if defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__)
#define NDKSIM_ABI_LAYOUT_CHECKS 1
#else
#define NDKSIM_ABI_LAYOUT_CHECKS 0
#endif

/** Calling-convention and linkage decorations have no meaning on Linux x64. */
#ifndef NTAPI
#define NTAPI
#endif

/* ------------------------------------------------------------------------------------------ */
/* Primitive types (REFERENCE.md 8.4: LLP64 widths)                                            */
/* ------------------------------------------------------------------------------------------ */

#ifndef VOID
#define VOID void
#endif
#ifndef CONST
#define CONST const
#endif

typedef void* PVOID;
typedef char CHAR;
typedef CHAR* PCHAR;
typedef unsigned char UCHAR;
typedef UCHAR* PUCHAR;
typedef char CCHAR;
typedef int16_t SHORT;
typedef SHORT* PSHORT;
typedef int16_t CSHORT;
typedef uint16_t USHORT;
typedef USHORT* PUSHORT;
typedef int32_t LONG;
typedef LONG* PLONG;
typedef uint32_t ULONG;
typedef ULONG* PULONG;
typedef int64_t LONGLONG;
typedef LONGLONG* PLONGLONG;
typedef uint64_t ULONGLONG;
typedef ULONGLONG* PULONGLONG;
typedef int64_t LONG64;
typedef LONG64* PLONG64;
typedef uint64_t ULONG64;
typedef ULONG64* PULONG64;
typedef uint64_t DWORD64;
typedef int INT;
typedef unsigned int UINT;
typedef unsigned char BYTE;
typedef BYTE* PBYTE;
typedef uint16_t WORD;
typedef uint32_t DWORD;
typedef int8_t INT8;
typedef int16_t INT16;
typedef int32_t INT32;
typedef int64_t INT64;
typedef uint8_t UINT8;
typedef uint16_t UINT16;
typedef uint32_t UINT32;
typedef uint64_t UINT64;
typedef INT8* PINT8;
typedef INT16* PINT16;
typedef INT32* PINT32;
typedef INT64* PINT64;
typedef UINT8* PUINT8;
typedef UINT16* PUINT16;
typedef UINT32* PUINT32;
typedef UINT64* PUINT64;

/** Pointer-sized integers. SIZE_T is size_t so that sizeof() results need no casts. */
typedef uintptr_t ULONG_PTR;
typedef ULONG_PTR* PULONG_PTR;
typedef intptr_t LONG_PTR;
typedef LONG_PTR* PLONG_PTR;
typedef uintptr_t UINT_PTR;
typedef intptr_t INT_PTR;
typedef size_t SIZE_T;
typedef SIZE_T* PSIZE_T;
typedef LONG_PTR SSIZE_T;
typedef SSIZE_T* PSSIZE_T;

typedef UCHAR BOOLEAN;
typedef BOOLEAN* PBOOLEAN;
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

typedef LONG NTSTATUS;
typedef NTSTATUS* PNTSTATUS;

/** NDIS reports its own status codes in a plain int with the NTSTATUS value space (8.4). */
typedef int NDIS_STATUS;
typedef NDIS_STATUS* PNDIS_STATUS;

/**
 * Characters and strings. Windows' WCHAR is a 16-bit UTF-16 unit. Kernel consumers are built with
 * -fshort-wchar (the ndksim_add_kernel_consumer CMake function sets it), so that L"..." literals
 * are WCHAR arrays as they are on Windows; code built without it (the library itself, C++ tests)
 * gets char16_t and writes u"..." literals instead. Both are 16 bits, so the C ABI is the same.
 */
#if defined(__SIZEOF_WCHAR_T__) && __SIZEOF_WCHAR_T__ == 2
typedef wchar_t WCHAR;
#elif defined(__cplusplus)
typedef char16_t WCHAR;
#else
typedef uint16_t WCHAR;
#endif
typedef WCHAR* PWCHAR;
typedef WCHAR* PWSTR;
typedef WCHAR* LPWSTR;
typedef const WCHAR* PCWSTR;
typedef const WCHAR* LPCWSTR;
typedef CHAR* PSTR;
typedef CHAR* LPSTR;
typedef const CHAR* PCSTR;
typedef const CHAR* LPCSTR;
typedef const CHAR* PCSZ;

/** Counted strings: Length and MaximumLength are in bytes, not characters, and exclude no NUL. */
typedef struct _UNICODE_STRING {
    USHORT Length;
    USHORT MaximumLength;
    PWSTR Buffer;
} UNICODE_STRING, *PUNICODE_STRING;
typedef const UNICODE_STRING* PCUNICODE_STRING;

typedef struct _STRING {
    USHORT Length;
    USHORT MaximumLength;
    PCHAR Buffer;
} STRING, *PSTRING, ANSI_STRING, *PANSI_STRING, OEM_STRING, *POEM_STRING;
typedef const STRING* PCSTRING;
typedef const ANSI_STRING* PCANSI_STRING;

/** An opaque handle to a kernel object (a system thread, a registry key, a file). */
typedef void* HANDLE;
typedef HANDLE* PHANDLE;


typedef ULONG_PTR KAFFINITY;
typedef KAFFINITY* PKAFFINITY;

/** IRQL model of REFERENCE.md 8.5. */
typedef UCHAR KIRQL;
typedef KIRQL* PKIRQL;
#define PASSIVE_LEVEL 0
#define LOW_LEVEL 0
#define APC_LEVEL 1
#define DISPATCH_LEVEL 2

typedef ULONG_PTR PFN_NUMBER;
typedef PFN_NUMBER* PPFN_NUMBER;

#define MAXUCHAR 0xFF
#define MAXUSHORT 0xFFFF
#define MAXULONG 0xFFFFFFFFU
#define MAXLONG 0x7FFFFFFF
#define MAXULONGLONG (~NDKSIM_SCAST(ULONGLONG, 0))
#define MAXLONGLONG NDKSIM_SCAST(LONGLONG, 0x7FFFFFFFFFFFFFFFLL)

/**
 * LARGE_INTEGER (REFERENCE.md 8.2): the 32-bit halves are reachable both directly (x.LowPart) and
 * through the named member u (x.u.LowPart), as on Windows. The direct form needs an anonymous
 * struct, which ISO C++ lacks; __extension__ keeps -Wpedantic quiet in both compilers.
 */
typedef union _LARGE_INTEGER {
    __extension__ struct {
        ULONG LowPart;
        LONG HighPart;
    };
    struct {
        ULONG LowPart;
        LONG HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

typedef union _ULARGE_INTEGER {
    __extension__ struct {
        ULONG LowPart;
        ULONG HighPart;
    };
    struct {
        ULONG LowPart;
        ULONG HighPart;
    } u;
    ULONGLONG QuadPart;
} ULARGE_INTEGER, *PULARGE_INTEGER;

/** NDK_LOGICAL_ADDRESS is built on this (REFERENCE.md 3 and 8.2). */
typedef LARGE_INTEGER PHYSICAL_ADDRESS, *PPHYSICAL_ADDRESS;

typedef struct _GUID {
    ULONG Data1;
    USHORT Data2;
    USHORT Data3;
    UCHAR Data4[8];
} GUID, *PGUID, *LPGUID;

/** A CQ/SRQ callback-placement hint; NULL means no preference (REFERENCE.md 8.4). */
typedef struct _GROUP_AFFINITY {
    KAFFINITY Mask;
    USHORT Group;
    USHORT Reserved[3];
} GROUP_AFFINITY, *PGROUP_AFFINITY;

/* ------------------------------------------------------------------------------------------ */
/* Helper macros                                                                               */
/* ------------------------------------------------------------------------------------------ */

#define FIELD_OFFSET(type, field) NDKSIM_SCAST(LONG, offsetof(type, field))
#define RTL_FIELD_SIZE(type, field) (sizeof(NDKSIM_SCAST(type*, 0)->field))
#define RTL_SIZEOF_THROUGH_FIELD(type, field) (offsetof(type, field) + RTL_FIELD_SIZE(type, field))
#define RTL_NUMBER_OF(array) (sizeof(array) / sizeof((array)[0]))
#define ARRAYSIZE(array) RTL_NUMBER_OF(array)

/**
 * Recovers the enclosing object from the address of one of its fields; providers use it to get
 * from the NDK_OBJECT_HEADER the consumer passes back to their private object (REFERENCE.md 3).
 * The round trip through ULONG_PTR lets it accept pointers to const as the Windows macro does.
 */
#define CONTAINING_RECORD(address, type, field) \
    NDKSIM_RCAST(type*, NDKSIM_RCAST(ULONG_PTR, address) - offsetof(type, field))

#define UNREFERENCED_PARAMETER(param) ((void)(param))

/**
 * Severity is in the top two bits: 00 success, 01 informational, 10 warning, 11 error. Warnings
 * such as STATUS_BUFFER_OVERFLOW are therefore not NT_SUCCESS (REFERENCE.md 7).
 */
#define NT_SUCCESS(status) (NDKSIM_SCAST(NTSTATUS, status) >= 0)
#define NT_INFORMATION(status) ((NDKSIM_SCAST(ULONG, status) >> 30) == 1)
#define NT_WARNING(status) ((NDKSIM_SCAST(ULONG, status) >> 30) == 2)
#define NT_ERROR(status) ((NDKSIM_SCAST(ULONG, status) >> 30) == 3)

/** Memory helpers. min and max are in ndksim_compiler.h (templates in C++, macros in C). */
#define RtlZeroMemory(destination, length) memset((destination), 0, (length))
#define RtlFillMemory(destination, length, fill) \
    memset((destination), NDKSIM_SCAST(int, fill), (length))
#define RtlCopyMemory(destination, source, length) memcpy((destination), (source), (length))
#define RtlMoveMemory(destination, source, length) memmove((destination), (source), (length))
#define RtlEqualMemory(source1, source2, length) (memcmp((source1), (source2), (length)) == 0)

/**
 * Unlike memcmp, the Windows routine returns how many leading bytes are equal (Length when the
 * blocks match), so it is a function rather than a memcmp macro.
 */
static inline SIZE_T RtlCompareMemory(const VOID* Source1, const VOID* Source2, SIZE_T Length) {
    const UCHAR* left = NDKSIM_SCAST(const UCHAR*, Source1);
    const UCHAR* right = NDKSIM_SCAST(const UCHAR*, Source2);
    SIZE_T matched = 0;
    while (matched < Length && left[matched] == right[matched]) {
        ++matched;
    }
    return matched;
}

/* ------------------------------------------------------------------------------------------ */
/* NTSTATUS and NDIS_STATUS values (REFERENCE.md 7)                                            */
/* ------------------------------------------------------------------------------------------ */

/**
 * Each value is converted to the 32-bit NTSTATUS type at the definition, so error codes are
 * negative however they are later widened (0xC0000001L alone is a positive 64-bit long on LP64).
 */
#define STATUS_SUCCESS NDKSIM_SCAST(NTSTATUS, 0x00000000L)
#define STATUS_TIMEOUT NDKSIM_SCAST(NTSTATUS, 0x00000102L)
#define STATUS_PENDING NDKSIM_SCAST(NTSTATUS, 0x00000103L)
#define STATUS_BUFFER_OVERFLOW NDKSIM_SCAST(NTSTATUS, 0x80000005L)
#define STATUS_DEVICE_BUSY NDKSIM_SCAST(NTSTATUS, 0x80000011L)
#define STATUS_UNSUCCESSFUL NDKSIM_SCAST(NTSTATUS, 0xC0000001L)
#define STATUS_NOT_IMPLEMENTED NDKSIM_SCAST(NTSTATUS, 0xC0000002L)
#define STATUS_ACCESS_VIOLATION NDKSIM_SCAST(NTSTATUS, 0xC0000005L)
#define STATUS_INVALID_HANDLE NDKSIM_SCAST(NTSTATUS, 0xC0000008L)
#define STATUS_INVALID_PARAMETER NDKSIM_SCAST(NTSTATUS, 0xC000000DL)
#define STATUS_INVALID_DEVICE_REQUEST NDKSIM_SCAST(NTSTATUS, 0xC0000010L)
#define STATUS_NO_MEMORY NDKSIM_SCAST(NTSTATUS, 0xC0000017L)
#define STATUS_BUFFER_TOO_SMALL NDKSIM_SCAST(NTSTATUS, 0xC0000023L)
#define STATUS_INVALID_PARAMETER_MIX NDKSIM_SCAST(NTSTATUS, 0xC0000030L)
#define STATUS_DATA_OVERRUN NDKSIM_SCAST(NTSTATUS, 0xC000003CL)
#define STATUS_DATA_ERROR NDKSIM_SCAST(NTSTATUS, 0xC000003EL)
#define STATUS_SHARING_VIOLATION NDKSIM_SCAST(NTSTATUS, 0xC0000043L)
#define STATUS_INSUFFICIENT_RESOURCES NDKSIM_SCAST(NTSTATUS, 0xC000009AL)
#define STATUS_DEVICE_DATA_ERROR NDKSIM_SCAST(NTSTATUS, 0xC000009CL)
#define STATUS_DEVICE_NOT_READY NDKSIM_SCAST(NTSTATUS, 0xC00000A3L)
#define STATUS_IO_TIMEOUT NDKSIM_SCAST(NTSTATUS, 0xC00000B5L)
#define STATUS_NOT_SUPPORTED NDKSIM_SCAST(NTSTATUS, 0xC00000BBL)
#define STATUS_INTERNAL_ERROR NDKSIM_SCAST(NTSTATUS, 0xC00000E5L)
#define STATUS_CANCELLED NDKSIM_SCAST(NTSTATUS, 0xC0000120L)
#define STATUS_LOCAL_DISCONNECT NDKSIM_SCAST(NTSTATUS, 0xC000013BL)
#define STATUS_REMOTE_DISCONNECT NDKSIM_SCAST(NTSTATUS, 0xC000013CL)
#define STATUS_REMOTE_RESOURCES NDKSIM_SCAST(NTSTATUS, 0xC000013DL)
#define STATUS_INVALID_CONNECTION NDKSIM_SCAST(NTSTATUS, 0xC0000140L)
#define STATUS_INVALID_ADDRESS NDKSIM_SCAST(NTSTATUS, 0xC0000141L)
#define STATUS_INVALID_DEVICE_STATE NDKSIM_SCAST(NTSTATUS, 0xC0000184L)
#define STATUS_INVALID_BUFFER_SIZE NDKSIM_SCAST(NTSTATUS, 0xC0000206L)
#define STATUS_TOO_MANY_ADDRESSES NDKSIM_SCAST(NTSTATUS, 0xC0000209L)
#define STATUS_ADDRESS_ALREADY_EXISTS NDKSIM_SCAST(NTSTATUS, 0xC000020AL)
#define STATUS_ADDRESS_CLOSED NDKSIM_SCAST(NTSTATUS, 0xC000020BL)
#define STATUS_CONNECTION_DISCONNECTED NDKSIM_SCAST(NTSTATUS, 0xC000020CL)
#define STATUS_CONNECTION_RESET NDKSIM_SCAST(NTSTATUS, 0xC000020DL)
#define STATUS_CONNECTION_REFUSED NDKSIM_SCAST(NTSTATUS, 0xC0000236L)
#define STATUS_GRACEFUL_DISCONNECT NDKSIM_SCAST(NTSTATUS, 0xC0000237L)
#define STATUS_CONNECTION_INVALID NDKSIM_SCAST(NTSTATUS, 0xC000023AL)
#define STATUS_CONNECTION_ACTIVE NDKSIM_SCAST(NTSTATUS, 0xC000023BL)
#define STATUS_NETWORK_UNREACHABLE NDKSIM_SCAST(NTSTATUS, 0xC000023CL)
#define STATUS_HOST_UNREACHABLE NDKSIM_SCAST(NTSTATUS, 0xC000023DL)
#define STATUS_PORT_UNREACHABLE NDKSIM_SCAST(NTSTATUS, 0xC000023FL)
#define STATUS_REQUEST_ABORTED NDKSIM_SCAST(NTSTATUS, 0xC0000240L)
#define STATUS_CONNECTION_ABORTED NDKSIM_SCAST(NTSTATUS, 0xC0000241L)
#define STATUS_IMPLEMENTATION_LIMIT NDKSIM_SCAST(NTSTATUS, 0xC000042BL)

/**
 * NDIS status codes. The first group is the set REFERENCE.md 7 lists; the second holds the
 * neighbours an OID handler (REFERENCE.md 11) commonly returns, with their ndis.h values.
 */
#define NDIS_STATUS_SUCCESS NDKSIM_SCAST(NDIS_STATUS, STATUS_SUCCESS)
#define NDIS_STATUS_PENDING NDKSIM_SCAST(NDIS_STATUS, STATUS_PENDING)
#define NDIS_STATUS_FAILURE NDKSIM_SCAST(NDIS_STATUS, STATUS_UNSUCCESSFUL)
#define NDIS_STATUS_RESOURCES NDKSIM_SCAST(NDIS_STATUS, STATUS_INSUFFICIENT_RESOURCES)
#define NDIS_STATUS_NOT_SUPPORTED NDKSIM_SCAST(NDIS_STATUS, STATUS_NOT_SUPPORTED)
#define NDIS_STATUS_BAD_VERSION NDKSIM_SCAST(NDIS_STATUS, 0xC0010004L)
#define NDIS_STATUS_ADAPTER_NOT_READY NDKSIM_SCAST(NDIS_STATUS, 0xC0010011L)

#define NDIS_STATUS_INVALID_PARAMETER NDKSIM_SCAST(NDIS_STATUS, STATUS_INVALID_PARAMETER)
#define NDIS_STATUS_INVALID_DEVICE_REQUEST NDKSIM_SCAST(NDIS_STATUS, STATUS_INVALID_DEVICE_REQUEST)
#define NDIS_STATUS_INVALID_LENGTH NDKSIM_SCAST(NDIS_STATUS, 0xC0010014L)
#define NDIS_STATUS_INVALID_DATA NDKSIM_SCAST(NDIS_STATUS, 0xC0010015L)
#define NDIS_STATUS_BUFFER_TOO_SHORT NDKSIM_SCAST(NDIS_STATUS, 0xC0010016L)
#define NDIS_STATUS_INVALID_OID NDKSIM_SCAST(NDIS_STATUS, 0xC0010017L)

/* ------------------------------------------------------------------------------------------ */
/* Socket addresses (REFERENCE.md 8.3)                                                         */
/* ------------------------------------------------------------------------------------------ */

/**
 * Address families.
 *
 * AF_INET is 2 on Windows and on Linux, but AF_INET6 is 23 on Windows and 10 on Linux. AF_INET and
 * AF_INET6 in this header are always the platform's own (from <sys/socket.h>), so consumer code
 * that fills sin6_family = AF_INET6 stores 10, while code or data written with Windows values
 * carries 23. The simulator's rule:
 *
 *   - On input (Listen, Connect, CreateSharedEndpoint, ...) both WS_AF_INET6 (23) and the
 *     platform AF_INET6 (10 on Linux) are accepted as IPv6; AF_INET (2) is IPv4.
 *   - Addresses it returns (NdkGetLocalAddress, NdkGetPeerAddress, the listener and shared
 *     endpoint getters, OID reports) carry the IPv6 family value the consumer used on that
 *     object; when the consumer never supplied one, they carry WS_AF_INET6 (23).
 *   - AF_INET is 2 on both systems and needs no translation.
 */
#define WS_AF_INET 2
#define WS_AF_INET6 23
#define NDKSIM_IS_AF_INET6(family) ((family) == WS_AF_INET6 || (family) == AF_INET6)

typedef USHORT ADDRESS_FAMILY;

/**
 * The struct tags below are distinct from Linux's (sockaddr, in_addr, in6_addr, sockaddr_in, ...)
 * so that <netinet/in.h> can be included before or after this header. Use the typedef names.
 */
typedef struct _NDK_SOCKADDR {
    ADDRESS_FAMILY sa_family;
    CHAR sa_data[14];
} SOCKADDR, *PSOCKADDR, *LPSOCKADDR;

/** Named helper types for IN_ADDR's union: C++ forbids defining types inside an anonymous union. */
struct _NDK_IN_ADDR_BYTES {
    UCHAR s_b1, s_b2, s_b3, s_b4;
};
struct _NDK_IN_ADDR_WORDS {
    USHORT s_w1, s_w2;
};
union _NDK_IN_ADDR_UNION {
    struct _NDK_IN_ADDR_BYTES S_un_b;
    struct _NDK_IN_ADDR_WORDS S_un_w;
    ULONG S_addr;
};

/**
 * IPv4 address in network byte order. Windows reaches the 32-bit value as a.S_un.S_addr and, via a
 * macro, as a.s_addr. A macro named s_addr would break Linux's struct in_addr, so the short form
 * is an anonymous-union member instead; both spellings refer to the same four bytes.
 */
typedef struct _NDK_IN_ADDR {
    union {
        union _NDK_IN_ADDR_UNION S_un;
        ULONG s_addr;
    };
} IN_ADDR, *PIN_ADDR, *LPIN_ADDR;

/**
 * IPv6 address, reached as a.u.Byte[i] or a.u.Word[i]. The Windows s6_addr/s6_bytes/s6_words
 * macros are not provided: glibc already defines s6_addr for its own struct in6_addr.
 */
union _NDK_IN6_ADDR_UNION {
    UCHAR Byte[16];
    USHORT Word[8];
};
typedef struct _NDK_IN6_ADDR {
    union _NDK_IN6_ADDR_UNION u;
} IN6_ADDR, *PIN6_ADDR, *LPIN6_ADDR;

/** sin6_scope_id split into its zone index and scope level, or taken whole as Value. */
typedef union _NDK_SCOPE_ID {
    __extension__ struct {
        ULONG Zone : 28;
        ULONG Level : 4;
    };
    ULONG Value;
} SCOPE_ID, *PSCOPE_ID;

typedef struct _NDK_SOCKADDR_IN {
    ADDRESS_FAMILY sin_family;
    USHORT sin_port; /**< network byte order */
    IN_ADDR sin_addr;
    CHAR sin_zero[8];
} SOCKADDR_IN, *PSOCKADDR_IN, *LPSOCKADDR_IN;

typedef struct _NDK_SOCKADDR_IN6 {
    ADDRESS_FAMILY sin6_family;
    USHORT sin6_port; /**< network byte order */
    ULONG sin6_flowinfo;
    IN6_ADDR sin6_addr;
    union {
        ULONG sin6_scope_id;
        SCOPE_ID sin6_scope_struct;
    };
} SOCKADDR_IN6, *PSOCKADDR_IN6, *LPSOCKADDR_IN6;
typedef SOCKADDR_IN6 SOCKADDR_IN6_LH, *PSOCKADDR_IN6_LH;

/** Either family; si_family overlays both sin_family and sin6_family. */
typedef union _NDK_SOCKADDR_INET {
    SOCKADDR_IN Ipv4;
    SOCKADDR_IN6 Ipv6;
    ADDRESS_FAMILY si_family;
} SOCKADDR_INET, *PSOCKADDR_INET;

/** Large enough and aligned enough for any address the simulator hands out. */
typedef struct _NDK_SOCKADDR_STORAGE {
    ADDRESS_FAMILY ss_family;
    CHAR __ss_pad1[6];
    LONGLONG __ss_align;
    CHAR __ss_pad2[112];
} SOCKADDR_STORAGE, *PSOCKADDR_STORAGE, *LPSOCKADDR_STORAGE;
typedef SOCKADDR_STORAGE SOCKADDR_STORAGE_LH, *PSOCKADDR_STORAGE_LH;

typedef ULONG NET_IFINDEX, *PNET_IFINDEX;

/* ------------------------------------------------------------------------------------------ */
/* I/O manager and memory manager types                                                        */
/* ------------------------------------------------------------------------------------------ */

/** The I/O request packet; ndksim_kernel_io.h completes the structure. */
typedef struct _IRP IRP, *PIRP;

/** Owning process of an MDL's pages; opaque. */
typedef struct _EPROCESS* PEPROCESS;

typedef CCHAR KPROCESSOR_MODE;
typedef enum _MODE { KernelMode = 0, UserMode = 1, MaximumMode = 2 } MODE;

typedef enum _LOCK_OPERATION {
    IoReadAccess = 0,
    IoWriteAccess = 1,
    IoModifyAccess = 2
} LOCK_OPERATION;

typedef enum _MM_PAGE_PRIORITY {
    LowPagePriority = 0,
    NormalPagePriority = 16,
    HighPagePriority = 32
} MM_PAGE_PRIORITY;

/** OR-ed into the priority argument of MmGetSystemAddressForMdlSafe. */
#define MdlMappingNoExecute 0x40000000

/** Page geometry: 4 KiB on x86, x64 and ARM64 (REFERENCE.md 8.1). */
#ifndef PAGE_SIZE
#define PAGE_SIZE 0x1000
#endif
#ifndef PAGE_SHIFT
#define PAGE_SHIFT 12
#endif

/** Va with its in-page offset cleared. */
#define PAGE_ALIGN(va) \
    NDKSIM_RCAST(PVOID, NDKSIM_RCAST(ULONG_PTR, va) & ~NDKSIM_SCAST(ULONG_PTR, PAGE_SIZE - 1))

/** Offset of va within its page. */
#define BYTE_OFFSET(va) \
    NDKSIM_SCAST(ULONG, NDKSIM_RCAST(ULONG_PTR, va) & NDKSIM_SCAST(ULONG_PTR, PAGE_SIZE - 1))

/** Number of pages touched by the byte range [va, va + size). */
#define ADDRESS_AND_SIZE_TO_SPAN_PAGES(va, size) \
    NDKSIM_SCAST(ULONG,                          \
                 (BYTE_OFFSET(va) + NDKSIM_SCAST(SIZE_T, size) + (PAGE_SIZE - 1)) >> PAGE_SHIFT)

/** size rounded up to a whole number of pages, in bytes. */
#define ROUND_TO_PAGES(size) \
    ((NDKSIM_SCAST(ULONG_PTR, size) + (PAGE_SIZE - 1)) & ~NDKSIM_SCAST(ULONG_PTR, PAGE_SIZE - 1))

/** size in pages, rounded up. */
#define BYTES_TO_PAGES(size)                                            \
    NDKSIM_SCAST(ULONG, (NDKSIM_SCAST(ULONG_PTR, size) >> PAGE_SHIFT) + \
                            ((NDKSIM_SCAST(ULONG_PTR, size) & (PAGE_SIZE - 1)) != 0))

/**
 * Memory descriptor list: x64 layout of REFERENCE.md 8.1, a 0x30-byte header followed directly by
 * one PFN_NUMBER per page the described range spans. NDK consumers hand chains of these to
 * NdkRegisterMr and NdkBuildLAM; the provider uses MmGetMdlVirtualAddress only as a key and reads
 * the PFN array to find the pages.
 */
typedef struct _MDL {
    struct _MDL* Next;                /**< next MDL of a chain, or NULL */
    CSHORT Size;                      /**< header plus PFN array, in bytes */
    CSHORT MdlFlags;                  /**< MDL_* below */
    USHORT AllocationProcessorNumber; /**< unused by the simulator */
    USHORT Reserved;
    struct _EPROCESS* Process; /**< unused by the simulator */
    PVOID MappedSystemVa;      /**< valid when MDL_MAPPED_TO_SYSTEM_VA or _NONPAGED_POOL */
    PVOID StartVa;             /**< page-aligned start of the range */
    ULONG ByteCount;           /**< bytes described */
    ULONG ByteOffset;          /**< offset of the first byte within the first page */
} MDL, *PMDL;

#define MDL_MAPPED_TO_SYSTEM_VA 0x0001
#define MDL_PAGES_LOCKED 0x0002
#define MDL_SOURCE_IS_NONPAGED_POOL 0x0004
#define MDL_ALLOCATED_FIXED_SIZE 0x0008
#define MDL_PARTIAL 0x0010
#define MDL_PARTIAL_HAS_BEEN_MAPPED 0x0020
#define MDL_IO_PAGE_READ 0x0040
#define MDL_WRITE_OPERATION 0x0080
#define MDL_LOCKED_PAGE_TABLES 0x0100
#define MDL_PARENT_MAPPED_SYSTEM_VA MDL_LOCKED_PAGE_TABLES
#define MDL_FREE_EXTRA_PTES 0x0200
#define MDL_DESCRIBES_AWE 0x0400
#define MDL_IO_SPACE 0x0800
#define MDL_NETWORK_HEADER 0x1000
#define MDL_MAPPING_CAN_FAIL 0x2000
#define MDL_PAGE_CONTENTS_INVARIANT 0x4000
#define MDL_ALLOCATED_MUST_SUCCEED MDL_PAGE_CONTENTS_INVARIANT
#define MDL_INTERNAL 0x8000

/** First described byte. NDK treats it as a key and never dereferences it. */
#define MmGetMdlVirtualAddress(mdl) \
    NDKSIM_SCAST(PVOID, NDKSIM_SCAST(PCHAR, (mdl)->StartVa) + (mdl)->ByteOffset)
#define MmGetMdlByteCount(mdl) ((mdl)->ByteCount)
#define MmGetMdlByteOffset(mdl) ((mdl)->ByteOffset)
#define MmGetMdlBaseVa(mdl) ((mdl)->StartVa)
/** The PFN array sits immediately after the header. */
#define MmGetMdlPfnArray(mdl) NDKSIM_RCAST(PPFN_NUMBER, (mdl) + 1)

/**
 * Formats a caller-provided MDL (header plus room for the PFN array) to describe
 * [base_va, base_va + length). Like Windows it leaves Process, MappedSystemVa and the PFN array
 * untouched; the PFN array is filled by MmBuildMdlForNonPagedPool or MmProbeAndLockPages.
 */
#define MmInitializeMdl(mdl, base_va, length)                                                    \
    do {                                                                                         \
        (mdl)->Next = NULL;                                                                      \
        (mdl)->Size = NDKSIM_SCAST(                                                              \
            CSHORT,                                                                              \
            sizeof(MDL) + sizeof(PFN_NUMBER) * ADDRESS_AND_SIZE_TO_SPAN_PAGES(base_va, length)); \
        (mdl)->MdlFlags = 0;                                                                     \
        (mdl)->StartVa = PAGE_ALIGN(base_va);                                                    \
        (mdl)->ByteOffset = BYTE_OFFSET(base_va);                                                \
        (mdl)->ByteCount = NDKSIM_SCAST(ULONG, length);                                          \
    } while (0)

/**
 * Returns the system-space address of the described buffer. On Windows an unmapped MDL gets
 * mapped here; in the simulator kernel and user addresses coincide, so "mapping" records the
 * buffer's own address in MappedSystemVa and sets MDL_MAPPED_TO_SYSTEM_VA. An MDL already mapped
 * (or built for nonpaged pool) returns MappedSystemVa unchanged. Priority (an MM_PAGE_PRIORITY,
 * optionally OR-ed with MdlMappingNoExecute) does not affect the result.
 */
static inline PVOID MmGetSystemAddressForMdlSafe(PMDL Mdl, ULONG Priority) {
    UNREFERENCED_PARAMETER(Priority);
    if ((Mdl->MdlFlags & (MDL_MAPPED_TO_SYSTEM_VA | MDL_SOURCE_IS_NONPAGED_POOL)) == 0) {
        Mdl->MappedSystemVa = MmGetMdlVirtualAddress(Mdl);
        Mdl->MdlFlags = NDKSIM_SCAST(CSHORT, Mdl->MdlFlags | MDL_MAPPED_TO_SYSTEM_VA);
    }
    return Mdl->MappedSystemVa;
}

/**
 * Allocates an MDL with room for the PFN array of [VirtualAddress, VirtualAddress + Length) and
 * formats it as MmInitializeMdl does; its pages are neither pinned nor listed yet. Returns NULL
 * when memory runs out or the range spans more pages than one MDL can describe. The simulator
 * has no IRPs or process quotas: Irp must be NULL, and SecondaryBuffer and ChargeQuota are
 * accepted and ignored. Free with IoFreeMdl.
 */
NDKSIM_API PMDL IoAllocateMdl(_In_opt_ __drv_aliasesMem PVOID VirtualAddress, _In_ ULONG Length,
                              _In_ BOOLEAN SecondaryBuffer, _In_ BOOLEAN ChargeQuota,
                              _Inout_opt_ PIRP Irp);

/** Frees an MDL from IoAllocateMdl. Locked pages must have been unlocked with MmUnlockPages. */
NDKSIM_API VOID IoFreeMdl(_In_ PMDL Mdl);

/**
 * For a buffer the caller keeps resident for the MDL's lifetime (Windows: nonpaged pool; in the
 * simulator: any memory the process owns): registers the buffer's pages in the simulated host
 * page table, writes their simulated page frame numbers into the PFN array, sets MappedSystemVa
 * to the buffer address and marks the MDL MDL_SOURCE_IS_NONPAGED_POOL. No unlock is needed.
 */
NDKSIM_API VOID MmBuildMdlForNonPagedPool(_Inout_ PMDL MemoryDescriptorList);

/**
 * Pins the buffer's pages in the simulated host page table and fills the PFN array with their
 * simulated page frame numbers, then sets MDL_PAGES_LOCKED (plus MDL_WRITE_OPERATION for
 * IoWriteAccess and IoModifyAccess). The simulated NIC can then DMA to and from those pages until
 * MmUnlockPages. Windows raises an exception for an inaccessible range; Linux has no structured
 * exceptions, so the simulator treats that as a fatal consumer error and reports it.
 */
NDKSIM_API VOID MmProbeAndLockPages(_Inout_ PMDL MemoryDescriptorList,
                                    _In_ KPROCESSOR_MODE AccessMode, _In_ LOCK_OPERATION Operation);

/**
 * Releases the pins taken by MmProbeAndLockPages and clears MDL_PAGES_LOCKED and, as on Windows,
 * any system mapping recorded in the MDL. The PFN array content is stale afterwards.
 */
NDKSIM_API VOID MmUnlockPages(_Inout_ PMDL MemoryDescriptorList);

/**
 * Bytes needed for an MDL describing [Base, Base + Length): sizeof(MDL) plus one PFN_NUMBER per
 * spanned page. Pure arithmetic; Base is not dereferenced.
 */
NDKSIM_API SIZE_T MmSizeOfMdl(_In_reads_bytes_opt_(Length) PVOID Base, _In_ SIZE_T Length);

/* ------------------------------------------------------------------------------------------ */
/* Layout checks (REFERENCE.md 3 and 8)                                                        */
/* ------------------------------------------------------------------------------------------ */

#define NDKSIM_ASSERT_SIZE(type, size) NDKSIM_STATIC_ASSERT(sizeof(type) == (size), #type " size")
#define NDKSIM_ASSERT_OFFSET(type, field, offset) \
    NDKSIM_STATIC_ASSERT(offsetof(type, field) == (offset), #type "." #field " offset")

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(CHAR, 1);
NDKSIM_ASSERT_SIZE(UCHAR, 1);
NDKSIM_ASSERT_SIZE(CCHAR, 1);
NDKSIM_ASSERT_SIZE(BOOLEAN, 1);
NDKSIM_ASSERT_SIZE(KIRQL, 1);
NDKSIM_ASSERT_SIZE(KPROCESSOR_MODE, 1);
NDKSIM_ASSERT_SIZE(SHORT, 2);
NDKSIM_ASSERT_SIZE(CSHORT, 2);
NDKSIM_ASSERT_SIZE(USHORT, 2);
NDKSIM_ASSERT_SIZE(ADDRESS_FAMILY, 2);
NDKSIM_ASSERT_SIZE(LONG, 4);
NDKSIM_ASSERT_SIZE(ULONG, 4);
NDKSIM_ASSERT_SIZE(NTSTATUS, 4);
NDKSIM_ASSERT_SIZE(NDIS_STATUS, 4);
NDKSIM_ASSERT_SIZE(INT8, 1);
NDKSIM_ASSERT_SIZE(UINT8, 1);
NDKSIM_ASSERT_SIZE(INT16, 2);
NDKSIM_ASSERT_SIZE(UINT16, 2);
NDKSIM_ASSERT_SIZE(INT32, 4);
NDKSIM_ASSERT_SIZE(UINT32, 4);
NDKSIM_ASSERT_SIZE(INT64, 8);
NDKSIM_ASSERT_SIZE(UINT64, 8);
NDKSIM_ASSERT_SIZE(LONGLONG, 8);
NDKSIM_ASSERT_SIZE(ULONGLONG, 8);
NDKSIM_ASSERT_SIZE(LONG64, 8);
NDKSIM_ASSERT_SIZE(ULONG64, 8);
NDKSIM_ASSERT_SIZE(PVOID, 8);
NDKSIM_ASSERT_SIZE(WCHAR, 2);
NDKSIM_ASSERT_SIZE(HANDLE, 8);
NDKSIM_ASSERT_SIZE(UNICODE_STRING, 0x10);
NDKSIM_ASSERT_OFFSET(UNICODE_STRING, Buffer, 0x08);
NDKSIM_ASSERT_SIZE(STRING, 0x10);
NDKSIM_ASSERT_SIZE(SIZE_T, 8);
NDKSIM_ASSERT_SIZE(SSIZE_T, 8);
NDKSIM_ASSERT_SIZE(ULONG_PTR, 8);
NDKSIM_ASSERT_SIZE(LONG_PTR, 8);
NDKSIM_ASSERT_SIZE(KAFFINITY, 8);
NDKSIM_ASSERT_SIZE(PFN_NUMBER, 8);

NDKSIM_ASSERT_SIZE(LARGE_INTEGER, 8);
NDKSIM_ASSERT_OFFSET(LARGE_INTEGER, LowPart, 0);
NDKSIM_ASSERT_OFFSET(LARGE_INTEGER, HighPart, 4);
NDKSIM_ASSERT_OFFSET(LARGE_INTEGER, u.HighPart, 4);
NDKSIM_STATIC_ASSERT(NDKSIM_ALIGNOF(LARGE_INTEGER) == 8, "LARGE_INTEGER alignment");
NDKSIM_ASSERT_SIZE(PHYSICAL_ADDRESS, 8);

NDKSIM_ASSERT_SIZE(GUID, 16);
NDKSIM_ASSERT_OFFSET(GUID, Data2, 4);
NDKSIM_ASSERT_OFFSET(GUID, Data3, 6);
NDKSIM_ASSERT_OFFSET(GUID, Data4, 8);

NDKSIM_ASSERT_SIZE(GROUP_AFFINITY, 16);
NDKSIM_ASSERT_OFFSET(GROUP_AFFINITY, Mask, 0);
NDKSIM_ASSERT_OFFSET(GROUP_AFFINITY, Group, 8);
NDKSIM_ASSERT_OFFSET(GROUP_AFFINITY, Reserved, 10);

NDKSIM_ASSERT_SIZE(SOCKADDR, 16);
NDKSIM_ASSERT_OFFSET(SOCKADDR, sa_family, 0);
NDKSIM_ASSERT_OFFSET(SOCKADDR, sa_data, 2);
NDKSIM_ASSERT_SIZE(IN_ADDR, 4);
NDKSIM_ASSERT_OFFSET(IN_ADDR, s_addr, 0);
NDKSIM_ASSERT_OFFSET(IN_ADDR, S_un.S_un_b.s_b4, 3);
NDKSIM_ASSERT_OFFSET(IN_ADDR, S_un.S_un_w.s_w2, 2);
NDKSIM_ASSERT_SIZE(IN6_ADDR, 16);
NDKSIM_ASSERT_SIZE(SCOPE_ID, 4);
NDKSIM_ASSERT_SIZE(SOCKADDR_IN, 16);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN, sin_family, 0);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN, sin_port, 2);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN, sin_addr, 4);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN, sin_zero, 8);
NDKSIM_ASSERT_SIZE(SOCKADDR_IN6, 28);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_family, 0);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_port, 2);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_flowinfo, 4);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_addr, 8);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_scope_id, 24);
NDKSIM_ASSERT_OFFSET(SOCKADDR_IN6, sin6_scope_struct, 24);
NDKSIM_ASSERT_SIZE(SOCKADDR_INET, 28);
NDKSIM_ASSERT_OFFSET(SOCKADDR_INET, si_family, 0);
NDKSIM_ASSERT_OFFSET(SOCKADDR_INET, Ipv4, 0);
NDKSIM_ASSERT_OFFSET(SOCKADDR_INET, Ipv6, 0);
NDKSIM_ASSERT_SIZE(SOCKADDR_STORAGE, 128);
NDKSIM_ASSERT_OFFSET(SOCKADDR_STORAGE, ss_family, 0);

NDKSIM_ASSERT_SIZE(MDL, 0x30);
NDKSIM_ASSERT_OFFSET(MDL, Next, 0x00);
NDKSIM_ASSERT_OFFSET(MDL, Size, 0x08);
NDKSIM_ASSERT_OFFSET(MDL, MdlFlags, 0x0A);
NDKSIM_ASSERT_OFFSET(MDL, AllocationProcessorNumber, 0x0C);
NDKSIM_ASSERT_OFFSET(MDL, Reserved, 0x0E);
NDKSIM_ASSERT_OFFSET(MDL, Process, 0x10);
NDKSIM_ASSERT_OFFSET(MDL, MappedSystemVa, 0x18);
NDKSIM_ASSERT_OFFSET(MDL, StartVa, 0x20);
NDKSIM_ASSERT_OFFSET(MDL, ByteCount, 0x28);
NDKSIM_ASSERT_OFFSET(MDL, ByteOffset, 0x2C);
#endif /* NDKSIM_ABI_LAYOUT_CHECKS */

/** Independent of the target: the MDL header must keep the PFN array aligned. */
NDKSIM_STATIC_ASSERT(sizeof(MDL) % sizeof(PFN_NUMBER) == 0, "PFN array follows the MDL header");

#ifdef __cplusplus
}
#endif

/** IRQL, events, waits and spin locks. */
#include "ndksim_kernel.h"

/** Compiler glue, counted strings, IP address strings, DbgPrint and PAGED_CODE. */
#include "ndksim_kernel_rtl.h"
/** Clocks, DPCs, timers, threads, rundown, push locks, resources, SLISTs, lookaside lists. */
#include "ndksim_kernel_exec.h"
/** Driver and device objects, IRPs, work items, the driver life cycle and its leak report. */
#include "ndksim_kernel_io.h"
