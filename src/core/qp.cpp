#include "core/qp.hpp"

#include "core/adapter.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/pd.hpp"
#include "core/srq.hpp"

namespace ndksim::core {

status qp::check_create(const adapter_limits& limits, const pd& owner, const cq& receive_cq,
                        const cq& initiator_cq, const srq* shared_rq, const qp_params& p) noexcept {
    const adapter* h = &owner.handle();
    if (&receive_cq.handle() != h || &initiator_cq.handle() != h ||
        (shared_rq != nullptr && &shared_rq->handle() != h)) {
        return status::invalid_parameter;
    }
    if (p.initiator_queue_depth > limits.max_initiator_queue_depth ||
        p.max_initiator_request_sge > limits.max_initiator_request_sge ||
        p.inline_data_size > limits.max_inline_data_size) {
        return status::invalid_parameter;
    }
    if (shared_rq == nullptr &&
        (p.receive_queue_depth == 0 || p.receive_queue_depth > limits.max_receive_queue_depth ||
         p.max_receive_request_sge > limits.max_receive_request_sge)) {
        return status::invalid_parameter;
    }
    return status::success;
}

qp::qp(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq, const qp_params& p)
    : object(object_kind::qp, owner.dev(), &owner.handle(), &owner),
      params_(p),
      receive_cq_(&receive_cq),
      initiator_cq_(&initiator_cq),
      srq_(shared_rq) {
    depend_on(receive_cq);
    if (&initiator_cq != &receive_cq) {
        depend_on(initiator_cq);
    }
    if (shared_rq != nullptr) {
        depend_on(*shared_rq);
    }
}

ref<qp> qp::create(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq,
                   const qp_params& p) {
    return ref<qp>(new qp(owner, receive_cq, initiator_cq, shared_rq, p), false);
}

}  // namespace ndksim::core
