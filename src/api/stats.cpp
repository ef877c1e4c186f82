// The statistics entry points of ndksim.h: snapshots of the engine's counters as C structs,
// and the same counters as one JSON document (docs/statistics.md).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "core/qp.hpp"
#include "ndksim.h"
#include "nic/qp_context.hpp"
#include "nic/stats_registry.hpp"
#include "timing/sync_domain.hpp"
#include "util/log.hpp"
#include "wire/codec.hpp"
#include "wire/faulty_link.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::api {
namespace {

static_assert(NDKSIM_STATS_OP_COUNT == nic::k_stat_ops);
static_assert(NDKSIM_LATENCY_BUCKETS == nic::k_latency_buckets);
static_assert(NDKSIM_STATS_SEND == static_cast<int>(nic::stat_op::send));
static_assert(NDKSIM_STATS_RECEIVE == static_cast<int>(nic::stat_op::receive));
static_assert(NDKSIM_STATS_WRITE == static_cast<int>(nic::stat_op::write));
static_assert(NDKSIM_STATS_READ == static_cast<int>(nic::stat_op::read));
static_assert(NDKSIM_STATS_SEND_INVALIDATE == static_cast<int>(nic::stat_op::send_invalidate));
static_assert(NDKSIM_STATS_BIND == static_cast<int>(nic::stat_op::bind));
static_assert(NDKSIM_STATS_FAST_REGISTER == static_cast<int>(nic::stat_op::fast_register));
static_assert(NDKSIM_STATS_INVALIDATE == static_cast<int>(nic::stat_op::invalidate));

// JSON names of the operation types, indexed by ndksim_stats_op.
constexpr std::array<const char*, NDKSIM_STATS_OP_COUNT> k_op_names{
    "send", "receive", "write", "read", "send_invalidate", "bind", "fast_register", "invalidate"};

// The size of version 1 of each struct: a caller compiled against it passes at least this.
// Version 2 of the adapter's struct appended the reliability, fault and socket counters, and
// version 3 the refused departures and the receive overruns, version 4 the hostile-input drops,
// version 5 the memory unit's footprint.
constexpr ULONG k_adapter_stats_v1 = NDKSIM_ADAPTER_STATS_V1_SIZE;
static_assert(k_adapter_stats_v1 ==
              offsetof(ndksim_adapter_stats, translation_cache_stale_hits) + sizeof(ULONG64));
constexpr ULONG k_qp_stats_v1 = sizeof(ndksim_qp_stats);

void fill_ops(const nic::stats_snapshot& s, ndksim_op_stats (&out)[NDKSIM_STATS_OP_COUNT]) {
    for (std::size_t i = 0; i < nic::k_stat_ops; ++i) {
        const nic::op_snapshot& o = s.ops[i];
        ndksim_op_stats& d = out[i];
        d.completed = o.completed;
        d.errors = o.errors;
        d.bytes = o.bytes;
        d.latency_count = 0;
        for (std::size_t b = 0; b < nic::k_latency_buckets; ++b) {
            d.latency_buckets[b] = o.latency[b];
            d.latency_count += o.latency[b];
        }
        d.latency_sum_ps = o.latency_sum_ps;
        d.latency_min_ps = o.latency_min_ps;
        d.latency_max_ps = o.latency_max_ps;
    }
}

std::uint64_t load(const std::atomic<std::uint64_t>& c) {
    return c.load(std::memory_order_relaxed);
}

ndksim_adapter_stats adapter_snapshot(ndksim_adapter& a) {
    ndksim_adapter_stats s{};
    s.size = sizeof(s);
    nic::engine& e = *a.engine;
    s.qp_count = static_cast<ULONG>(e.stats().qps().size());
    s.now_ps = a.dev.sched().now();
    fill_ops(e.stats().totals().snapshot(), s.ops);
    const nic::engine_counters& c = e.counters();
    s.packets_sent = load(c.packets_sent);
    s.packets_received = load(c.packets_received);
    s.acks_sent = load(c.acks_sent);
    s.naks_sent = load(c.naks_sent);
    s.rnr_naks_sent = load(c.rnr_naks_sent);
    s.rnr_retries = load(c.rnr_retries);
    s.retransmitted_packets = load(c.retransmitted_packets);
    s.duplicate_packets = load(c.duplicate_packets);
    s.out_of_sequence_packets = load(c.out_of_sequence_packets);
    s.protocol_errors = load(c.protocol_errors);
    for (const auto& b : c.bad_frames) {
        s.bad_frames += load(b);
    }
    s.frames_for_unknown_qp = load(c.frames_for_unknown_qp);
    s.frames_for_unconnected_qp = load(c.frames_for_unconnected_qp);
    s.cm_messages_sent = load(c.cm_messages_sent);
    s.cm_messages_received = load(c.cm_messages_received);
    s.cm_bad_messages = load(c.cm_bad_messages);
    if (a.link.base != nullptr) {
        const wire::link_counters& l = a.link.base->counters();
        s.link_frames_sent = load(l.frames_sent);
        s.link_frames_received = load(l.frames_received);
        s.link_bytes_sent = load(l.bytes_sent);
        s.link_frames_unroutable = load(l.frames_unroutable);
    }
    const mem::cache_counters cache = a.dev.memory().cache_stats();
    s.translation_cache_hits = cache.hits;
    s.translation_cache_misses = cache.misses;
    s.translation_cache_stale_hits = cache.stale_hits;
    s.ack_timeouts = load(c.ack_timeouts);
    s.retries_exhausted = load(c.retries_exhausted);
    s.acks_coalesced = load(c.acks_coalesced);
    s.stale_responses = load(c.stale_responses);
    s.connections_aborted = load(c.connections_aborted);
    if (a.link.faults != nullptr) {
        const wire::fault_counters& f = a.link.faults->faults();
        s.fault_dropped = load(f.dropped);
        s.fault_duplicated = load(f.duplicated);
        s.fault_reordered = load(f.reordered);
        s.fault_corrupted = load(f.corrupted);
        s.fault_delayed = load(f.delayed);
        s.cut_frames_sent = load(f.cut_sent);
        s.cut_frames_received = load(f.cut_received);
    }
    // Only the UDP and TCP transports have sockets; the in-process link leaves these at 0.
    if (const auto* sockets = dynamic_cast<const wire::socket_transport*>(a.link.base)) {
        const wire::socket_counters& k = sockets->socket_stats();
        s.socket_bad_frames = load(k.bad_frames);
        s.socket_bad_records = load(k.bad_records);
        s.socket_frames_dropped = load(k.frames_dropped);
        s.socket_send_errors = load(k.send_errors);
        s.socket_receive_errors = load(k.receive_errors);
        s.socket_connections_opened = load(k.connections_opened);
        s.socket_connections_accepted = load(k.connections_accepted);
        s.socket_departures_refused = load(k.departures_refused);
        s.socket_receive_overruns = load(k.receive_overruns);
        s.socket_backlog_dropped = load(k.backlog_dropped);
    }
    s.qp_context_cache_hits = e.qp_contexts().hits();
    s.qp_context_cache_misses = e.qp_contexts().misses();
    s.pkey_violations = load(c.pkey_violations);
    const mem::unit_footprint fp = a.dev.memory().footprint();
    s.memory_entries = fp.entries;
    s.memory_entry_bytes = fp.entry_bytes;
    s.memory_mapped_pages = fp.mapped_pages;
    s.memory_page_bytes = fp.page_bytes;
    return s;
}

ndksim_qp_stats qp_snapshot(const nic::qp_stats& q) {
    ndksim_qp_stats s{};
    s.size = sizeof(s);
    s.qp_number = q.qpn;
    fill_ops(q.ops.snapshot(), s.ops);
    return s;
}

// Copies `full` into the caller's struct of `*size_field` bytes (version negotiation: a newer
// caller gets the fields this library knows, and the size it filled).
template <class T>
NTSTATUS deliver(const T& full, T* out, ULONG v1_size, const char* fn) {
    if (out->size < v1_size) {
        NDKSIM_ERROR(
            "{}: stats->size is {}, below the {} bytes of this struct's first version; "
            "set it to sizeof the struct",
            fn, out->size, v1_size);
        return STATUS_INVALID_PARAMETER;
    }
    const ULONG filled = std::min<ULONG>(out->size, sizeof(T));
    std::memcpy(reinterpret_cast<char*>(out) + sizeof(ULONG),
                reinterpret_cast<const char*>(&full) + sizeof(ULONG), filled - sizeof(ULONG));
    out->size = filled;
    return STATUS_SUCCESS;
}

nlohmann::json op_json(const ndksim_op_stats& o) {
    nlohmann::json buckets = nlohmann::json::array();
    for (std::size_t b = 0; b < NDKSIM_LATENCY_BUCKETS; ++b) {
        if (o.latency_buckets[b] != 0) {
            // Upper bound of the bucket; the last one is open-ended.
            const std::uint64_t upper = std::uint64_t{1} << b;
            nlohmann::json entry{{"lt_ns", upper}, {"count", o.latency_buckets[b]}};
            if (b + 1 == NDKSIM_LATENCY_BUCKETS) {
                entry["lt_ns"] = nullptr;
            }
            buckets.push_back(std::move(entry));
        }
    }
    const double count = static_cast<double>(o.latency_count);
    return {{"completed", o.completed},
            {"errors", o.errors},
            {"bytes", o.bytes},
            {"latency_ns",
             {{"count", o.latency_count},
              {"min", static_cast<double>(o.latency_min_ps) / 1000.0},
              {"max", static_cast<double>(o.latency_max_ps) / 1000.0},
              {"mean", count == 0 ? 0.0 : static_cast<double>(o.latency_sum_ps) / 1000.0 / count},
              {"p50", ndksim_latency_percentile_ns(&o, 0.5)},
              {"p99", ndksim_latency_percentile_ns(&o, 0.99)},
              {"buckets", std::move(buckets)}}}};
}

nlohmann::json ops_json(const ndksim_op_stats (&ops)[NDKSIM_STATS_OP_COUNT]) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = 0; i < NDKSIM_STATS_OP_COUNT; ++i) {
        j[k_op_names[i]] = op_json(ops[i]);
    }
    return j;
}

