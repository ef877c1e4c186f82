// SPDX-License-Identifier: MIT
// NDK_ADAPTER_DISPATCH: argument conversion and status mapping only; the rules live in core.

#include <cstring>

#include "api/abi.hpp"
#include "api/address.hpp"
#include "api/dispatch_tables.hpp"
#include "api/mdl_view.hpp"
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

NTSTATUS NdkQueryAdapterInfo(NDK_ADAPTER* pNdkAdapter, NDK_ADAPTER_INFO* pInfo,
                             ULONG* pBufferSize) {
    constexpr const char* fn = "NdkQueryAdapterInfo";
    // REFERENCE.md 8.5: it "blocks until the request is completed", so PASSIVE_LEVEL only.
    check_call(fn, irql::passive_level, "NdkQueryAdapterInfo must be called at PASSIVE_LEVEL");
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
    const ULONG copied =
        given >= sizeof(NDK_ADAPTER_INFO) ? sizeof(NDK_ADAPTER_INFO) : k_adapter_info_size_v1;
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
        const status s =
            core::cq::check_create(a->dev().limits(), CqDepth, CqNotification != nullptr);
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} depth {} refused: {}", a->ident(), fn, CqDepth, s);
            return to_nt(a->dev().refusals().record(a->ident(), fn, s));
        }
        auto cq = core::cq::create(*a, CqDepth,
                                   bind_notification("NDK_FN_CQ_NOTIFICATION_CALLBACK",
                                                     CqNotification, CqNotificationContext));
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
        core::ref<core::pd> pd;
        const status s = core::pd::create(*a, pd);
        if (s != status::success) {
            a->dev().refusals().record(a->ident(), fn, s);
            return to_nt(s);
        }
        auto* pub = init_head<NDK_PD>(*pd, &k_pd_dispatch);
        return deliver_create(std::move(pd), pub, CreateCompletion, RequestContext, ppNdkPd);
    });
}

NTSTATUS NdkCreateSharedEndpoint(NDK_ADAPTER* pNdkAdapter, const PSOCKADDR pAddress,
                                 ULONG AddressLength, NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 PVOID RequestContext, NDK_SHARED_ENDPOINT** ppNdkSharedEndpoint) {
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
            a->dev().refusals().record(a->ident(), fn, s);
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
        return deliver_create(std::move(c), pub, CreateCompletion, RequestContext, ppNdkConnector);
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
        if (ConnectEvent == nullptr) {
            return consumer_error(fn, "ConnectEvent is NULL", status::invalid_parameter);
        }
        // The connector handed to the event is created by the provider (rule 25): its public
        // head is filled here, before the consumer sees it.
        auto l =
            core::listener::create(*a, [ConnectEvent, ConnectEventContext](core::connector& c) {
                NDK_CONNECTOR* pub = init_head<NDK_CONNECTOR>(c, &k_connector_dispatch);
                run_callback("NDK_FN_CONNECT_EVENT_CALLBACK",
                             [&] { ConnectEvent(ConnectEventContext, pub); });
            });
        auto* pub = init_head<NDK_LISTENER>(*l, &k_listener_dispatch);
        return deliver_create(std::move(l), pub, CreateCompletion, RequestContext, ppNdkListener);
    });
}

// Bytes of a LAM before its page array (x64: 16), REFERENCE.md section 3.
constexpr ULONG k_lam_header = offsetof(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray);

NTSTATUS NdkBuildLAM(NDK_ADAPTER* pNdkAdapter, MDL* Mdl, SIZE_T Length,
                     NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext,
                     NDK_LOGICAL_ADDRESS_MAPPING* pNdkLAM, ULONG* pLAMSize, ULONG* pFBO) {
    constexpr const char* fn = "NdkBuildLam";
    return guarded(fn, [&]() -> NTSTATUS {
        core::adapter* a = to_adapter(pNdkAdapter, fn);
        if (a == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (pLAMSize == nullptr || pFBO == nullptr) {
            return consumer_error(fn, "pLAMSize or pFBO is NULL", status::invalid_parameter);
        }
        const std::vector<mem::mdl_segment> chain = mdl_segments(Mdl);
        const std::size_t capacity =
            pNdkLAM != nullptr && *pLAMSize >= k_lam_header ? (*pLAMSize - k_lam_header) / 8 : 0;
        static_assert(sizeof(NDK_LOGICAL_ADDRESS) == sizeof(std::uint64_t));
        const std::span<std::uint64_t> pages(
            capacity == 0 ? nullptr : reinterpret_cast<std::uint64_t*>(pNdkLAM->AdapterPageArray),
            capacity);
        const mem::lam_result r = a->dev().memory().build_lam(chain, Length, pages);
        if (r.st == status::buffer_too_small) {
            // Size negotiation: the required size comes back in *pLAMSize.
            *pLAMSize = k_lam_header + 8 * r.pages;
            return STATUS_BUFFER_TOO_SMALL;
        }
        if (r.st != status::success) {
            NDKSIM_DEBUG("{}: {} of {} bytes refused: {}", a->ident(), fn, Length, r.st);
            return to_nt(a->dev().refusals().record(a->ident(), fn, r.st));
        }
        pNdkLAM->AdapterContext =
            reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(mem::raw(r.id)));
        pNdkLAM->AdapterPageCount = r.pages;
        *pLAMSize = k_lam_header + 8 * r.pages;
        *pFBO = r.fbo;
        if (RequestCompletion == nullptr) {
            return STATUS_SUCCESS;  // no completion routine: always inline (docs/memory.md)
        }
        return to_nt(a->finish_request(status::success,
                                       bind_request(RequestCompletion, RequestContext),
                                       a->dev().limits().control_latency_ps));
    });
}

VOID NdkReleaseLAM(NDK_ADAPTER* pNdkAdapter, NDK_LOGICAL_ADDRESS_MAPPING* pNdkLAM) {
    constexpr const char* fn = "NdkReleaseLam";
    core::adapter* a = to_adapter(pNdkAdapter, fn);
    if (a == nullptr || pNdkLAM == nullptr) {
        return;
    }
    const auto id =
        static_cast<mem::lam_id>(reinterpret_cast<std::uintptr_t>(pNdkLAM->AdapterContext));
    if (!a->dev().memory().release_lam(id)) {
        NDKSIM_ERROR("{}: {} of a LAM this adapter did not build (or released twice)", a->ident(),
                     fn);
    }
}

}  // namespace

const NDK_ADAPTER_DISPATCH k_adapter_dispatch = {
    query_extension_of<object_kind::adapter>,
    NdkQueryAdapterInfo,
    NdkCreateCq,
    NdkCreatePd,
    NdkCreateSharedEndpoint,
    NdkCreateConnector,
    NdkCreateListener,
    NdkBuildLAM,
    NdkReleaseLAM,
};

}  // namespace ndksim::api
