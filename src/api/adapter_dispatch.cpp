// NDK_ADAPTER_DISPATCH: argument conversion and status mapping only; the rules live in core.

#include <cstring>

#include "api/abi.hpp"
#include "api/address.hpp"
#include "api/dispatch_tables.hpp"
#include "api/not_implemented.hpp"
#include "core/adapter.hpp"
#include "core/connector.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/listener.hpp"
#include "core/pd.hpp"
#include "core/shared_endpoint.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

core::adapter* to_adapter(NDK_ADAPTER* a, const char* fn) {
    return from_ndk<core::adapter>(a, object_kind::adapter, fn);
}

// Size of NDK_ADAPTER_INFO before RdmaTechnology was appended (REFERENCE.md section 3): a
// consumer built against that older ndkinfo.h passes this size and gets every older field.
constexpr ULONG k_adapter_info_size_v1 = offsetof(NDK_ADAPTER_INFO, RdmaTechnology);

NTSTATUS NdkQueryExtension(NDK_OBJECT_HEADER* obj, GUID*, NDK_VERSION,
                           NDK_EXTENSION_INTERFACE*) {
    return query_extension(obj, object_kind::adapter, "NdkQueryExtension(adapter)");
}

NTSTATUS NdkQueryAdapterInfo(NDK_ADAPTER* pNdkAdapter, NDK_ADAPTER_INFO* pInfo,
                             ULONG* pBufferSize) {
    constexpr const char* fn = "NdkQueryAdapterInfo";
    core::adapter* a = to_adapter(pNdkAdapter, fn);
    if (a == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (pBufferSize == nullptr) {
        return consumer_error(fn, "pBufferSize is NULL", status::invalid_parameter);
    }
    const ULONG given = *pBufferSize;
    if (pInfo == nullptr || given < k_adapter_info_size_v1) {
        *pBufferSize = sizeof(NDK_ADAPTER_INFO);
        return STATUS_BUFFER_TOO_SMALL;
    }
    const core::adapter_limits& l = a->dev().limits();
    NDK_ADAPTER_INFO info{};
    info.Version.Major = a->version().major;
    info.Version.Minor = a->version().minor;
    info.VendorId = l.vendor_id;
    info.DeviceId = l.device_id;
    info.MaxRegistrationSize = l.max_registration_size;
    info.MaxWindowSize = l.max_window_size;
    info.FRMRPageCount = l.frmr_page_count;
    info.MaxInitiatorRequestSge = l.max_initiator_request_sge;
    info.MaxReceiveRequestSge = l.max_receive_request_sge;
    info.MaxReadRequestSge = l.max_read_request_sge;
    info.MaxTransferLength = l.max_transfer_length;
    info.MaxInlineDataSize = l.max_inline_data_size;
    info.MaxInboundReadLimit = l.max_inbound_read_limit;
    info.MaxOutboundReadLimit = l.max_outbound_read_limit;
    info.MaxReceiveQueueDepth = l.max_receive_queue_depth;
    info.MaxInitiatorQueueDepth = l.max_initiator_queue_depth;
    info.MaxSrqDepth = l.max_srq_depth;
    info.MaxCqDepth = l.max_cq_depth;
    info.LargeRequestThreshold = l.large_request_threshold;
    info.MaxCallerData = l.max_caller_data;
    info.MaxCalleeData = l.max_callee_data;
    info.AdapterFlags = l.adapter_flags;
    info.RdmaTechnology = static_cast<NDK_RDMA_TECHNOLOGY>(l.rdma_technology);
    const ULONG copied = given >= sizeof(NDK_ADAPTER_INFO) ? sizeof(NDK_ADAPTER_INFO)
                                                           : k_adapter_info_size_v1;
    std::memcpy(pInfo, &info, copied);
    *pBufferSize = copied;
    return STATUS_SUCCESS;
}

NTSTATUS NdkCreateCq(NDK_ADAPTER* pNdkAdapter, ULONG CqDepth,
                     NDK_FN_CQ_NOTIFICATION_CALLBACK CqNotification, PVOID CqNotificationContext,
                     GROUP_AFFINITY* /*Affinity: a placement hint; the engine has one thread*/,
                     NDK_FN_CREATE_COMPLETION CreateCompletion, PVOID RequestContext,
                     NDK_CQ** ppNdkCq) {
    constexpr const char* fn = "NdkCreateCq";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkCq == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkCq is NULL",
                                  status::invalid_parameter);
        }
        const status s = core::cq::check_create(a->dev().limits(), CqDepth, CqNotification);
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} depth {} refused: {}", a->ident(), fn, CqDepth, s);
            return to_nt(s);
        }
        auto cq = core::cq::create(*a, CqDepth, CqNotification, CqNotificationContext);
        auto* pub = init_head<NDK_CQ>(*cq, &k_cq_dispatch);
        return deliver_create(std::move(cq), pub, CreateCompletion, RequestContext, ppNdkCq);
    });
}