std::string stats_document(ndksim_adapter& a) {
    const ndksim_adapter_stats s = adapter_snapshot(a);
    const nic::engine_counters& c = a.engine->counters();
    nlohmann::json bad = nlohmann::json::object();
    for (std::size_t i = 0; i < wire::decode_error_count; ++i) {
        const auto cause = static_cast<wire::decode_error>(i);
        if (cause != wire::decode_error::none) {  // "none" is the decoder's success value
            bad[std::string(wire::decode_error_name(cause))] = load(c.bad_frames[i]);
        }
    }
    nlohmann::json qps = nlohmann::json::array();
    for (const auto& q : a.engine->stats().qps()) {
        const ndksim_qp_stats qs = qp_snapshot(*q);
        qps.push_back({{"qp_number", qs.qp_number}, {"operations", ops_json(qs.ops)}});
    }
    nlohmann::json doc{{"schema", "ndksim.adapter_stats/1"},
                       {"adapter", a.dev.name()},
                       {"address", a.dev.config().address},
                       {"now_ps", s.now_ps},
                       {"operations", ops_json(s.ops)},
                       {"packets",
                        {{"sent", s.packets_sent},
                         {"received", s.packets_received},
                         {"acks_sent", s.acks_sent},
                         {"naks_sent", s.naks_sent},
                         {"rnr_naks_sent", s.rnr_naks_sent},
                         {"rnr_retries", s.rnr_retries},
                         {"retransmitted", s.retransmitted_packets},
                         {"duplicates", s.duplicate_packets},
                         {"out_of_sequence", s.out_of_sequence_packets},
                         {"protocol_errors", s.protocol_errors}}},
                       {"drops",
                        {{"bad_frames", s.bad_frames},
                         {"bad_frames_by_cause", std::move(bad)},
                         {"unknown_qp", s.frames_for_unknown_qp},
                         {"unconnected_qp", s.frames_for_unconnected_qp},
                         {"pkey_violations", s.pkey_violations},
                         {"unroutable", s.link_frames_unroutable}}},
                       {"cm",
                        {{"sent", s.cm_messages_sent},
                         {"received", s.cm_messages_received},
                         {"bad", s.cm_bad_messages}}},
                       {"link",
                        {{"frames_sent", s.link_frames_sent},
                         {"frames_received", s.link_frames_received},
                         {"bytes_sent", s.link_bytes_sent}}},
                       {"translation_cache",
                        {{"hits", s.translation_cache_hits},
                         {"misses", s.translation_cache_misses},
                         {"stale_hits", s.translation_cache_stale_hits}}},
                       {"qp_context_cache",
                        {{"hits", s.qp_context_cache_hits}, {"misses", s.qp_context_cache_misses}}},
                       {"memory",
                        {{"entries", s.memory_entries},
                         {"entry_bytes", s.memory_entry_bytes},
                         {"mapped_pages", s.memory_mapped_pages},
                         {"page_bytes", s.memory_page_bytes}}},
                       {"reliability",
                        {{"ack_timeouts", s.ack_timeouts},
                         {"retries_exhausted", s.retries_exhausted},
                         {"acks_coalesced", s.acks_coalesced},
                         {"stale_responses", s.stale_responses},
                         {"connections_aborted", s.connections_aborted}}},
                       {"faults",
                        {{"dropped", s.fault_dropped},
                         {"duplicated", s.fault_duplicated},
                         {"reordered", s.fault_reordered},
                         {"corrupted", s.fault_corrupted},
                         {"delayed", s.fault_delayed},
                         {"cut_sent", s.cut_frames_sent},
                         {"cut_received", s.cut_frames_received}}},
                       {"sockets",
                        {{"bad_frames", s.socket_bad_frames},
                         {"bad_records", s.socket_bad_records},
                         {"frames_dropped", s.socket_frames_dropped},
                         {"send_errors", s.socket_send_errors},
                         {"receive_errors", s.socket_receive_errors},
                         {"connections_opened", s.socket_connections_opened},
                         {"connections_accepted", s.socket_connections_accepted},
                         {"departures_refused", s.socket_departures_refused},
                         {"receive_overruns", s.socket_receive_overruns},
                         {"backlog_dropped", s.socket_backlog_dropped}}},
                       {"qps", std::move(qps)}};
    if (const timing::sync_domain* d = a.dev.sync()) {
        // The process's sync domain, shared by its synchronized adapters (docs/timing.md).
        const timing::sync_counters sc = d->counters();
        doc["synchronization"] = {{"sync_messages_sent", sc.sync_messages_sent},
                                  {"sync_messages_received", sc.sync_messages_received},
                                  {"horizon_waits", sc.horizon_waits},
                                  {"horizon_violations", sc.horizon_violations},
                                  {"consumer_stalls", sc.consumer_stalls},
                                  {"inexact_steps", sc.inexact_steps},
                                  {"peers", sc.peers},
                                  {"peers_lost", sc.peers_lost},
                                  {"exact", sc.inexact_steps == 0 && sc.horizon_violations == 0}};
    }
    return doc.dump();
}

}  // namespace
}  // namespace ndksim::api

