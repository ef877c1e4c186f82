// SPDX-License-Identifier: MIT
// The hooked dispatch tables: the same ten tables, each entry a thunk that passes the call
// through the adapter's fault engine (fault_engine.hpp) before and after the provider function.
// Objects of an adapter with a fault engine get these tables; the others get the plain ones,
// so an adapter without a script pays nothing.

#include <type_traits>

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/fault_engine.hpp"
#include "api/ndk_functions.hpp"
#include "core/completion_policy.hpp"
#include "core/device.hpp"

namespace ndksim::api {
namespace {

// The object behind a consumer's first argument (a header or a typed object, both the head of
// the slot), or nullptr: the provider function reports a bad pointer itself.
core::object* owner_of(const void* pub) noexcept {
    if (pub == nullptr) {
        return nullptr;
    }
    const auto* slot = static_cast<const core::abi_slot*>(pub);
    return slot->magic == core::abi_slot::k_magic ? slot->owner : nullptr;
}

template <const auto* Table, auto Member, ndk_function F,
          class Fn = std::remove_cvref_t<decltype(Table->*Member)>>
struct thunk;

template <const auto* Table, auto Member, ndk_function F, class R, class First, class... Rest>
struct thunk<Table, Member, F, R (*)(First, Rest...)> {
    static R call(First first, Rest... rest) {
        core::object* o = owner_of(first);
        core::call_hooks* hooks = o != nullptr ? o->dev().consumer_hooks() : nullptr;
        if (hooks == nullptr) {
            return (Table->*Member)(first, rest...);
        }
        const char* name = name_of(F).data();  // the names are literals: NUL-terminated
        const call_context outer = current_call();
        set_current_call({hooks, name});
        const status verdict = hooks->before_call(name, *o);
        if constexpr (std::is_same_v<R, NTSTATUS>) {
            // A function that returns a status can be failed by the script: it then does not
            // run, as a provider that refuses the call inline.
            const NTSTATUS r =
                verdict != status::success ? to_nt(verdict) : (Table->*Member)(first, rest...);
            if (verdict == status::success) {
                hooks->after_call(name, from_nt(r));
            }
            set_current_call(outer);
            return r;
        } else if constexpr (std::is_void_v<R>) {
            (Table->*Member)(first, rest...);
            core::completion_policy::clear_overrides();
            set_current_call(outer);
        } else {
            const R r = (Table->*Member)(first, rest...);
            core::completion_policy::clear_overrides();
            set_current_call(outer);
            return r;
        }
    }
};

#define NDKSIM_HOOK(table, type, member) &thunk<&table, &type::member, ndk_function::member>::call

const NDK_ADAPTER_DISPATCH k_adapter_hooked = {
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkQueryAdapterInfo),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkCreateCq),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkCreatePd),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkCreateSharedEndpoint),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkCreateConnector),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkCreateListener),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkBuildLAM),
    NDKSIM_HOOK(k_adapter_dispatch, NDK_ADAPTER_DISPATCH, NdkReleaseLAM),
};

const NDK_CQ_DISPATCH k_cq_hooked = {
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkCloseCq),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkResizeCq),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkArmCq),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkGetCqResults),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkControlCqInterruptModeration),
    NDKSIM_HOOK(k_cq_dispatch, NDK_CQ_DISPATCH, NdkGetCqResultsEx),
};

const NDK_PD_DISPATCH k_pd_hooked = {
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkClosePd),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkCreateMr),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkCreateMw),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkCreateSrq),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkCreateQp),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkCreateQpWithSrq),
    NDKSIM_HOOK(k_pd_dispatch, NDK_PD_DISPATCH, NdkGetPrivilegedMemoryRegionToken),
};

const NDK_MR_DISPATCH k_mr_hooked = {
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkCloseMr),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkRegisterMr),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkDeregisterMr),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkInitializeFastRegisterMr),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkGetRemoteTokenFromMr),
    NDKSIM_HOOK(k_mr_dispatch, NDK_MR_DISPATCH, NdkGetLocalTokenFromMr),
};

const NDK_MW_DISPATCH k_mw_hooked = {
    NDKSIM_HOOK(k_mw_dispatch, NDK_MW_DISPATCH, NdkCloseMw),
    NDKSIM_HOOK(k_mw_dispatch, NDK_MW_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_mw_dispatch, NDK_MW_DISPATCH, NdkGetRemoteTokenFromMw),
};