NTSTATUS NdkCreatePd(NDK_ADAPTER* pNdkAdapter, NDK_FN_CREATE_COMPLETION CreateCompletion,
                     PVOID RequestContext, NDK_PD** ppNdkPd) {
    constexpr const char* fn = "NdkCreatePd";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkPd == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkPd is NULL",
                                  status::invalid_parameter);
        }
        auto pd = core::pd::create(*a);
        auto* pub = init_head<NDK_PD>(*pd, &k_pd_dispatch);
        return deliver_create(std::move(pd), pub, CreateCompletion, RequestContext, ppNdkPd);
    });
}

NTSTATUS NdkCreateSharedEndpoint(NDK_ADAPTER* pNdkAdapter, const PSOCKADDR pAddress,
                                 ULONG AddressLength, NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 PVOID RequestContext,
                                 NDK_SHARED_ENDPOINT** ppNdkSharedEndpoint) {
    constexpr const char* fn = "NdkCreateSharedEndpoint";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkSharedEndpoint == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkSharedEndpoint is NULL",
                                  status::invalid_parameter);
        }
        core::net_address addr;
        status s = from_sockaddr(pAddress, AddressLength, addr);
        if (s == status::success) {
            s = a->dev().reserve_local(addr);
        }
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} refused: {}", a->ident(), fn, s);
            return to_nt(s);
        }
        auto sep = core::shared_endpoint::create(*a, addr);
        auto* pub = init_head<NDK_SHARED_ENDPOINT>(*sep, &k_shared_endpoint_dispatch);
        return deliver_create(std::move(sep), pub, CreateCompletion, RequestContext,
                              ppNdkSharedEndpoint);
    });
}

NTSTATUS NdkCreateConnector(NDK_ADAPTER* pNdkAdapter, NDK_FN_CREATE_COMPLETION CreateCompletion,
                            PVOID RequestContext, NDK_CONNECTOR** ppNdkConnector) {
    constexpr const char* fn = "NdkCreateConnector";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkConnector == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkConnector is NULL",
                                  status::invalid_parameter);
        }
        auto c = core::connector::create(*a);
        auto* pub = init_head<NDK_CONNECTOR>(*c, &k_connector_dispatch);
        return deliver_create(std::move(c), pub, CreateCompletion, RequestContext,
                              ppNdkConnector);
    });
}

NTSTATUS NdkCreateListener(NDK_ADAPTER* pNdkAdapter, NDK_FN_CONNECT_EVENT_CALLBACK ConnectEvent,
                           PVOID ConnectEventContext, NDK_FN_CREATE_COMPLETION CreateCompletion,
                           PVOID RequestContext, NDK_LISTENER** ppNdkListener) {
    constexpr const char* fn = "NdkCreateListener";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (CreateCompletion == nullptr || ppNdkListener == nullptr) {
            return consumer_error(fn, "CreateCompletion or ppNdkListener is NULL",
                                  status::invalid_parameter);
        }
        auto event = reinterpret_cast<core::opaque_fn>(ConnectEvent);
        const status s = core::listener::check_create(event);
        if (s != status::success) {
            return consumer_error(fn, "ConnectEvent is NULL", s);
        }
        auto l = core::listener::create(*a, event, ConnectEventContext);
        auto* pub = init_head<NDK_LISTENER>(*l, &k_listener_dispatch);
        return deliver_create(std::move(l), pub, CreateCompletion, RequestContext,
                              ppNdkListener);
    });
}

NTSTATUS NdkBuildLAM(NDK_ADAPTER*, MDL*, SIZE_T, NDK_FN_REQUEST_COMPLETION, PVOID,
                     NDK_LOGICAL_ADDRESS_MAPPING*, ULONG*, ULONG*) {
    return not_implemented("NDK_ADAPTER_DISPATCH.NdkBuildLAM");
}

VOID NdkReleaseLAM(NDK_ADAPTER*, NDK_LOGICAL_ADDRESS_MAPPING*) {
    not_implemented("NDK_ADAPTER_DISPATCH.NdkReleaseLAM");
}

}  // namespace

const NDK_ADAPTER_DISPATCH k_adapter_dispatch = {
    NdkQueryExtension, NdkQueryAdapterInfo, NdkCreateCq,  NdkCreatePd,  NdkCreateSharedEndpoint,
    NdkCreateConnector, NdkCreateListener,  NdkBuildLAM, NdkReleaseLAM,
};

}  // namespace ndksim::api
