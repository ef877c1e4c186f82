// SPDX-License-Identifier: MIT
// NDK_CONNECTOR_DISPATCH (all 13 entries of NDKPI 2.1). Argument conversion only; the
// handshake rules are in src/nic/connection_manager.cpp.

#include <algorithm>
#include <cstring>

#include "api/abi.hpp"
#include "api/address.hpp"
#include "api/dispatch_tables.hpp"
#include "core/connector.hpp"
#include "core/device.hpp"
#include "core/qp.hpp"
#include "core/shared_endpoint.hpp"
#include "nic/connection_manager.hpp"
#include "nic/engine.hpp"
#include "nic/post.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

core::connector* to_connector(NDK_CONNECTOR* c, const char* fn) {
    return from_ndk<core::connector>(c, object_kind::connector, fn);
}

bool private_data_ok(PVOID data, ULONG length) {
    return length == 0 || data != nullptr;
}

std::span<const std::byte> private_data(PVOID data, ULONG length) {
    return length == 0 ? std::span<const std::byte>()
                       : std::span<const std::byte>(static_cast<const std::byte*>(data), length);
}

// NDK_FN_DISCONNECT_EVENT_CALLBACK and _EX bound to their context; an absent callback is
// allowed (the parameter is optional) and leaves the function empty.
core::disconnect_fn disconnect_event(NDK_FN_DISCONNECT_EVENT_CALLBACK cb, PVOID context) {
    if (cb == nullptr) {
        return {};
    }
    return [cb, context](std::uint32_t) {
        run_callback("NDK_FN_DISCONNECT_EVENT_CALLBACK", [&] { cb(context); });
    };
}

core::disconnect_fn disconnect_event(NDK_FN_DISCONNECT_EVENT_CALLBACK_EX cb, PVOID context) {
    if (cb == nullptr) {
        return {};
    }
    return [cb, context](std::uint32_t reason) {
        run_callback("NDK_FN_DISCONNECT_EVENT_CALLBACK_EX", [&] { cb(context, reason); });
    };
}

NTSTATUS NdkCloseConnector(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::connector, done, ctx, "NdkCloseConnector");
}

// The NTSTATUS of a connection-manager call; a refusal is recorded with its reason first.
NTSTATUS answer(core::connector& c, const char* fn, status s) {
    if (s != status::success && s != status::pending) {
        c.dev().refusals().record(c.ident(), fn, s);
    }
    return to_nt(s);
}

