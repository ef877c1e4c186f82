// NDK_CONNECTOR_DISPATCH (all 13 entries of NDKPI 2.1).

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/connector.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

NTSTATUS NdkCloseConnector(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::connector, done, ctx, "NdkCloseConnector");
}

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::connector, "NdkQueryExtension(connector)");
}

NTSTATUS NdkConnect(NDK_CONNECTOR*, NDK_QP*, const PSOCKADDR, ULONG, const PSOCKADDR, ULONG,
                    ULONG, ULONG, PVOID, ULONG, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkConnect");
}

NTSTATUS NdkConnectWithSharedEndpoint(NDK_CONNECTOR*, NDK_QP*, NDK_SHARED_ENDPOINT*,
                                      const PSOCKADDR, ULONG, ULONG, ULONG, PVOID, ULONG,
                                      NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkConnectWithSharedEndpoint");
}

NTSTATUS NdkCompleteConnect(NDK_CONNECTOR*, NDK_FN_DISCONNECT_EVENT_CALLBACK, PVOID,
                            NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkCompleteConnect");
}

NTSTATUS NdkAccept(NDK_CONNECTOR*, NDK_QP*, ULONG, ULONG, PVOID, ULONG,
                   NDK_FN_DISCONNECT_EVENT_CALLBACK, PVOID, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkAccept");
}

NTSTATUS NdkReject(NDK_CONNECTOR*, PVOID, ULONG) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkReject");
}

NTSTATUS NdkGetConnectionData(NDK_CONNECTOR*, ULONG*, ULONG*, PVOID, ULONG*) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkGetConnectionData");
}

NTSTATUS NdkGetLocalAddress(NDK_CONNECTOR*, PSOCKADDR, ULONG*) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkGetLocalAddress");
}

NTSTATUS NdkGetPeerAddress(NDK_CONNECTOR*, PSOCKADDR, ULONG*) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkGetPeerAddress");
}

NTSTATUS NdkDisconnect(NDK_CONNECTOR*, NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkDisconnect");
}

NTSTATUS NdkCompleteConnectEx(NDK_CONNECTOR*, NDK_FN_DISCONNECT_EVENT_CALLBACK_EX, PVOID,
                              NDK_FN_REQUEST_COMPLETION, PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkCompleteConnectEx");
}

NTSTATUS NdkAcceptEx(NDK_CONNECTOR*, NDK_QP*, ULONG, ULONG, PVOID, ULONG,
                     NDK_FN_DISCONNECT_EVENT_CALLBACK_EX, PVOID, NDK_FN_REQUEST_COMPLETION,
                     PVOID) {
    return not_implemented("NDK_CONNECTOR_DISPATCH.NdkAcceptEx");
}

}  // namespace

const NDK_CONNECTOR_DISPATCH k_connector_dispatch = {
    NdkCloseConnector,    NdkQueryExtension, NdkConnect,           NdkConnectWithSharedEndpoint,
    NdkCompleteConnect,   NdkAccept,         NdkReject,            NdkGetConnectionData,
    NdkGetLocalAddress,   NdkGetPeerAddress, NdkDisconnect,        NdkCompleteConnectEx,
    NdkAcceptEx,
};

}  // namespace ndksim::api
