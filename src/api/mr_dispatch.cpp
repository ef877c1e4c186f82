// SPDX-License-Identifier: MIT
// NDK_MR_DISPATCH. Argument conversion only; the rules are in src/mem (translation_unit).

#include "api/abi.hpp"
#include "api/dispatch_tables.hpp"
#include "api/mdl_view.hpp"
#include "core/device.hpp"
#include "core/mr.hpp"
#include "mem/access.hpp"

namespace ndksim::api {
namespace {

using core::object_kind;

static_assert(NDK_MR_FLAG_ALLOW_LOCAL_WRITE == 0x1 && NDK_MR_FLAG_ALLOW_REMOTE_READ == 0x2 &&
                  NDK_MR_FLAG_ALLOW_REMOTE_WRITE == 0x5 && NDK_MR_FLAG_RDMA_READ_SINK == 0x8,
              "mem::access_from_mr_flags decodes the values of REFERENCE.md 2.4");

core::mr* to_mr(NDK_MR* m, const char* fn) {
    return from_ndk<core::mr>(m, object_kind::mr, fn);
}

NTSTATUS NdkCloseMr(NDK_OBJECT_HEADER* obj, NDK_FN_CLOSE_COMPLETION done, PVOID ctx) {
    return close_object(obj, object_kind::mr, done, ctx, "NdkCloseMr");
}

NTSTATUS NdkRegisterMr(NDK_MR* pNdkMr, MDL* Mdl, SIZE_T Length, ULONG Flags,
                       NDK_FN_REQUEST_COMPLETION RequestCompletion, PVOID RequestContext) {
    constexpr const char* fn = "NdkRegisterMr";
    return guarded(fn, [&]() -> NTSTATUS {
        core::mr* m = to_mr(pNdkMr, fn);
        if (m == nullptr) {
            return STATUS_INVALID_PARAMETER;
        }
        if (RequestCompletion == nullptr) {
            return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
        }
        if (!mem::mr_write_flags_consistent(Flags)) {
            return consumer_error(fn, "NDK_MR_FLAG_ALLOW_REMOTE_WRITE without ALLOW_LOCAL_WRITE",
                                  status::invalid_parameter);
        }
        if (Length > m->dev().limits().max_registration_size) {
            return consumer_error(fn, "Length above MaxRegistrationSize",
                                  status::invalid_parameter);
        }
        const std::vector<mem::mdl_segment> chain = mdl_segments(Mdl);
        const status s = m->dev().memory().register_region(m->region(), chain, Length,
                                                           mem::access_from_mr_flags(Flags));
        if (s != status::success) {
            NDKSIM_DEBUG("{}: {} of {} bytes refused: {}", m->ident(), fn, Length, s);
            return to_nt(m->dev().refusals().record(m->ident(), fn, s));
        }
        return to_nt(m->finish_request(status::success,
                                       bind_request(RequestCompletion, RequestContext),
                                       m->dev().limits().control_latency_ps));
    });
}

NTSTATUS NdkDeregisterMr(NDK_MR* pNdkMr, NDK_FN_REQUEST_COMPLETION RequestCompletion,
                         PVOID RequestContext) {
    constexpr const char* fn = "NdkDeregisterMr";
    core::mr* m = to_mr(pNdkMr, fn);
    if (m == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    // STATUS_DEVICE_BUSY while memory windows are bound to the region (docs/memory.md).
    const status s = m->dev().memory().deregister_region(m->region());
    if (s != status::success) {
        m->dev().refusals().record(m->ident(), fn, s);
        return to_nt(s);
    }
    return to_nt(m->finish_request(status::success, bind_request(RequestCompletion, RequestContext),
                                   m->dev().limits().control_latency_ps));
}

NTSTATUS NdkInitializeFastRegisterMr(NDK_MR* pNdkMr, ULONG AdapterPageCount, BOOLEAN RemoteAccess,
                                     NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                     PVOID RequestContext) {
    constexpr const char* fn = "NdkInitializeFastRegisterMr";
    core::mr* m = to_mr(pNdkMr, fn);
    if (m == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (RequestCompletion == nullptr) {
        return consumer_error(fn, "RequestCompletion is NULL", status::invalid_parameter);
    }
    const status s = m->dev().memory().initialize_fast_register(m->region(), AdapterPageCount,
                                                                RemoteAccess != FALSE);
    if (s != status::success) {
        NDKSIM_DEBUG("{}: {} for {} pages refused: {}", m->ident(), fn, AdapterPageCount, s);
        return to_nt(m->dev().refusals().record(m->ident(), fn, s));
    }
    return to_nt(m->finish_request(status::success, bind_request(RequestCompletion, RequestContext),
                                   m->dev().limits().control_latency_ps));
}

UINT32 NdkGetRemoteTokenFromMr(NDK_MR* pNdkMr) {
    core::mr* m = to_mr(pNdkMr, "NdkGetRemoteTokenFromMr");
    return m == nullptr ? 0 : m->dev().memory().remote_token(m->region());
}

UINT32 NdkGetLocalTokenFromMr(NDK_MR* pNdkMr) {
    core::mr* m = to_mr(pNdkMr, "NdkGetLocalTokenFromMr");
    return m == nullptr ? 0 : m->dev().memory().local_token(m->region());
}

}  // namespace

const NDK_MR_DISPATCH k_mr_dispatch = {
    NdkCloseMr,
    query_extension_of<object_kind::mr>,
    NdkRegisterMr,
    NdkDeregisterMr,
    NdkInitializeFastRegisterMr,
    NdkGetRemoteTokenFromMr,
    NdkGetLocalTokenFromMr,
};

}  // namespace ndksim::api
