// SPDX-License-Identifier: MIT
// NDK_LISTENER_DISPATCH.

#include "api/abi.hpp"
#include "api/address.hpp"
#include "api/dispatch_tables.hpp"
#include "core/device.hpp"
#include "core/listener.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

core::listener* to_listener(NDK_LISTENER* l, const char* fn) {
    return from_ndk<core::listener>(l, object_kind::listener, fn);
}

NTSTATUS NdkCloseListener(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::listener, done, ctx, "NdkCloseListener");
}

NTSTATUS NdkListen(NDK_LISTENER* pNdkListener, const PSOCKADDR pAddress, ULONG AddressLength,
                   NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    constexpr const char* fn = "NdkListen";
    core::listener* l = to_listener(pNdkListener, fn);
    if (l == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    core::net_address addr;
    status s = from_sockaddr(pAddress, AddressLength, addr);
    if (s == status::success) {
        s = l->listen(addr);
    }
    if (s != status::success) {
        l->dev().refusals().record(l->ident(), fn, s);
        return to_nt(s);
    }
    NDKSIM_DEBUG("{}: listening on {}", l->ident(), addr.to_string());
    return to_nt(l->finish_request(status::success, bind_request(RequestCompletion, RequestContext),
                                   l->dev().limits().control_latency_ps));
}

NTSTATUS NdkGetListenerLocalAddress(NDK_LISTENER* pNdkListener, PSOCKADDR pAddress,
                                    ULONG* pAddressLength) {
    constexpr const char* fn = "NdkGetLocalAddress(listener)";
    core::listener* l = to_listener(pNdkListener, fn);
    if (l == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const auto bound = l->local_address();
    if (!bound) {
        return consumer_error(fn, "the listener is not listening", status::invalid_device_state);
    }
    return to_sockaddr(*bound, pAddress, pAddressLength);
}

VOID NdkControlConnectEvents(NDK_LISTENER* pNdkListener, BOOLEAN Pause) {
    core::listener* l = to_listener(pNdkListener, "NdkControlConnectEvents");
    if (l != nullptr) {
        l->set_paused(Pause != FALSE);
    }
}

}  // namespace

const NDK_LISTENER_DISPATCH k_listener_dispatch = {
    NdkCloseListener,
    query_extension_of<object_kind::listener>,
    NdkListen,
    NdkGetListenerLocalAddress,
    NdkControlConnectEvents,
};

}  // namespace ndksim::api
