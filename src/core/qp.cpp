// SPDX-License-Identifier: MIT
#include "core/qp.hpp"

#include <array>

#include "core/adapter.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/engine_hooks.hpp"
#include "core/pd.hpp"
#include "core/srq.hpp"
#include "util/log.hpp"

namespace ndksim::core {

const char* qp_state_name(qp_state s) noexcept {
    static constexpr std::array<const char*, 4> k_names{"idle", "connecting", "connected", "error"};
    return k_names[static_cast<std::size_t>(s)];
}

status qp::check_create(const adapter_limits& limits, const pd& owner, const cq& receive_cq,
                        const cq& initiator_cq, const srq* shared_rq, const qp_params& p) noexcept {
    // The CQs and the SRQ must be on the PD's NIC; the NDK_ADAPTER handle each came through
    // does not matter, since objects belong to the device (docs/object-model.md).
    const device* d = &owner.dev();
    if (&receive_cq.dev() != d || &initiator_cq.dev() != d ||
        (shared_rq != nullptr && &shared_rq->dev() != d)) {
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

qp::qp(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq, const qp_params& p,
       std::uint32_t qpn)
    : object(object_kind::qp, owner.dev(), &owner.handle(), &owner),
      qpn_(qpn),
      initiator_queue_id_(owner.dev().contexts().new_queue()),
      receive_queue_id_(shared_rq == nullptr ? owner.dev().contexts().new_queue() : 0),
      pd_(&owner),
      receive_cq_(&receive_cq),
      initiator_cq_(&initiator_cq),
      srq_(shared_rq),
      params_(p),
      sq_(p.initiator_queue_depth, p.max_initiator_request_sge, p.inline_data_size) {
    if (shared_rq == nullptr) {
        rq_.emplace(p.receive_queue_depth, p.max_receive_request_sge);
    }
    add_antecedent(receive_cq);
    if (&initiator_cq != &receive_cq) {
        add_antecedent(initiator_cq);
    }
    if (shared_rq != nullptr) {
        add_antecedent(*shared_rq);
    }
}

qp::~qp() {
    dev().free_qpn(qpn_);
    dev().contexts().forget(initiator_queue_id_);
    if (receive_queue_id_ != 0) {
        dev().contexts().forget(receive_queue_id_);
    }
}

std::uint32_t qp::receive_queue_id() const noexcept {
    return srq_ != nullptr ? srq_->queue_id() : receive_queue_id_;
}

status qp::create(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq, const qp_params& p,
                  ref<qp>& out) {
    const std::uint32_t qpn = owner.dev().allocate_qpn();
    if (qpn == 0) {
        return status::insufficient_resources;
    }
    ref<qp> q;
    try {
        q = ref<qp>(new qp(owner, receive_cq, initiator_cq, shared_rq, p, qpn), false);
    } catch (...) {
        owner.dev().free_qpn(qpn);
        throw;
    }
    // The number maps to the QP only once it is fully built: packets may look it up from now.
    owner.dev().register_qp(qpn, q.get());
    out = std::move(q);
    return status::success;
}

mem::pd_id qp::memory_pd() const noexcept {
    return pd_->memory_pd();
}

void qp::set_state(qp_state s) noexcept {
    const qp_state old = state_.exchange(s, std::memory_order_acq_rel);
    if (old != s) {
        NDKSIM_DEBUG("{}: {} -> {}", ident(), qp_state_name(old), qp_state_name(s));
    }
}

void qp::on_close_requested() {
    // The QP stops receiving packets at once; the engine flushes what is outstanding so the
    // close completes after those completions (rule 4).
    dev().unregister_qp(qpn_);
    if (engine_hooks* h = dev().hooks()) {
        h->qp_closing(*this);
    }
}

}  // namespace ndksim::core
