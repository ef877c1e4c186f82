// SPDX-License-Identifier: MIT
#pragma once
// The names of the NDK provider functions, one per dispatch-table member (REFERENCE.md 4), as
// fault scripts and the coverage report name them. The X-macro lists them once: the enum, the
// name table and the hooked dispatch tables (fault_tables.cpp) all come from it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ndksim::api {

// X(name): every distinct member name of the ten dispatch tables.
#define NDKSIM_NDK_FUNCTIONS(X)          \
    X(NdkQueryExtension)                 \
    X(NdkQueryAdapterInfo)               \
    X(NdkCreateCq)                       \
    X(NdkCreatePd)                       \
    X(NdkCreateSharedEndpoint)           \
    X(NdkCreateConnector)                \
    X(NdkCreateListener)                 \
    X(NdkBuildLAM)                       \
    X(NdkReleaseLAM)                     \
    X(NdkCloseCq)                        \
    X(NdkResizeCq)                       \
    X(NdkArmCq)                          \
    X(NdkGetCqResults)                   \
    X(NdkControlCqInterruptModeration)   \
    X(NdkGetCqResultsEx)                 \
    X(NdkClosePd)                        \
    X(NdkCreateMr)                       \
    X(NdkCreateMw)                       \
    X(NdkCreateSrq)                      \
    X(NdkCreateQp)                       \
    X(NdkCreateQpWithSrq)                \
    X(NdkGetPrivilegedMemoryRegionToken) \
    X(NdkCloseMr)                        \
    X(NdkRegisterMr)                     \
    X(NdkDeregisterMr)                   \
    X(NdkInitializeFastRegisterMr)       \
    X(NdkGetRemoteTokenFromMr)           \
    X(NdkGetLocalTokenFromMr)            \
    X(NdkCloseMw)                        \
    X(NdkGetRemoteTokenFromMw)           \
    X(NdkCloseSrq)                       \
    X(NdkModifySrq)                      \
    X(NdkSrqReceive)                     \
    X(NdkCloseQp)                        \
    X(NdkFlush)                          \
    X(NdkSend)                           \
    X(NdkReceive)                        \
    X(NdkBind)                           \
    X(NdkFastRegister)                   \
    X(NdkInvalidate)                     \
    X(NdkRead)                           \
    X(NdkWrite)                          \
    X(NdkSendAndInvalidate)              \
    X(NdkCloseSharedEndpoint)            \
    X(NdkGetLocalAddress)                \
    X(NdkCloseConnector)                 \
    X(NdkConnect)                        \
    X(NdkConnectWithSharedEndpoint)      \
    X(NdkCompleteConnect)                \
    X(NdkAccept)                         \
    X(NdkReject)                         \
    X(NdkGetConnectionData)              \
    X(NdkGetPeerAddress)                 \
    X(NdkDisconnect)                     \
    X(NdkCompleteConnectEx)              \
    X(NdkAcceptEx)                       \
    X(NdkCloseListener)                  \
    X(NdkListen)                         \
    X(NdkControlConnectEvents)

/// One value per name above.
enum class ndk_function : std::uint8_t {
#define NDKSIM_ENUM_ENTRY(name) name,
    NDKSIM_NDK_FUNCTIONS(NDKSIM_ENUM_ENTRY)
#undef NDKSIM_ENUM_ENTRY
};

inline constexpr std::array k_ndk_function_names = {
#define NDKSIM_NAME_ENTRY(name) std::string_view(#name),
    NDKSIM_NDK_FUNCTIONS(NDKSIM_NAME_ENTRY)
#undef NDKSIM_NAME_ENTRY
};

inline constexpr std::size_t k_ndk_function_count = k_ndk_function_names.size();

/// The name of `f` ("NdkSend").
constexpr std::string_view name_of(ndk_function f) noexcept {
    return k_ndk_function_names[static_cast<std::size_t>(f)];
}

/// The function named `name`; false when no dispatch table has such a member.
constexpr bool function_named(std::string_view name, ndk_function& out) noexcept {
    for (std::size_t i = 0; i < k_ndk_function_count; ++i) {
        if (k_ndk_function_names[i] == name) {
            out = static_cast<ndk_function>(i);
            return true;
        }
    }
    return false;
}

}  // namespace ndksim::api