NTSTATUS connect(const char* fn, NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp,
                 NDK_SHARED_ENDPOINT* pSep, const SOCKADDR* pSrc, ULONG SrcLength,
                 const SOCKADDR* pDest, ULONG DestLength, ULONG InboundReadLimit,
                 ULONG OutboundReadLimit, PVOID pPrivateData, ULONG PrivateDataLength,
                 NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    core::connector* c = to_connector(pNdkConnector, fn);
    auto* q = from_ndk<core::qp>(pNdkQp, object_kind::qp, fn);
    core::shared_endpoint* sep = nullptr;
    if (pSep != nullptr) {
        sep = from_ndk<core::shared_endpoint>(pSep, object_kind::shared_endpoint, fn);
        if (sep == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
    }
    if (c == nullptr || q == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr || !private_data_ok(pPrivateData, PrivateDataLength)) {
        return consumer_error(fn, "RequestCompletion is NULL or private data is NULL with a length",
                              status::invalid_parameter);
    }
    core::net_address destination;
    if (const status s = from_sockaddr(pDest, DestLength, destination); s != status::success) {
        return consumer_error(fn, "bad destination address", s);
    }
    core::net_address source;
    const core::net_address* src = nullptr;
    if (sep == nullptr && pSrc != nullptr) {
        if (const status s = from_sockaddr(pSrc, SrcLength, source); s != status::success) {
            return consumer_error(fn, "bad source address", s);
        }
        src = &source;
    }
    const status s = nic::engine_of(*c).cm().connect(
        *c, *q, src, sep, destination, InboundReadLimit, OutboundReadLimit,
        private_data(pPrivateData, PrivateDataLength),
        bind_request(RequestCompletion, RequestContext));
    return answer(*c, fn, s);
}

NTSTATUS NdkConnect(NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp, const PSOCKADDR pSrcAddress,
                    ULONG SrcAddressLength, const PSOCKADDR pDestAddress, ULONG DestAddressLength,
                    ULONG InboundReadLimit, ULONG OutboundReadLimit, PVOID pPrivateData,
                    ULONG PrivateDataLength, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                    PVOID RequestContext) {
    return guarded("NdkConnect", [&] {
        return connect("NdkConnect", pNdkConnector, pNdkQp, nullptr, pSrcAddress, SrcAddressLength,
                       pDestAddress, DestAddressLength, InboundReadLimit, OutboundReadLimit,
                       pPrivateData, PrivateDataLength, RequestCompletion, RequestContext);
    });
}

NTSTATUS NdkConnectWithSharedEndpoint(NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp,
                                      NDK_SHARED_ENDPOINT* pNdkSharedEndpoint,
                                      const PSOCKADDR pDestAddress, ULONG DestAddressLength,
                                      ULONG InboundReadLimit, ULONG OutboundReadLimit,
                                      PVOID pPrivateData, ULONG PrivateDataLength,
                                      NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                      PVOID RequestContext) {
    constexpr const char* fn = "NdkConnectWithSharedEndpoint";
    if (pNdkSharedEndpoint == nullptr) {
        return consumer_error(fn, "pNdkSharedEndpoint is NULL", status::invalid_parameter);
    }
    return guarded(fn, [&] {
        return connect(fn, pNdkConnector, pNdkQp, pNdkSharedEndpoint, nullptr, 0, pDestAddress,
                       DestAddressLength, InboundReadLimit, OutboundReadLimit, pPrivateData,
                       PrivateDataLength, RequestCompletion, RequestContext);
    });
}

template <class Callback>
NTSTATUS complete_connect(const char* fn, NDK_CONNECTOR* pNdkConnector, Callback DisconnectEvent,
                          PVOID DisconnectEventContext, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                          PVOID RequestContext) {
    core::connector* c = to_connector(pNdkConnector, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    return answer(*c, fn,
                  nic::engine_of(*c).cm().complete_connect(
                      *c, disconnect_event(DisconnectEvent, DisconnectEventContext),
                      bind_request(RequestCompletion, RequestContext)));
}

NTSTATUS NdkCompleteConnect(NDK_CONNECTOR* pNdkConnector,
                            NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent,
                            PVOID DisconnectEventContext,
                            NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    return complete_connect("NdkCompleteConnect", pNdkConnector, DisconnectEvent,
                            DisconnectEventContext, RequestCompletion, RequestContext);
}

NTSTATUS NdkCompleteConnectEx(NDK_CONNECTOR* pNdkConnector,
                              NDK_FN_DISCONNECT_EVENT_CALLBACK_EX DisconnectEvent,
                              PVOID DisconnectEventContext,
                              NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    return complete_connect("NdkCompleteConnectEx", pNdkConnector, DisconnectEvent,
                            DisconnectEventContext, RequestCompletion, RequestContext);
}

template <class Callback>
NTSTATUS accept(const char* fn, NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp,
                ULONG InboundReadLimit, ULONG OutboundReadLimit, PVOID pPrivateData,
                ULONG PrivateDataLength, Callback DisconnectEvent, PVOID DisconnectEventContext,
                NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    core::connector* c = to_connector(pNdkConnector, fn);
    auto* q = from_ndk<core::qp>(pNdkQp, object_kind::qp, fn);
    if (c == nullptr || q == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr || !private_data_ok(pPrivateData, PrivateDataLength)) {
        return consumer_error(fn, "RequestCompletion is NULL or private data is NULL with a length",
                              status::invalid_parameter);
    }
    const status s = nic::engine_of(*c).cm().accept(
        *c, *q, InboundReadLimit, OutboundReadLimit, private_data(pPrivateData, PrivateDataLength),
        disconnect_event(DisconnectEvent, DisconnectEventContext),
        bind_request(RequestCompletion, RequestContext));
    return answer(*c, fn, s);
}

NTSTATUS NdkAccept(NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp, ULONG InboundReadLimit,
                   ULONG OutboundReadLimit, PVOID pPrivateData, ULONG PrivateDataLength,
                   NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent, PVOID DisconnectEventContext,
                   NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    return accept("NdkAccept", pNdkConnector, pNdkQp, InboundReadLimit, OutboundReadLimit,
                  pPrivateData, PrivateDataLength, DisconnectEvent, DisconnectEventContext,
                  RequestCompletion, RequestContext);
}

NTSTATUS NdkAcceptEx(NDK_CONNECTOR* pNdkConnector, NDK_QP* pNdkQp, ULONG InboundReadLimit,
                     ULONG OutboundReadLimit, PVOID pPrivateData, ULONG PrivateDataLength,
                     NDK_FN_DISCONNECT_EVENT_CALLBACK_EX DisconnectEvent,
                     PVOID DisconnectEventContext, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                     PVOID RequestContext) {
    return accept("NdkAcceptEx", pNdkConnector, pNdkQp, InboundReadLimit, OutboundReadLimit,
                  pPrivateData, PrivateDataLength, DisconnectEvent, DisconnectEventContext,
                  RequestCompletion, RequestContext);
}

NTSTATUS NdkReject(NDK_CONNECTOR* pNdkConnector, PVOID pPrivateData, ULONG PrivateDataLength) {
    constexpr const char* fn = "NdkReject";
    core::connector* c = to_connector(pNdkConnector, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (!private_data_ok(pPrivateData, PrivateDataLength)) {
        return consumer_error(fn, "private data is NULL with a length", status::invalid_parameter);
    }
    return answer(
        *c, fn, nic::engine_of(*c).cm().reject(*c, private_data(pPrivateData, PrivateDataLength)));
}

NTSTATUS NdkGetConnectionData(NDK_CONNECTOR* pNdkConnector, ULONG* pInboundReadLimit,
                              ULONG* pOutboundReadLimit, PVOID pPrivateData,
                              ULONG* pPrivateDataLength) {
    constexpr const char* fn = "NdkGetConnectionData";
    core::connector* c = to_connector(pNdkConnector, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    // The state is read first: the engine sets remote_id before it moves the state on.
    const core::connector_state s = c->state();
    if (s == core::connector_state::idle || s == core::connector_state::connecting ||
        c->remote_id == 0) {
        // The data arrives with the peer's request (passive) or reply (active). Consumers need
        // it between a completed Connect and CompleteConnect, or between the connect event and
        // Accept (ddi/nc-ndkpi-ndk_fn_get_connection_data.md). Some call it later too, so the
        // data is kept until the connector closes (docs/rules-beyond-reference.md).
        return consumer_error(fn, "no connection data: the peer has not answered",
                              status::invalid_device_state);
    }
    if (pPrivateDataLength == nullptr) {
        return consumer_error(fn, "pPrivateDataLength is NULL", status::invalid_parameter);
    }
    const core::adapter_limits& limits = c->dev().limits();
    // The limits this side may use, given what the peer offered (REFERENCE.md section 9).
    if (pInboundReadLimit != nullptr) {
        *pInboundReadLimit = std::min(limits.max_inbound_read_limit, c->peer.outbound_read_limit);
    }
    if (pOutboundReadLimit != nullptr) {
        *pOutboundReadLimit = std::min(limits.max_outbound_read_limit, c->peer.inbound_read_limit);
    }
    const ULONG required = c->peer.private_data_length;
    const ULONG given = *pPrivateDataLength;
    if (pPrivateData == nullptr) {
        if (given > 0) {
            return consumer_error(fn, "pPrivateData is NULL with a non-zero length",
                                  status::invalid_parameter);
        }
        *pPrivateDataLength = required;
        return STATUS_SUCCESS;  // a size query (REFERENCE.md rule 28)
    }
    std::memcpy(pPrivateData, c->peer.private_data.data(), std::min(given, required));
    *pPrivateDataLength = required;
    return given < required ? STATUS_BUFFER_TOO_SMALL : STATUS_SUCCESS;
}

NTSTATUS address_of(const char* fn, NDK_CONNECTOR* pNdkConnector, bool local, PSOCKADDR pAddress,
                    ULONG* pAddressLength) {
    core::connector* c = to_connector(pNdkConnector, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (c->state() == core::connector_state::idle) {
        return consumer_error(fn, "the connector has no connection", status::connection_invalid);
    }
    return to_sockaddr(local ? c->local_address : c->peer_address, pAddress, pAddressLength);
}

NTSTATUS NdkGetLocalAddress(NDK_CONNECTOR* pNdkConnector, PSOCKADDR pAddress,
                            ULONG* pAddressLength) {
    return address_of("NdkGetLocalAddress(connector)", pNdkConnector, true, pAddress,
                      pAddressLength);
}

NTSTATUS NdkGetPeerAddress(NDK_CONNECTOR* pNdkConnector, PSOCKADDR pAddress,
                           ULONG* pAddressLength) {
    return address_of("NdkGetPeerAddress", pNdkConnector, false, pAddress, pAddressLength);
}

NTSTATUS NdkDisconnect(NDK_CONNECTOR* pNdkConnector, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                       PVOID RequestContext) {
    constexpr const char* fn = "NdkDisconnect";
    core::connector* c = to_connector(pNdkConnector, fn);
    if (c == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    return answer(
        *c, fn,
        nic::engine_of(*c).cm().disconnect(*c, bind_request(RequestCompletion, RequestContext)));
}

}  // namespace

const NDK_CONNECTOR_DISPATCH k_connector_dispatch = {
    NdkCloseConnector,  query_extension_of<object_kind::connector>,
    NdkConnect,         NdkConnectWithSharedEndpoint,
    NdkCompleteConnect, NdkAccept,
    NdkReject,          NdkGetConnectionData,
    NdkGetLocalAddress, NdkGetPeerAddress,
    NdkDisconnect,      NdkCompleteConnectEx,
    NdkAcceptEx,
};

}  // namespace ndksim::api
