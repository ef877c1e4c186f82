// SPDX-License-Identifier: MIT
#pragma once
// The provider's dispatch tables, one per object kind, each defined in its <kind>_dispatch.cpp.

#include "ndkpi.h"

namespace ndksim::api {

extern const NDK_ADAPTER_DISPATCH k_adapter_dispatch;
extern const NDK_CQ_DISPATCH k_cq_dispatch;
extern const NDK_PD_DISPATCH k_pd_dispatch;
extern const NDK_MR_DISPATCH k_mr_dispatch;
extern const NDK_MW_DISPATCH k_mw_dispatch;
extern const NDK_SRQ_DISPATCH k_srq_dispatch;
extern const NDK_QP_DISPATCH k_qp_dispatch;
extern const NDK_SHARED_ENDPOINT_DISPATCH k_shared_endpoint_dispatch;
extern const NDK_CONNECTOR_DISPATCH k_connector_dispatch;
extern const NDK_LISTENER_DISPATCH k_listener_dispatch;

/// The same tables with every entry passing through the adapter's fault engine
/// (fault_tables.cpp); given to the objects of an adapter that has one.
const NDK_ADAPTER_DISPATCH* hooked_table(const NDK_ADAPTER_DISPATCH*) noexcept;
const NDK_CQ_DISPATCH* hooked_table(const NDK_CQ_DISPATCH*) noexcept;
const NDK_PD_DISPATCH* hooked_table(const NDK_PD_DISPATCH*) noexcept;
const NDK_MR_DISPATCH* hooked_table(const NDK_MR_DISPATCH*) noexcept;
const NDK_MW_DISPATCH* hooked_table(const NDK_MW_DISPATCH*) noexcept;
const NDK_SRQ_DISPATCH* hooked_table(const NDK_SRQ_DISPATCH*) noexcept;
const NDK_QP_DISPATCH* hooked_table(const NDK_QP_DISPATCH*) noexcept;
const NDK_SHARED_ENDPOINT_DISPATCH* hooked_table(const NDK_SHARED_ENDPOINT_DISPATCH*) noexcept;
const NDK_CONNECTOR_DISPATCH* hooked_table(const NDK_CONNECTOR_DISPATCH*) noexcept;
const NDK_LISTENER_DISPATCH* hooked_table(const NDK_LISTENER_DISPATCH*) noexcept;

}  // namespace ndksim::api
