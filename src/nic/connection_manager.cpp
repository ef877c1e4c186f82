// SPDX-License-Identifier: MIT
#include "nic/connection_manager.hpp"

#include <algorithm>

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/listener.hpp"
#include "core/qp.hpp"
#include "core/shared_endpoint.hpp"
#include "nic/engine.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "timing/scheduler.hpp"
#include "util/log.hpp"
#include "util/refusal.hpp"

namespace ndksim::nic {
namespace {

using core::connector_state;

wire::ip_address to_ip(const core::net_address& a) {
    wire::ip_address ip;
    ip.v6 = a.v6;
    ip.bytes = a.bytes;
    return ip;
}

// The first PSN a QP sends on a connection: derived from the QP number and connection id so
// that runs repeat, spread over the 24-bit space so that wrap-around is exercised.
std::uint32_t start_psn_for(std::uint32_t qpn, std::uint32_t id) noexcept {
    return (qpn * 0x9E3779B1U + id * 0x85EBCA6BU) & wire::psn_mask;
}

// Records why a consumer call is refused (util/refusal.hpp) and returns its status.
status because(status s, const char* why) noexcept {
    refusal::because(why);
    return s;
}

// The IBA RNR Retry Count (3 bits) of an RNR retry limit: 7 means "for ever".
std::uint8_t rnr_retry_code(std::uint32_t limit) noexcept {
    constexpr std::uint8_t k_for_ever = 7;
    return limit == UINT32_MAX ? k_for_ever
                               : static_cast<std::uint8_t>(std::min<std::uint32_t>(limit, 6));
}

// The seed of the connection-id generator: the adapter's seed (a deterministic run repeats),
// mixed with its address (FNV-1a) so that two adapters of one run draw different ids.
std::uint64_t id_seed(const core::device_config& cfg) {
    std::uint64_t h = cfg.seed ^ 0xCBF29CE484222325ULL;
    for (const char ch : cfg.address) {
        h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001B3ULL;
    }
    return h;
}

void store_private_data(core::connector& c, std::span<const std::byte> data) {
    c.own_private_data_length = static_cast<std::uint16_t>(data.size());
    std::copy(data.begin(), data.end(), c.own_private_data.begin());
}

}  // namespace

connection_manager::connection_manager(engine& e) : e_(e), ids_(id_seed(e.dev().config())) {}

wire::cm_message connection_manager::handshake_message(const connection& conn,
                                                       wire::cm_type type) const {
    const core::connector& c = *conn.c;
    const core::adapter_limits& limits = e_.dev().limits();
    const engine_config& cfg = e_.config();
    wire::cm_message m;
    m.type = type;
    fill_addresses(conn, m);
    if (const core::qp* q = c.bound_qp()) {
        m.qp_number = q->qpn();
        m.start_psn = start_psn_for(q->qpn(), c.local_id);
        m.srq = q->shared_rq() != nullptr;
    }
    // Responder Resources and Initiator Depth are 8-bit fields: the adapter's limits
    // (NDK_ADAPTER_INFO.MaxInboundReadLimit, MaxOutboundReadLimit) are within them.
    static_assert(sizeof(wire::cm_req_layout::responder_resources) == 1);
    m.inbound_read_limit = std::min(c.inbound_read_limit, limits.max_inbound_read_limit);
    m.outbound_read_limit = std::min(c.outbound_read_limit, limits.max_outbound_read_limit);
    m.ca_guid = wire::ca_guid_for(to_ip(e_.dev().own_address()));
    m.rnr_retry_count = rnr_retry_code(cfg.rnr_retry_limit);
    // This adapter's transport settings, as a REQ states them (each adapter uses its own).
    m.cm_response_timeout = wire::iba_timeout_code(cfg.cm_response_timeout / k_cm_attempts);
    m.max_cm_retries = static_cast<std::uint8_t>(k_cm_attempts - 1);
    m.local_ack_timeout = wire::iba_timeout_code(cfg.ack_timeout);
    m.retry_count = static_cast<std::uint8_t>(std::min<std::uint32_t>(cfg.retry_limit, 7));
    m.path_mtu = wire::iba_mtu_code(e_.hw().mtu());
    m.set_private_data(
        std::span<const std::byte>(c.own_private_data).first(c.own_private_data_length));
    return m;
}

std::uint32_t connection_manager::register_connection(core::connector& c) {
    std::lock_guard lock(mutex_);
    std::uint32_t id = 0;
    while (id == 0 || connections_.contains(id)) {
        id = static_cast<std::uint32_t>(ids_());
    }
    connections_[id].c = core::ref<core::connector>(&c);
    c.local_id = id;
    return id;
}

void connection_manager::forget(std::uint32_t id) {
    core::ref<core::connector> keep;  // released after the lock
    std::lock_guard lock(mutex_);
    auto it = connections_.find(id);
    if (it != connections_.end()) {
        if (it->second.request) {
            requests_.erase(*it->second.request);
        }
        keep = std::move(it->second.c);
        connections_.erase(it);
    }
}

connection_manager::connection* connection_manager::find(std::uint32_t id) {
    std::lock_guard lock(mutex_);
    auto it = connections_.find(id);
    return it == connections_.end() ? nullptr : &it->second;
}

connection_manager::connection* connection_manager::find(const core::connector& c) {
    // A connector keeps its id after its connection ended, and the id may since have been
    // drawn for another connection: only the entry that refers to `c` is its own. Compared
    // under the lock, as a close asks from a consumer thread while the engine may erase it.
    std::lock_guard lock(mutex_);
    auto it = connections_.find(c.local_id);
    return it != connections_.end() && it->second.c.get() == &c ? &it->second : nullptr;
}

connection_manager::connection* connection_manager::match(const wire::cm_message& m,
                                                          const wire::ip_address& from) {
    std::lock_guard lock(mutex_);
    const auto from_peer = [&](const connection& conn) {
        const core::connector& c = *conn.c;
        return to_ip(c.peer_address) == from;
    };
    if (m.remote_connection_id == 0) {
        if (m.type != wire::cm_type::reject || m.local_connection_id == 0) {
            return nullptr;
        }
        for (auto& [id, conn] : connections_) {
            if (conn.c->remote_id == m.local_connection_id && from_peer(conn)) {
                return &conn;
            }
        }
        return nullptr;
    }
    auto it = connections_.find(m.remote_connection_id);
    if (it == connections_.end() || !from_peer(it->second)) {
        return nullptr;
    }
    const std::uint32_t peer_id = it->second.c->remote_id;
    return peer_id == 0 || peer_id == m.local_connection_id ? &it->second : nullptr;
}

void connection_manager::count_unmatched([[maybe_unused]] const wire::cm_message& m,
                                         [[maybe_unused]] const wire::ip_address& from) {
    e_.counters().cm_bad_messages.fetch_add(1, std::memory_order_relaxed);
    NDKSIM_DEBUG("{}: {} from {} for connection {:#x} matches no connection; dropped",
                 e_.dev().name(), wire::cm_type_table[static_cast<std::size_t>(m.type)].name,
                 wire::to_string(from), m.remote_connection_id);
}

void connection_manager::fill_addresses(const connection& conn, wire::cm_message& m) const {
    const core::connector& c = *conn.c;
    m.transaction_id = conn.transaction_id;
    m.local_connection_id = c.local_id;
    m.remote_connection_id = c.remote_id;
    m.src_ip = to_ip(c.local_address);
    m.dst_ip = to_ip(c.peer_address);
    m.src_port = c.local_address.port;
    m.dst_port = c.peer_address.port;
}

wire::cm_message connection_manager::disconnect_request(const connection& conn) const {
    wire::cm_message m;
    m.type = wire::cm_type::disconnect_request;
    fill_addresses(conn, m);
    m.qp_number = conn.c->peer_qpn;  // a DREQ names the receiver's QP (IBA 12.6, DREQ)
    return m;
}

void connection_manager::send(connection& conn, wire::cm_message& m) {
    if (!conn.peer) {
        return;
    }
    conn.last_sent = m;
    conn.attempts = 1;
    wire::frame* f = e_.frames().take();
    const wire::cm_encode_result r = wire::encode_cm_frame(
        m, datagram_psn_++, conn.flow, std::span<std::byte>(f->data, sizeof f->data));
    if (!r.ok()) {
        NDKSIM_ERROR("{}: connection message not encoded: {}", e_.dev().name(),
                     wire::cm_error_name(r.error));
        wire::frame_pool::release(f);
        return;
    }
    f->length = static_cast<std::uint32_t>(r.size);
    e_.counters().cm_messages_sent.fetch_add(1, std::memory_order_relaxed);
    e_.transmit(*conn.peer, f, e_.hw().control_ready(e_.dev().sched().now()));
}

void connection_manager::send_reply_to(const wire::ip_address& to, wire::cm_message& m) {
    connection conn;
    conn.peer = e_.link().resolve(to);
    conn.flow =
        wire::flow{e_.link().local_address(), to, wire::roce_udp_port, wire::roce_udp_port, 0};
    send(conn, m);
}

void connection_manager::reject_unknown(const wire::cm_message& m, const wire::ip_address& from,
                                        wire::cm_reject_reason reason) {
    wire::cm_message reply;
    reply.type = wire::cm_type::reject;
    reply.transaction_id = m.transaction_id;
    reply.remote_connection_id = m.local_connection_id;
    // The id the sender gave us, so that its side can match the answer (match()).
    reply.local_connection_id = m.remote_connection_id;
    reply.rejected_message =
        m.type == wire::cm_type::request ? wire::cm_rejected::request : wire::cm_rejected::reply;
    reply.reject_reason = static_cast<std::uint16_t>(reason);
    send_reply_to(from, reply);
}

void connection_manager::arm_timer(std::uint32_t id, connector_state waiting_in,
                                   status on_timeout) {
    connection* conn = find(id);
    if (conn == nullptr) {
        return;
    }
    // A timer measured on the simulated clock; in threaded mode that clock does not run ahead
    // of the wall clock by more than a millisecond (timing/scheduler.hpp), so the peer's
    // engine and the consumers on both sides have the time to answer before it fires.
    // The messages travel as datagrams, which a lossy link or a full socket buffer drops: the
    // response timeout is split into k_cm_attempts equal waits, and the message is sent again
    // after each but the last (as connection managers resend their MADs). The receivers treat
    // a repeated message as a repeat, so a late original and its copy do no harm.
    const std::uint64_t generation = ++conn->timer_generation;
    e_.dev().sched().post_timer_after(
        e_.config().cm_response_timeout / k_cm_attempts,
        [this, id, generation, waiting_in, on_timeout] {
            connection* c = find(id);
            if (c == nullptr || c->timer_generation != generation || c->c->state() != waiting_in) {
                return;
            }
            if (c->attempts < k_cm_attempts) {
                const std::uint32_t attempts = c->attempts;
                wire::cm_message again = c->last_sent;
                send(*c, again);
                c->attempts = attempts + 1;
                e_.counters().cm_messages_resent.fetch_add(1, std::memory_order_relaxed);
                arm_timer(id, waiting_in, on_timeout);
                return;
            }
            NDKSIM_DEBUG("{}: connection timed out in {}", c->c->ident(),
                         core::connector_state_name(waiting_in));
            fail_connection(id, on_timeout);
        });
}

void connection_manager::fail_connection(std::uint32_t id, status result) {
    connection* conn = find(id);
    if (conn == nullptr) {
        return;
    }
    core::ref<core::connector> c = conn->c;
    c->set_state(connector_state::failed);
    if (core::qp* q = c->bound_qp(); q != nullptr && q->state() == core::qp_state::connecting) {
        q->set_state(core::qp_state::idle);
    }
    forget(id);
    c->complete_request(result);
}

void connection_manager::activate_qp(connection& conn) {
    core::connector& c = *conn.c;
    core::qp* q = c.bound_qp();
    qp_context& ctx = context_of(*q);
    const core::adapter_limits& limits = e_.dev().limits();
    ctx.peer = conn.peer;
    ctx.flow = conn.flow;
    ctx.peer_qpn = c.peer_qpn;
    ctx.req.next_psn = start_psn_for(q->qpn(), c.local_id);
    ctx.resp.expected_psn = c.peer_start_psn;
    // Effective limits (REFERENCE.md section 9): what this side asked for, capped by the
    // adapter and by what the peer offers the other way.
    ctx.ird =
        std::min({c.inbound_read_limit, limits.max_inbound_read_limit, c.peer.outbound_read_limit});
    ctx.ord = std::min(
        {c.outbound_read_limit, limits.max_outbound_read_limit, c.peer.inbound_read_limit});
    ctx.resp.reads = {};
    ctx.resp.replayed_reads = {};
    q->set_state(core::qp_state::connected);
}

// ---- consumer calls ---------------------------------------------------------------------------

status connection_manager::connect(core::connector& c, core::qp& q, const core::net_address* source,
                                   core::shared_endpoint* sep, const core::net_address& destination,
                                   std::uint32_t inbound_read_limit,
                                   std::uint32_t outbound_read_limit,
                                   std::span<const std::byte> private_data, core::request_fn done) {
    core::device& dev = e_.dev();
    if (&q.dev() != &dev) {
        return because(status::invalid_parameter, "the QP belongs to another NIC");
    }
    if (private_data.size() > dev.limits().max_caller_data) {
        // A buffer above NDK_ADAPTER_INFO.MaxCallerData is a size error, not a bad argument
        // (docs/rules-beyond-reference.md).
        return because(status::invalid_buffer_size,
                       "private data above NDK_ADAPTER_INFO.MaxCallerData");
    }
    if (c.state() != connector_state::idle || c.has_request() ||
        q.state() != core::qp_state::idle || q.bound_connector() != nullptr || !c.is_open() ||
        !q.is_open()) {
        return because(status::invalid_device_state,
                       "the connector was used before, or the QP is connected, bound or closing "
                       "(a connector and a QP serve one connection)");
    }
    if (destination.v6 != dev.own_address().v6) {
        return because(status::invalid_address,
                       "the destination's address family differs from the adapter's");
    }
    core::net_address local;
    if (sep != nullptr) {
        if (&sep->dev() != &dev) {
            return because(status::invalid_parameter, "the shared endpoint belongs to another NIC");
        }
        local = sep->local_address();
    } else {
        local = source != nullptr ? *source : dev.own_address();
        if (source == nullptr) {
            local.port = 0;
        }
        if (const status s = dev.reserve_local(local); s != status::success) {
            return s;
        }
    }
    // ADDRESS_ALREADY_EXISTS: the same four-tuple is already in use (NdkConnect docs). Only a
    // shared endpoint can repeat one: NdkConnect reserved its port for this connector alone.
    // The tuple stays taken until the connector that used it closes, not only while its
    // connection lasts (rule 25), so the endpoint keeps the record.
    if (sep != nullptr && !c.use_shared_endpoint(*sep, destination)) {
        return because(status::address_already_exists,
                       "a connector of this shared endpoint already uses this destination "
                       "(NdkConnectWithSharedEndpoint: the four-tuple is taken)");
    }
    if (!c.begin_request(std::move(done))) {
        // Another consumer thread started a request on this connector meanwhile.
        if (sep == nullptr) {
            dev.endpoints().release(local.port);
        }
        return status::invalid_device_state;
    }
    c.local_address = local;
    c.peer_address = destination;
    c.owns_port = sep == nullptr;
    c.inbound_read_limit = inbound_read_limit;
    c.outbound_read_limit = outbound_read_limit;
    c.bind_qp(q);
    q.set_state(core::qp_state::connecting);
    c.set_state(connector_state::connecting);
    const std::uint32_t id = register_connection(c);

    store_private_data(c, private_data);
    NDKSIM_DEBUG("{}: connecting {} -> {}", c.ident(), local.to_string(), destination.to_string());
    dev.sched().post([this, id] {
        connection* conn = find(id);
        if (conn == nullptr || conn->c->state() != connector_state::connecting) {
            return;
        }
        // The active side's id names the whole exchange (the MAD transaction id).
        conn->transaction_id = id;
        wire::cm_message m = handshake_message(*conn, wire::cm_type::request);
        conn->peer = e_.link().resolve(to_ip(conn->c->peer_address));
        if (!conn->peer) {
            fail_connection(id, status::host_unreachable);
            return;
        }
        conn->flow = wire::flow{e_.link().local_address(), to_ip(conn->c->peer_address),
                                wire::roce_udp_port, wire::roce_udp_port, 0};
        send(*conn, m);
        arm_timer(id, connector_state::connecting, status::io_timeout);
    });
    return status::pending;
}

status connection_manager::complete_connect(core::connector& c, core::disconnect_fn event,
                                            core::request_fn done) {
    if (c.state() == connector_state::failed && c.remote_id != 0) {
        // The peer replied, then abandoned the connection (NdkCompleteConnect docs).
        return because(status::connection_aborted, "the peer abandoned the connection");
    }
    if (c.state() != connector_state::replied || !c.begin_request(std::move(done))) {
        return because(status::connection_invalid,
                       "NdkConnect has not completed successfully on this connector");
    }
    c.set_disconnect_event(std::move(event));
    const std::uint32_t id = c.local_id;
    e_.dev().sched().post([this, id] {
        connection* conn = find(id);
        if (conn == nullptr) {
            return;
        }
        core::connector& cn = *conn->c;
        if (cn.state() != connector_state::replied) {
            cn.complete_request(status::connection_aborted);
            return;
        }
        activate_qp(*conn);
        wire::cm_message m;
        m.type = wire::cm_type::ready_to_use;
        fill_addresses(*conn, m);
        send(*conn, m);
        cn.set_state(connector_state::connected);
        cn.complete_request(status::success);
    });
    return status::pending;
}

status connection_manager::accept(core::connector& c, core::qp& q, std::uint32_t inbound_read_limit,
                                  std::uint32_t outbound_read_limit,
                                  std::span<const std::byte> private_data,
                                  core::disconnect_fn event, core::request_fn done) {
    core::device& dev = e_.dev();
    if (private_data.size() > dev.limits().max_callee_data) {
        return because(status::invalid_buffer_size,
                       "private data above NDK_ADAPTER_INFO.MaxCalleeData");
    }
    if (c.state() == connector_state::failed) {
        // The active side gave up first (NdkAccept docs).
        return because(status::connection_aborted, "the active side abandoned the connection");
    }
    if (c.state() != connector_state::requested || c.has_request()) {
        return because(status::invalid_device_state,
                       "the connector holds no unanswered connection request");
    }
    // Objects belong to the NIC, not to the NDK_ADAPTER handle that created them: a QP of any
    // handle of this device may take the connection (docs/object-model.md).
    if (&q.dev() != &dev) {
        return because(status::invalid_parameter, "the QP belongs to another NIC");
    }
    if (q.state() != core::qp_state::idle || q.bound_connector() != nullptr) {
        return because(status::invalid_parameter,
                       "the QP is already bound to a connection (a QP serves one connection)");
    }
    if (!c.begin_request(std::move(done))) {
        return status::invalid_device_state;
    }
    c.inbound_read_limit = inbound_read_limit;
    c.outbound_read_limit = outbound_read_limit;
    c.bind_qp(q);
    c.set_disconnect_event(std::move(event));
    q.set_state(core::qp_state::connecting);
    c.set_state(connector_state::accepting);

    store_private_data(c, private_data);
    const std::uint32_t id = c.local_id;
    dev.sched().post([this, id] {
        connection* conn = find(id);
        if (conn == nullptr || conn->c->state() != connector_state::accepting) {
            return;
        }
        wire::cm_message m = handshake_message(*conn, wire::cm_type::reply);
        // The QP can receive from now on: the peer sends only after its ready-to-use message,
        // which travels ahead of its data on the same path.
        activate_qp(*conn);
        conn->c->bound_qp()->set_state(core::qp_state::connecting);
        send(*conn, m);
        arm_timer(id, connector_state::accepting, status::io_timeout);
    });
    return status::pending;
}

status connection_manager::reject(core::connector& c, std::span<const std::byte> private_data) {
    if (private_data.size() > e_.dev().limits().max_callee_data) {
        return because(status::invalid_buffer_size,
                       "private data above NDK_ADAPTER_INFO.MaxCalleeData");
    }
    const connector_state s = c.state();
    if (s == connector_state::failed) {
        // The peer gave up first (NdkReject docs).
        return because(status::connection_aborted, "the peer abandoned the connection");
    }
    if (s != connector_state::requested && s != connector_state::replied) {
        return because(status::invalid_device_state,
                       "nothing to reject: no request or reply is waiting for an answer");
    }
    c.set_state(connector_state::failed);
    store_private_data(c, private_data);
    const std::uint32_t id = c.local_id;
    // The passive side refuses the peer's REQ, the active side its REP.
    const wire::cm_rejected rejected =
        s == connector_state::requested ? wire::cm_rejected::request : wire::cm_rejected::reply;
    e_.dev().sched().post([this, id, rejected] {
        if (connection* conn = find(id)) {
            wire::cm_message m = handshake_message(*conn, wire::cm_type::reject);
            m.rejected_message = rejected;
            m.reject_reason = static_cast<std::uint16_t>(wire::cm_reject_reason::consumer);
            send(*conn, m);
            if (core::qp* q = conn->c->bound_qp();
                q != nullptr && q->state() == core::qp_state::connecting) {
                q->set_state(core::qp_state::idle);
            }
            forget(id);
        }
    });
    return status::success;
}

status connection_manager::disconnect(core::connector& c, core::request_fn done) {
    const connector_state s = c.state();
    if (s != connector_state::connected && s != connector_state::disconnected) {
        return because(status::connection_invalid, "the connector never connected");
    }
    if (!c.begin_disconnect(std::move(done))) {
        return because(status::invalid_device_state,
                       "a request is already pending on the connector");
    }
    const std::uint32_t id = c.local_id;
    core::ref<core::connector> keep(&c);
    e_.dev().sched().post([this, id, keep] {
        core::connector& cn = *keep;
        // A graceful disconnect flushes the QP (rule 12); its completions come first.
        if (core::qp* q = cn.bound_qp()) {
            send_pending_ack(e_, *q);
            fail_qp(e_, *q);
        }
        connection* conn = find(cn);
        if (cn.state() == connector_state::disconnected || conn == nullptr) {
            cn.set_state(connector_state::disconnected);
            cn.complete_request(status::success);
            return;
        }
        cn.set_state(connector_state::disconnecting);
        wire::cm_message m = disconnect_request(*conn);
        send(*conn, m);
        arm_timer(id, connector_state::disconnecting, status::io_timeout);
    });
    return status::pending;
}

// ---- incoming messages -------------------------------------------------------------------

void connection_manager::on_datagram(const wire::decoded_packet& p, const wire::ip_address& from) {
    const wire::cm_decode_result r = wire::decode_cm(p);
    if (!r.ok()) {
        e_.counters().cm_bad_messages.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_DEBUG("{}: connection message from {} dropped: {}", e_.dev().name(),
                     wire::to_string(from), wire::cm_error_name(r.error));
        return;
    }
    e_.counters().cm_messages_received.fetch_add(1, std::memory_order_relaxed);
    const wire::cm_message& m = r.message;
    if (m.type == wire::cm_type::request && !(m.src_ip == from)) {
        // A REQ's own source (its primary path's local GID and its IP CM source address)
        // must be where it came from; anything else is forged.
        e_.counters().cm_bad_messages.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    // One handler per message type, indexed by wire::cm_type (decode_cm rejected unknown types).
    using handler = void (connection_manager::*)(const wire::cm_message&, const wire::ip_address&);
    static constexpr std::array<handler, wire::cm_type_count> k_handlers{
        nullptr,                                     // invalid
        &connection_manager::on_request,             // request
        &connection_manager::on_reply,               // reply
        &connection_manager::on_ready_to_use,        // ready_to_use
        &connection_manager::on_reject,              // reject
        &connection_manager::on_disconnect_request,  // disconnect_request
        &connection_manager::on_disconnect_reply,    // disconnect_reply
    };
    if (const handler h = k_handlers[static_cast<std::size_t>(m.type)]) {
        (this->*h)(m, from);
    }
}

bool connection_manager::matches_live(const wire::decoded_packet& p, const wire::ip_address& from) {
    const wire::cm_decode_result r = wire::decode_cm(p);
    if (!r.ok()) {
        return false;
    }
    const wire::cm_message& m = r.message;
    if (m.type == wire::cm_type::request) {
        if (!(m.src_ip == from)) {
            return false;
        }
        const core::ref<core::listener> l = e_.dev().find_listener(m.dst_port);
        return l && m.dst_ip == to_ip(e_.dev().own_address()) && l->accepting_requests();
    }
    return match(m, from) != nullptr;
}

void connection_manager::on_request(const wire::cm_message& m, const wire::ip_address& from) {
    core::device& dev = e_.dev();
    const request_key key{from, m.local_connection_id};
    {
        // A repeated request for a connection already set up (or being set up) is ignored.
        std::lock_guard lock(mutex_);
        if (requests_.contains(key)) {
            return;
        }
    }
    core::ref<core::listener> l = dev.find_listener(m.dst_port);
    const bool own_ip = m.dst_ip == to_ip(dev.own_address());
    if (!l || !own_ip || !l->accepting_requests()) {
        // No listener, a paused one (rule 26) or a closing one (rule 25): refused.
        reject_unknown(m, from, wire::cm_reject_reason::invalid_service_id);
        return;
    }
    core::ref<core::connector> c = core::connector::create_passive(*l);
    const std::optional<core::net_address> bound = l->local_address();
    c->local_address = bound.value_or(dev.own_address());
    c->local_address.port = m.dst_port;
    c->peer_address.v6 = m.src_ip.v6;
    c->peer_address.bytes = m.src_ip.bytes;
    c->peer_address.port = m.src_port;
    c->peer_address.family_value = c->local_address.family_value;
    c->remote_id = m.local_connection_id;
    c->peer_qpn = m.qp_number;
    c->peer_start_psn = m.start_psn;
    c->peer.inbound_read_limit = m.inbound_read_limit;
    c->peer.outbound_read_limit = m.outbound_read_limit;
    c->peer.private_data_length = m.private_data_length;
    std::copy(m.private_data.begin(), m.private_data.end(), c->peer.private_data.begin());
    // The accepted connector holds the listener's port until it closes (rule 25).
    dev.endpoints().acquire(c->local_address.port);
    c->owns_port = true;
    const std::uint32_t id = register_connection(*c);
    if (connection* conn = find(id)) {
        {
            std::lock_guard lock(mutex_);
            conn->request = key;
            requests_.emplace(key, id);
        }
        conn->transaction_id = m.transaction_id;
        conn->peer = e_.link().resolve(from);
        conn->flow = wire::flow{e_.link().local_address(), from, wire::roce_udp_port,
                                wire::roce_udp_port, 0};
    }
    NDKSIM_DEBUG("{}: connection request from {} on port {}", c->ident(),
                 c->peer_address.to_string(), m.dst_port);
    // The consumer owns the connector from the event on (the ref's count is its reference).
    core::connector* raw = c.detach();
    l->deliver_connect_event(*raw);
}

void connection_manager::on_reply(const wire::cm_message& m, const wire::ip_address& from) {
    connection* conn = match(m, from);
    if (conn == nullptr) {
        count_unmatched(m, from);
        if (find(m.remote_connection_id) == nullptr) {
            // We forgot the connection (the connector closed, or timed out) and the peer
            // still offers it: tell it, without state, so its Accept ends now.
            reject_unknown(m, from, wire::cm_reject_reason::invalid_comm_id);
        }
        return;
    }
    if (conn->c->remote_id == m.local_connection_id &&
        (conn->c->state() == connector_state::replied ||
         conn->c->state() == connector_state::connected)) {
        // A repeated reply: the passive side did not hear our ready-to-use (lost), or it is
        // still to come (the consumer has not called NdkCompleteConnect yet).
        if (conn->c->state() == connector_state::connected &&
            conn->last_sent.type == wire::cm_type::ready_to_use) {
            wire::cm_message again = conn->last_sent;
            send(*conn, again);
            e_.counters().cm_messages_resent.fetch_add(1, std::memory_order_relaxed);
        }
        return;
    }
    if (conn->c->state() != connector_state::connecting) {
        reject_unknown(m, from, wire::cm_reject_reason::stale_connection);
        return;
    }
    core::connector& c = *conn->c;
    ++conn->timer_generation;
    c.remote_id = m.local_connection_id;
    c.peer_qpn = m.qp_number;
    c.peer_start_psn = m.start_psn;
    c.peer.inbound_read_limit = m.inbound_read_limit;
    c.peer.outbound_read_limit = m.outbound_read_limit;
    c.peer.private_data_length = m.private_data_length;
    std::copy(m.private_data.begin(), m.private_data.end(), c.peer.private_data.begin());
    c.set_state(connector_state::replied);
    c.complete_request(status::success);
}

void connection_manager::on_ready_to_use(const wire::cm_message& m, const wire::ip_address& from) {
    connection* conn = match(m, from);
    if (conn == nullptr) {
        count_unmatched(m, from);
        return;
    }
    if (conn->c->state() != connector_state::accepting) {
        return;  // a repeat, or the peer's data took its place (established())
    }
    complete_accept(*conn);
}

void connection_manager::complete_accept(connection& conn) {
    ++conn.timer_generation;
    core::connector& c = *conn.c;
    c.bound_qp()->set_state(core::qp_state::connected);
    c.set_state(connector_state::connected);
    c.complete_request(status::success);
}

bool connection_manager::established(core::qp& q) {
    connection* found = nullptr;
    {
        std::lock_guard lock(mutex_);
        for (auto& [id, conn] : connections_) {
            if (conn.c->bound_qp() == &q) {
                found = &conn;
                break;
            }
        }
    }
    if (found == nullptr || found->c->state() != connector_state::accepting) {
        return false;
    }
    complete_accept(*found);
    return true;
}

void connection_manager::on_reject(const wire::cm_message& m, const wire::ip_address& from) {
    // An active side that closed before our reply reached it does not know our id (remote id
    // 0): match() finds the passive connection by the peer's own id and address.
    connection* conn = match(m, from);
    if (conn == nullptr) {
        count_unmatched(m, from);
        return;
    }
    core::connector& c = *conn->c;
    const std::uint32_t id = c.local_id;
    c.peer.private_data_length = m.private_data_length;
    std::copy(m.private_data.begin(), m.private_data.end(), c.peer.private_data.begin());
    if (c.state() == connector_state::disconnecting) {
        // The peer closed its end while our disconnect request was on its way: the connection
        // is over, which is what the Disconnect asked for (NdkDisconnect completes with
        // STATUS_SUCCESS or STATUS_IO_TIMEOUT only).
        core::ref<core::connector> keep(&c);
        c.set_state(connector_state::disconnected);
        forget(id);
        keep->complete_request(status::success);
        return;
    }
    // The active side sees a refusal; the passive side, an abandoned connection.
    const status result = c.state() == connector_state::connecting ? status::connection_refused
                                                                   : status::connection_aborted;
    if (c.state() == connector_state::connected) {
        c.set_state(connector_state::disconnected);
        if (core::qp* q = c.bound_qp()) {
            q->set_state(core::qp_state::error);
        }
        core::ref<core::connector> keep(&c);
        forget(id);
        keep->deliver_disconnect_event(0);
        return;
    }
    fail_connection(id, result);
}

void connection_manager::on_disconnect_request(const wire::cm_message& m,
                                               const wire::ip_address& from) {
    connection* conn = match(m, from);
    if (conn == nullptr && find(m.remote_connection_id) != nullptr) {
        count_unmatched(m, from);
        return;
    }
    if (conn == nullptr) {
        // Already disconnected here: the peer repeats its request because our reply was lost.
        // The reply needs no state, so it is sent again. It changes nothing here, and goes
        // only to the address the request came from, with the ids the request named: what
        // it can do there, the request's sender could do by sending it itself. The request
        // matched no live connection, and is counted as such.
        count_unmatched(m, from);
        wire::cm_message reply;
        reply.type = wire::cm_type::disconnect_reply;
        reply.transaction_id = m.transaction_id;
        reply.remote_connection_id = m.local_connection_id;
        reply.local_connection_id = m.remote_connection_id;
        send_reply_to(from, reply);
        return;
    }
    core::ref<core::connector> c = conn->c;
    wire::cm_message reply;
    reply.type = wire::cm_type::disconnect_reply;
    fill_addresses(*conn, reply);
    reply.transaction_id = m.transaction_id;  // a DREP answers its DREQ
    send(*conn, reply);
    if (c->state() == connector_state::connected) {
        // A peer's disconnect stops the connection but does not flush (rule 12): the consumer
        // flushes or disconnects in its own time.
        c->set_state(connector_state::disconnected);
        if (core::qp* q = c->bound_qp()) {
            q->set_state(core::qp_state::error);
        }
        forget(m.remote_connection_id);
        c->deliver_disconnect_event(0);
    }
}

void connection_manager::on_disconnect_reply(const wire::cm_message& m,
                                             const wire::ip_address& from) {
    connection* conn = match(m, from);
    if (conn == nullptr) {
        count_unmatched(m, from);
        return;
    }
    if (conn->c->state() != connector_state::disconnecting) {
        return;
    }
    core::ref<core::connector> c = conn->c;
    c->set_state(connector_state::disconnected);
    forget(m.remote_connection_id);
    c->complete_request(status::success);
}

void connection_manager::abort_connection(core::qp& q, disconnect_reason reason) {
    // The connection is found through the table, which holds a reference on its connector, so
    // a connector being closed on another thread is never touched through the QP's pointer.
    core::ref<core::connector> c;
    std::uint32_t id = 0;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [cid, conn] : connections_) {
            if (conn.c->bound_qp() == &q) {
                c = conn.c;
                id = cid;
                break;
            }
        }
    }
    if (!c || c->state() != connector_state::connected) {
        return;
    }
    e_.counters().connections_aborted.fetch_add(1, std::memory_order_relaxed);
    NDKSIM_INFO("{}: connection torn down ({})", c->ident(),
                reason == disconnect_reason::retry_exhausted ? "retries exhausted" : "fatal error");
    if (connection* conn = find(id)) {
        wire::cm_message m = disconnect_request(*conn);
        send(*conn, m);
    }
    c->set_state(connector_state::disconnected);
    forget(id);
    c->deliver_disconnect_event(static_cast<std::uint32_t>(reason));
}

