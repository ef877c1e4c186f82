#include "api/not_implemented.hpp"

#include <algorithm>
#include <array>

#include "util/log.hpp"

namespace ndksim::api {
namespace {

constexpr std::array<std::string_view, 33> k_entries{
    "NDK_ADAPTER_DISPATCH.NdkBuildLAM",
    "NDK_ADAPTER_DISPATCH.NdkReleaseLAM",
    "NDK_CQ_DISPATCH.NdkArmCq",
    "NDK_CQ_DISPATCH.NdkGetCqResults",
    "NDK_CQ_DISPATCH.NdkGetCqResultsEx",
    "NDK_PD_DISPATCH.NdkGetPrivilegedMemoryRegionToken",
    "NDK_MR_DISPATCH.NdkRegisterMr",
    "NDK_MR_DISPATCH.NdkDeregisterMr",
    "NDK_MR_DISPATCH.NdkInitializeFastRegisterMr",
    "NDK_MR_DISPATCH.NdkGetRemoteTokenFromMr",
    "NDK_MR_DISPATCH.NdkGetLocalTokenFromMr",
    "NDK_MW_DISPATCH.NdkGetRemoteTokenFromMw",
    "NDK_SRQ_DISPATCH.NdkSrqReceive",
    "NDK_QP_DISPATCH.NdkFlush",
    "NDK_QP_DISPATCH.NdkSend",
    "NDK_QP_DISPATCH.NdkReceive",
    "NDK_QP_DISPATCH.NdkBind",
    "NDK_QP_DISPATCH.NdkFastRegister",
    "NDK_QP_DISPATCH.NdkInvalidate",
    "NDK_QP_DISPATCH.NdkRead",
    "NDK_QP_DISPATCH.NdkWrite",
    "NDK_QP_DISPATCH.NdkSendAndInvalidate",
    "NDK_CONNECTOR_DISPATCH.NdkConnect",
    "NDK_CONNECTOR_DISPATCH.NdkConnectWithSharedEndpoint",
    "NDK_CONNECTOR_DISPATCH.NdkCompleteConnect",
    "NDK_CONNECTOR_DISPATCH.NdkAccept",
    "NDK_CONNECTOR_DISPATCH.NdkReject",
    "NDK_CONNECTOR_DISPATCH.NdkGetConnectionData",
    "NDK_CONNECTOR_DISPATCH.NdkGetLocalAddress",
    "NDK_CONNECTOR_DISPATCH.NdkGetPeerAddress",
    "NDK_CONNECTOR_DISPATCH.NdkDisconnect",
    "NDK_CONNECTOR_DISPATCH.NdkCompleteConnectEx",
    "NDK_CONNECTOR_DISPATCH.NdkAcceptEx",
};

}  // namespace

std::span<const std::string_view> not_implemented_entries() noexcept { return k_entries; }

NTSTATUS not_implemented(std::string_view entry) noexcept {
    if (std::find(k_entries.begin(), k_entries.end(), entry) == k_entries.end()) {
        NDKSIM_ERROR("{} reported as not implemented but missing from the list", entry);
    }
    NDKSIM_ERROR("{} is not implemented in this build of ndksim", entry);
    return STATUS_NOT_IMPLEMENTED;
}

}  // namespace ndksim::api
