#pragma once
// A queue pair (NDK_QP): its PD, its receive and initiator CQs, an optional SRQ, and the
// limits fixed at creation (ddi/nc-ndkpi-ndk_fn_create_qp.md, create_qp_with_srq.md).

#include <cstdint>

#include "core/object.hpp"

namespace ndksim::core {

struct adapter_limits;
class pd;
class cq;
class srq;

struct qp_params {
    void* qp_context = nullptr;             ///< returned in every NDK_RESULT of this QP
    std::uint32_t receive_queue_depth = 0;  ///< 0 with an SRQ
    std::uint32_t initiator_queue_depth = 0;
    std::uint32_t max_receive_request_sge = 0;
    std::uint32_t max_initiator_request_sge = 0;
    std::uint32_t inline_data_size = 0;  ///< [bytes]
};

class qp final : public object {
public:
    /// NdkCreateQp / NdkCreateQpWithSrq limits (rule 11): each depth, SGE count and the inline
    /// size must be within NDK_ADAPTER_INFO, else invalid_parameter. A QP without an SRQ needs a
    /// receive queue depth of at least 1, and every object must come from the same adapter
    /// handle as the PD.
    [[nodiscard]] static status check_create(const adapter_limits& limits, const pd& owner,
                                             const cq& receive_cq, const cq& initiator_cq,
                                             const srq* shared_rq, const qp_params& p) noexcept;

    /// Creates the QP; it depends on its PD, both CQs and the SRQ (rule 6).
    static ref<qp> create(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq,
                          const qp_params& p);

    const qp_params& params() const noexcept { return params_; }
    cq& receive_cq() const noexcept { return *receive_cq_; }
    cq& initiator_cq() const noexcept { return *initiator_cq_; }
    srq* shared_rq() const noexcept { return srq_; }

private:
    qp(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq, const qp_params& p);

    qp_params params_;
    cq* receive_cq_;
    cq* initiator_cq_;
    srq* srq_;
};

}  // namespace ndksim::core
