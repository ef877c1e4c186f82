// SPDX-License-Identifier: MIT
// NDK_SHARED_ENDPOINT_DISPATCH.

#include "api/abi.hpp"
#include "api/address.hpp"
#include "api/dispatch_tables.hpp"
#include "core/shared_endpoint.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseSharedEndpoint(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::shared_endpoint, done, ctx, "NdkCloseSharedEndpoint");
}

NTSTATUS NdkGetSharedEndpointLocalAddress(NDK_SHARED_ENDPOINT* pNdkSharedEndpoint,
                                          PSOCKADDR pAddress, ULONG* pAddressLength) {
    auto* sep = from_ndk<core::shared_endpoint>(pNdkSharedEndpoint, object_kind::shared_endpoint,
                                                "NdkGetLocalAddress(shared endpoint)");
    if (sep == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return to_sockaddr(sep->local_address(), pAddress, pAddressLength);
}

}  // namespace

const NDK_SHARED_ENDPOINT_DISPATCH k_shared_endpoint_dispatch = {
    NdkCloseSharedEndpoint, query_extension_of<object_kind::shared_endpoint>,
    NdkGetSharedEndpointLocalAddress};

}  // namespace ndksim::api