const NDK_SRQ_DISPATCH k_srq_hooked = {
    NDKSIM_HOOK(k_srq_dispatch, NDK_SRQ_DISPATCH, NdkCloseSrq),
    NDKSIM_HOOK(k_srq_dispatch, NDK_SRQ_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_srq_dispatch, NDK_SRQ_DISPATCH, NdkModifySrq),
    NDKSIM_HOOK(k_srq_dispatch, NDK_SRQ_DISPATCH, NdkSrqReceive),
};

const NDK_QP_DISPATCH k_qp_hooked = {
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkCloseQp),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkFlush),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkSend),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkReceive),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkBind),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkFastRegister),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkInvalidate),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkRead),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkWrite),
    NDKSIM_HOOK(k_qp_dispatch, NDK_QP_DISPATCH, NdkSendAndInvalidate),
};

const NDK_SHARED_ENDPOINT_DISPATCH k_shared_endpoint_hooked = {
    NDKSIM_HOOK(k_shared_endpoint_dispatch, NDK_SHARED_ENDPOINT_DISPATCH, NdkCloseSharedEndpoint),
    NDKSIM_HOOK(k_shared_endpoint_dispatch, NDK_SHARED_ENDPOINT_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_shared_endpoint_dispatch, NDK_SHARED_ENDPOINT_DISPATCH, NdkGetLocalAddress),
};

const NDK_CONNECTOR_DISPATCH k_connector_hooked = {
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkCloseConnector),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkConnect),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkConnectWithSharedEndpoint),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkCompleteConnect),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkAccept),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkReject),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkGetConnectionData),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkGetLocalAddress),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkGetPeerAddress),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkDisconnect),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkCompleteConnectEx),
    NDKSIM_HOOK(k_connector_dispatch, NDK_CONNECTOR_DISPATCH, NdkAcceptEx),
};

const NDK_LISTENER_DISPATCH k_listener_hooked = {
    NDKSIM_HOOK(k_listener_dispatch, NDK_LISTENER_DISPATCH, NdkCloseListener),
    NDKSIM_HOOK(k_listener_dispatch, NDK_LISTENER_DISPATCH, NdkQueryExtension),
    NDKSIM_HOOK(k_listener_dispatch, NDK_LISTENER_DISPATCH, NdkListen),
    NDKSIM_HOOK(k_listener_dispatch, NDK_LISTENER_DISPATCH, NdkGetLocalAddress),
    NDKSIM_HOOK(k_listener_dispatch, NDK_LISTENER_DISPATCH, NdkControlConnectEvents),
};

#undef NDKSIM_HOOK

}  // namespace

const NDK_ADAPTER_DISPATCH* hooked_table(const NDK_ADAPTER_DISPATCH*) noexcept {
    return &k_adapter_hooked;
}
const NDK_CQ_DISPATCH* hooked_table(const NDK_CQ_DISPATCH*) noexcept {
    return &k_cq_hooked;
}
const NDK_PD_DISPATCH* hooked_table(const NDK_PD_DISPATCH*) noexcept {
    return &k_pd_hooked;
}
const NDK_MR_DISPATCH* hooked_table(const NDK_MR_DISPATCH*) noexcept {
    return &k_mr_hooked;
}
const NDK_MW_DISPATCH* hooked_table(const NDK_MW_DISPATCH*) noexcept {
    return &k_mw_hooked;
}
const NDK_SRQ_DISPATCH* hooked_table(const NDK_SRQ_DISPATCH*) noexcept {
    return &k_srq_hooked;
}
const NDK_QP_DISPATCH* hooked_table(const NDK_QP_DISPATCH*) noexcept {
    return &k_qp_hooked;
}
const NDK_SHARED_ENDPOINT_DISPATCH* hooked_table(const NDK_SHARED_ENDPOINT_DISPATCH*) noexcept {
    return &k_shared_endpoint_hooked;
}
const NDK_CONNECTOR_DISPATCH* hooked_table(const NDK_CONNECTOR_DISPATCH*) noexcept {
    return &k_connector_hooked;
}
const NDK_LISTENER_DISPATCH* hooked_table(const NDK_LISTENER_DISPATCH*) noexcept {
    return &k_listener_hooked;
}

}  // namespace ndksim::api
