// SPDX-License-Identifier: MIT
// The statistics entry points of ndksim.h: snapshots of the engine's counters as C structs,
// and the same counters as one JSON document (docs/statistics.md).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "core/qp.hpp"
#include "ndksim.h"
#include "nic/qp_context.hpp"
#include "nic/stats_registry.hpp"
#include "timing/sync_domain.hpp"
#include "util/log.hpp"

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
// version 3 the refused departures and the receive overruns, version 4 the hostile-input drops.
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

// Where each counter field of ndksim_adapter_stats is read from: its path in the adapter's
// statistics registry (the statistics document's key).
using adapter_field = ULONG64 ndksim_adapter_stats::*;
constexpr std::pair<adapter_field, const char*> k_adapter_fields[] = {
    {&ndksim_adapter_stats::packets_sent, "packets.sent"},
    {&ndksim_adapter_stats::packets_received, "packets.received"},
    {&ndksim_adapter_stats::acks_sent, "packets.acks_sent"},
    {&ndksim_adapter_stats::naks_sent, "packets.naks_sent"},
    {&ndksim_adapter_stats::rnr_naks_sent, "packets.rnr_naks_sent"},
    {&ndksim_adapter_stats::rnr_retries, "packets.rnr_retries"},
    {&ndksim_adapter_stats::retransmitted_packets, "packets.retransmitted"},
    {&ndksim_adapter_stats::duplicate_packets, "packets.duplicates"},
    {&ndksim_adapter_stats::out_of_sequence_packets, "packets.out_of_sequence"},
    {&ndksim_adapter_stats::protocol_errors, "packets.protocol_errors"},
    {&ndksim_adapter_stats::bad_frames, "drops.bad_frames"},
    {&ndksim_adapter_stats::frames_for_unknown_qp, "drops.unknown_qp"},
    {&ndksim_adapter_stats::frames_for_unconnected_qp, "drops.unconnected_qp"},
    {&ndksim_adapter_stats::cm_messages_sent, "cm.sent"},
    {&ndksim_adapter_stats::cm_messages_received, "cm.received"},
    {&ndksim_adapter_stats::cm_bad_messages, "cm.bad"},
    {&ndksim_adapter_stats::link_frames_sent, "link.frames_sent"},
    {&ndksim_adapter_stats::link_frames_received, "link.frames_received"},
    {&ndksim_adapter_stats::link_bytes_sent, "link.bytes_sent"},
    {&ndksim_adapter_stats::link_frames_unroutable, "drops.unroutable"},
    {&ndksim_adapter_stats::translation_cache_hits, "translation_cache.hits"},
    {&ndksim_adapter_stats::translation_cache_misses, "translation_cache.misses"},
    {&ndksim_adapter_stats::translation_cache_stale_hits, "translation_cache.stale_hits"},
    {&ndksim_adapter_stats::ack_timeouts, "reliability.ack_timeouts"},
    {&ndksim_adapter_stats::retries_exhausted, "reliability.retries_exhausted"},
    {&ndksim_adapter_stats::acks_coalesced, "reliability.acks_coalesced"},
    {&ndksim_adapter_stats::stale_responses, "reliability.stale_responses"},
    {&ndksim_adapter_stats::connections_aborted, "reliability.connections_aborted"},
    {&ndksim_adapter_stats::fault_dropped, "faults.dropped"},
    {&ndksim_adapter_stats::fault_duplicated, "faults.duplicated"},
    {&ndksim_adapter_stats::fault_reordered, "faults.reordered"},
    {&ndksim_adapter_stats::fault_corrupted, "faults.corrupted"},
    {&ndksim_adapter_stats::fault_delayed, "faults.delayed"},
    {&ndksim_adapter_stats::cut_frames_sent, "faults.cut_sent"},
    {&ndksim_adapter_stats::cut_frames_received, "faults.cut_received"},
    {&ndksim_adapter_stats::socket_bad_frames, "sockets.bad_frames"},
    {&ndksim_adapter_stats::socket_bad_records, "sockets.bad_records"},
    {&ndksim_adapter_stats::socket_frames_dropped, "sockets.frames_dropped"},
    {&ndksim_adapter_stats::socket_send_errors, "sockets.send_errors"},
    {&ndksim_adapter_stats::socket_receive_errors, "sockets.receive_errors"},
    {&ndksim_adapter_stats::socket_connections_opened, "sockets.connections_opened"},
    {&ndksim_adapter_stats::socket_connections_accepted, "sockets.connections_accepted"},
    {&ndksim_adapter_stats::socket_departures_refused, "sockets.departures_refused"},
    {&ndksim_adapter_stats::socket_receive_overruns, "sockets.receive_overruns"},
    {&ndksim_adapter_stats::socket_backlog_dropped, "sockets.backlog_dropped"},
    {&ndksim_adapter_stats::qp_context_cache_hits, "qp_context_cache.hits"},
    {&ndksim_adapter_stats::qp_context_cache_misses, "qp_context_cache.misses"},
    {&ndksim_adapter_stats::pkey_violations, "drops.pkey_violations"},
};

ndksim_adapter_stats adapter_snapshot(ndksim_adapter& a) {
    ndksim_adapter_stats s{};
    s.size = sizeof(s);
    const nic::stats_registry& stats = a.engine->stats();
    s.qp_count = static_cast<ULONG>(stats.qps().size());
    s.now_ps = a.dev.sched().now();
    fill_ops(stats.totals().snapshot(), s.ops);
    for (const auto& [field, path] : k_adapter_fields) {
        s.*field = stats.counter(path);
    }
    // The memory unit's footprint is a state, not a counter: read when asked.
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
    nlohmann::json qps = nlohmann::json::array();
    for (const auto& q : a.engine->stats().qps()) {
        const ndksim_qp_stats qs = qp_snapshot(*q);
        qps.push_back({{"qp_number", qs.qp_number}, {"operations", ops_json(qs.ops)}});
    }
    nlohmann::json doc{{"schema", "ndksim.adapter_stats/1"}, {"adapter", a.dev.name()},
                       {"address", a.dev.config().address},  {"now_ps", s.now_ps},
                       {"operations", ops_json(s.ops)},      {"qps", std::move(qps)}};
    // Every named counter at its path: "packets.sent" is doc["packets"]["sent"].
    for (const nic::counter_value& c : a.engine->stats().counters()) {
        std::string pointer = "/" + c.path;
        std::replace(pointer.begin(), pointer.end(), '.', '/');
        doc[nlohmann::json::json_pointer(pointer)] = c.value;
    }
    doc["memory"] = {{"entries", s.memory_entries},
                     {"entry_bytes", s.memory_entry_bytes},
                     {"mapped_pages", s.memory_mapped_pages},
                     {"page_bytes", s.memory_page_bytes}};
    if (const timing::sync_domain* d = a.dev.sync()) {
        // The process's sync domain, shared by its synchronized adapters (docs/timing.md).
        const timing::sync_counters sc = d->counters();
        doc["synchronization"] = {
            {"sync_messages_sent", sc.sync_messages_sent},
            {"sync_messages_received", sc.sync_messages_received},
            {"horizon_waits", sc.horizon_waits},
            {"horizon_violations", sc.horizon_violations},
            {"consumer_stalls", sc.consumer_stalls},
            {"inexact_steps", sc.inexact_steps},
            {"peers", sc.peers},
            {"peers_lost", sc.peers_lost},
            {"late_frames", sc.late_frames},
            {"deferred_posts", sc.deferred_posts},
            {"exact", sc.inexact_steps == 0 && sc.horizon_violations == 0 && sc.late_frames == 0}};
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
