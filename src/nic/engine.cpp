#include "nic/engine.hpp"

#include <algorithm>

#include "core/connector.hpp"
#include "core/device.hpp"
#include "core/listener.hpp"
#include "core/qp.hpp"
#include "nic/connection_manager.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "util/log.hpp"
#include "wire/cm_proto.hpp"

namespace ndksim::nic {
engine::engine(core::device& dev, engine_config cfg, const transport_factory& make_link)
    : dev_(dev), cfg_(std::move(cfg)), frames_(wire::frame_pool::create()) {
    link_ = make_link([this](wire::frame* f) { on_frame(f); });
    cm_ = std::make_unique<connection_manager>(*this);
    dev_.set_hooks(this);
}

engine::~engine() {
    dev_.set_hooks(nullptr);
    link_.reset();
}

void engine::attach_qp(core::qp& q) {
    auto ctx = std::make_unique<qp_context>();
    ctx->stats = stats_.add_qp(q.qpn());
    q.set_engine_state(std::move(ctx));
}

void engine::transmit(wire::transport::peer& to, wire::frame* f, timing::sim_time ready) {
    const timing::sim_time departure = std::max({ready, port_free_at_, dev_.sched().now()});
    port_free_at_ = departure + cfg_.costs.serialization(f->length);
    counters_.packets_sent.fetch_add(1, std::memory_order_relaxed);
    link_->send(to, f, departure);
}

void engine::on_frame(wire::frame* f) {
    counters_.packets_received.fetch_add(1, std::memory_order_relaxed);
    const wire::flow flow{f->source, link_->local_address(), wire::roce_udp_port,
                          wire::roce_udp_port, 0};
    const wire::decode_result r =
        wire::decode_frame(std::span<const std::byte>(f->data, f->length), flow);
    if (!r.ok()) {
        counters_.bad_frames[static_cast<std::size_t>(r.error)].fetch_add(
            1, std::memory_order_relaxed);
        NDKSIM_DEBUG("{}: dropped a frame from {}: {}", dev_.name(), wire::to_string(f->source),
                     wire::decode_error_name(r.error));
        wire::frame_pool::release(f);
        return;
    }
    const wire::decoded_packet& p = r.packet;
    if (wire::is_cm_packet(p)) {
        cm_->on_datagram(p, f->source);
    } else if (core::ref<core::qp> q = dev_.find_qp(p.headers.bth.dest_qp); !q) {
        counters_.frames_for_unknown_qp.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_TRACE("{}: frame for unknown QP {:#x} dropped", dev_.name(),
                     p.headers.bth.dest_qp);
    } else if (q->state() != core::qp_state::connected || q->engine_state() == nullptr ||
               context_of(*q).peer_qpn == 0) {
        counters_.frames_for_unconnected_qp.fetch_add(1, std::memory_order_relaxed);
    } else if (!(f->source == context_of(*q).flow.dst)) {
        // A packet for a connected QP from any address but its peer's is forged or stray: it
        // must not touch the connection (bad input kills at most its own connection).
        counters_.protocol_errors.fetch_add(1, std::memory_order_relaxed);
    } else if (p.info->svc != wire::service::rc) {
        counters_.protocol_errors.fetch_add(1, std::memory_order_relaxed);
    } else if (p.info->is_request()) {
        on_request(*this, *q, p);
    } else {
        on_response(*this, *q, p);
    }
    wire::frame_pool::release(f);
}

void engine::qp_closing(core::qp& q) {
    // A QP that never carried traffic and holds no request has nothing to flush: its close
    // can finish inline. Otherwise flushing runs on the engine, which owns the pipeline state;
    // the task's reference keeps the QP alive until it has run, and the close completes after
    // it (the close waits while the QP is busy).
    const bool quiet = (q.state() == core::qp_state::idle || q.state() == core::qp_state::error) &&
                       q.sq().outstanding() == 0 && (q.rq() == nullptr || q.rq()->outstanding() == 0);
    if (quiet) {
        return;
    }
    q.begin_busy();
    q.add_ref();
    dev_.sched().post([this, qp = &q] {
        if (qp->engine_state() != nullptr) {
            fail_qp(*this, *qp);
        }
        qp->end_busy();
        qp->release();
    });
}

void engine::connector_closing(core::connector& c) { cm_->connector_closing(c); }

void engine::listener_closing(core::listener& l) { cm_->listener_closing(l); }

}  // namespace ndksim::nic