// ---- lifetime hooks ------------------------------------------------------------------------

void connection_manager::connector_closing(core::connector& c) {
    if (!c.has_request()) {
        if (find(c) == nullptr) {
            // Never connected, or its connection already ended: nothing to tell anyone.
            c.set_state(connector_state::failed);
            return;
        }
    }
    c.begin_busy();
    core::ref<core::connector> keep(&c);
    e_.dev().sched().post([this, keep] {
        core::connector& cn = *keep;
        const std::uint32_t id = cn.local_id;
        if (connection* conn = find(cn)) {
            const connector_state s = cn.state();
            if (s == connector_state::connecting || s == connector_state::requested ||
                s == connector_state::replied || s == connector_state::accepting ||
                s == connector_state::connected || s == connector_state::disconnecting) {
                // Tell the peer the connection is gone: it sees a refusal, an abandoned accept
                // or a disconnect event. A REJ names what it answers: the peer's REQ (still
                // unanswered here), its REP (not yet confirmed), or neither (our own REQ or
                // REP is the one waiting).
                wire::cm_message m;
                if (s == connector_state::connected) {
                    m = disconnect_request(*conn);
                } else {
                    m.type = wire::cm_type::reject;
                    fill_addresses(*conn, m);
                    m.rejected_message = s == connector_state::requested
                                             ? wire::cm_rejected::request
                                         : s == connector_state::replied ? wire::cm_rejected::reply
                                                                         : wire::cm_rejected::other;
                    m.reject_reason = static_cast<std::uint16_t>(wire::cm_reject_reason::consumer);
                }
                if (core::qp* q = cn.bound_qp(); q != nullptr && s == connector_state::connected) {
                    send_pending_ack(e_, *q);
                }
                send(*conn, m);
            }
            if (core::qp* q = cn.bound_qp(); q != nullptr && q->state() != core::qp_state::error) {
                q->set_state(q->state() == core::qp_state::connected ? core::qp_state::error
                                                                     : core::qp_state::idle);
            }
            forget(id);
        }
        cn.set_state(connector_state::failed);
        // The close must cancel the request in progress (rule 4).
        cn.complete_request(status::cancelled);
        cn.end_busy();
    });
}

void connection_manager::listener_closing([[maybe_unused]] core::listener& l) {
    // The device stopped routing requests to the listener when its close was requested;
    // connectors it created belong to the consumer and close on their own.
    NDKSIM_DEBUG("{}: no longer accepts connection requests", l.ident());
}

}  // namespace ndksim::nic