using namespace ndksim;

extern "C" {

NDKSIM_API NTSTATUS ndksim_adapter_get_stats(const ndksim_adapter* adapter,
                                             ndksim_adapter_stats* stats) {
    if (adapter == nullptr || stats == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_get_stats: adapter or stats is NULL");
        return STATUS_INVALID_PARAMETER;
    }
    return api::deliver(api::adapter_snapshot(*const_cast<ndksim_adapter*>(adapter)), stats,
                        api::k_adapter_stats_v1, "ndksim_adapter_get_stats");
}

NDKSIM_API NTSTATUS ndksim_qp_get_stats(NDK_QP* qp, ndksim_qp_stats* stats) {
    if (stats == nullptr) {
        NDKSIM_ERROR("ndksim_qp_get_stats: stats is NULL");
        return STATUS_INVALID_PARAMETER;
    }
    core::qp* q = api::from_ndk<core::qp>(qp, core::object_kind::qp, "ndksim_qp_get_stats");
    if (q == nullptr || q->engine_state() == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const nic::qp_stats* s = nic::context_of(*q).stats.get();
    if (s == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return api::deliver(api::qp_snapshot(*s), stats, api::k_qp_stats_v1, "ndksim_qp_get_stats");
}

NDKSIM_API NTSTATUS ndksim_adapter_get_qp_stats(const ndksim_adapter* adapter, ULONG qp_number,
                                                ndksim_qp_stats* stats) {
    if (adapter == nullptr || stats == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_get_qp_stats: adapter or stats is NULL");
        return STATUS_INVALID_PARAMETER;
    }
    const auto s = adapter->engine->stats().find(qp_number);
    if (s == nullptr) {
        NDKSIM_DEBUG("ndksim_adapter_get_qp_stats: {} has no QP {}", adapter->dev.name(),
                     qp_number);
        return STATUS_INVALID_HANDLE;
    }
    return api::deliver(api::qp_snapshot(*s), stats, api::k_qp_stats_v1,
                        "ndksim_adapter_get_qp_stats");
}

NDKSIM_API double ndksim_latency_percentile_ns(const ndksim_op_stats* stats, double fraction) {
    if (stats == nullptr || stats->latency_count == 0) {
        return 0.0;
    }
    fraction = std::clamp(fraction, 0.0, 1.0);
    const double lo_ns = static_cast<double>(stats->latency_min_ps) / 1000.0;
    const double hi_ns = static_cast<double>(stats->latency_max_ps) / 1000.0;
    // The sample of rank ceil(fraction * count) (at least the first), found by its bucket and
    // placed linearly inside the bucket's range.
    const double rank = std::max(1.0, fraction * static_cast<double>(stats->latency_count));
    double below = 0;
    for (std::size_t b = 0; b < NDKSIM_LATENCY_BUCKETS; ++b) {
        const auto n = static_cast<double>(stats->latency_buckets[b]);
        if (n == 0 || below + n < rank) {
            below += n;
            continue;
        }
        const double from = b == 0 ? 0.0 : static_cast<double>(std::uint64_t{1} << (b - 1));
        const double to = static_cast<double>(std::uint64_t{1} << b);
        const double v = from + (to - from) * (rank - below) / n;
        return std::clamp(v, lo_ns, hi_ns);
    }
    return hi_ns;
}

NDKSIM_API NTSTATUS ndksim_adapter_stats_json(const ndksim_adapter* adapter, char* buffer,
                                              SIZE_T* length) {
    if (adapter == nullptr || length == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_stats_json: adapter or length is NULL");
        return STATUS_INVALID_PARAMETER;
    }
    std::string doc;
    try {
        doc = api::stats_document(*const_cast<ndksim_adapter*>(adapter));
    } catch (const std::exception& e) {
        NDKSIM_ERROR("ndksim_adapter_stats_json: {}", e.what());
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    const SIZE_T needed = doc.size() + 1;
    const SIZE_T room = *length;
    *length = needed;
    if (buffer == nullptr || room < needed) {
        return STATUS_BUFFER_TOO_SMALL;
    }
    std::memcpy(buffer, doc.c_str(), needed);
    return STATUS_SUCCESS;
}

}  // extern "C"
