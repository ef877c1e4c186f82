// SPDX-License-Identifier: MIT
// Statistics of ndksim.h between two connected adapters in deterministic mode: exact operation
// counts, bytes and latency sample counts after known traffic; the per-QP views; the JSON
// document and its buffer negotiation; the statuses of bad calls.

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

class Stats : public RcPair {
  protected:
    static ndksim_adapter_stats adapter_stats(ndksim_adapter* nic) {
        ndksim_adapter_stats s{};
        s.size = sizeof(s);
        EXPECT_NT_SUCCESS(ndksim_adapter_get_stats(nic, &s));
        return s;
    }
    static ndksim_qp_stats qp_stats(NDK_QP* qp) {
        ndksim_qp_stats s{};
        s.size = sizeof(s);
        EXPECT_NT_SUCCESS(ndksim_qp_get_stats(qp, &s));
        return s;
    }
    // `n` writes of `size` bytes from a to b, each completed before the next is posted.
    void writes(int n, ULONG size) {
        for (int i = 0; i < n; ++i) {
            NDK_SGE sge = a_.buf.sge(0, size);
            ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                        b_.buf.remote_token, 0));
            ASSERT_NT_SUCCESS(next(a_.cq).Status);
        }
    }
    static std::string json_of(ndksim_adapter* nic) {
        SIZE_T length = 0;
        EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL, ndksim_adapter_stats_json(nic, nullptr, &length));
        std::string text(length, '\0');
        EXPECT_NT_SUCCESS(ndksim_adapter_stats_json(nic, text.data(), &length));
        EXPECT_EQ(text.size(), length);
        EXPECT_EQ('\0', text.back());
        text.pop_back();
        return text;
    }
};

TEST_F(Stats, WritesCountOperationsBytesAndLatencySamplesExactly) {
    constexpr int n = 20;
    constexpr ULONG size = 10000;  // three packets at MTU 4096
    writes(n, size);
    const ndksim_adapter_stats a = adapter_stats(a_.nic);
    const ndksim_op_stats& w = a.ops[NDKSIM_STATS_WRITE];
    EXPECT_EQ(n, w.completed);
    EXPECT_EQ(0U, w.errors);
    EXPECT_EQ(std::uint64_t{n} * size, w.bytes);
    EXPECT_EQ(n, w.latency_count);
    std::uint64_t in_buckets = 0;
    for (ULONG64 c : w.latency_buckets) {
        in_buckets += c;
    }
    EXPECT_EQ(n, in_buckets);
    EXPECT_GT(w.latency_min_ps, 0U);
    EXPECT_LE(w.latency_min_ps, w.latency_max_ps);
    EXPECT_GE(w.latency_sum_ps, n * w.latency_min_ps);
    EXPECT_LE(w.latency_sum_ps, n * w.latency_max_ps);
    const double p50 = ndksim_latency_percentile_ns(&w, 0.5);
    const double p99 = ndksim_latency_percentile_ns(&w, 0.99);
    EXPECT_GE(p50, static_cast<double>(w.latency_min_ps) / 1000.0);
    EXPECT_LE(p50, p99);
    EXPECT_LE(p99, static_cast<double>(w.latency_max_ps) / 1000.0);
    // Nothing else ran on a; b only responded.
    for (int op = 0; op < NDKSIM_STATS_OP_COUNT; ++op) {
        if (op != NDKSIM_STATS_WRITE) {
            EXPECT_EQ(0U, a.ops[op].completed) << "op " << op;
        }
    }
    const ndksim_adapter_stats b = adapter_stats(b_.nic);
    EXPECT_EQ(0U, b.ops[NDKSIM_STATS_WRITE].completed);
    EXPECT_EQ(0U, b.ops[NDKSIM_STATS_RECEIVE].completed);
    // Three request packets per write went out from a, and b acknowledged them.
    EXPECT_GE(a.packets_sent, std::uint64_t{n} * 3);
    EXPECT_GE(b.packets_received, std::uint64_t{n} * 3);
    EXPECT_GT(b.acks_sent, 0U);
    EXPECT_EQ(0U, a.retransmitted_packets);
    EXPECT_EQ(0U, a.bad_frames);
    EXPECT_GT(b.translation_cache_hits + b.translation_cache_misses, 0U);
    EXPECT_EQ(0U, b.translation_cache_stale_hits);
    EXPECT_GT(a.link_bytes_sent, std::uint64_t{n} * size);
    EXPECT_EQ(ndksim_adapter_now(a_.nic), a.now_ps);
}

TEST_F(Stats, QpStatsMatchByPointerAndByNumber) {
    writes(5, 512);
    const ndksim_qp_stats by_pointer = qp_stats(a_.qp);
    EXPECT_EQ(sizeof(ndksim_qp_stats), by_pointer.size);
    EXPECT_EQ(5U, by_pointer.ops[NDKSIM_STATS_WRITE].completed);
    EXPECT_EQ(5U * 512, by_pointer.ops[NDKSIM_STATS_WRITE].bytes);
    ndksim_qp_stats by_number{};
    by_number.size = sizeof(by_number);
    ASSERT_NT_SUCCESS(ndksim_adapter_get_qp_stats(a_.nic, by_pointer.qp_number, &by_number));
    EXPECT_EQ(0, std::memcmp(&by_pointer, &by_number, sizeof(by_number)));
    EXPECT_EQ(1U, adapter_stats(a_.nic).qp_count);
}

TEST_F(Stats, SendsCountOnBothSidesAndReceivesAreNotTimed) {
    constexpr int n = 4;
    for (int i = 0; i < n; ++i) {
        NDK_SGE rsge = b_.buf.sge(0, 4096);
        ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
        NDK_SGE ssge = a_.buf.sge(0, 300);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
        ASSERT_NT_SUCCESS(next(a_.cq).Status);
        ASSERT_NT_SUCCESS(next(b_.cq).Status);
    }
    const ndksim_op_stats sent = qp_stats(a_.qp).ops[NDKSIM_STATS_SEND];
    EXPECT_EQ(n, sent.completed);
    EXPECT_EQ(n * 300U, sent.bytes);
    EXPECT_EQ(n, sent.latency_count);
    const ndksim_op_stats received = qp_stats(b_.qp).ops[NDKSIM_STATS_RECEIVE];
    EXPECT_EQ(n, received.completed);
    EXPECT_EQ(n * 300U, received.bytes);
    EXPECT_EQ(0U, received.latency_count);
}

TEST_F(Stats, ReadsAndFailuresAreCountedApart) {
    NDK_SGE sge = a_.buf.sge(0, 8192);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                               b_.buf.remote_token, 0));
    ASSERT_NT_SUCCESS(next(a_.cq).Status);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                b_.buf.remote_token ^ 0x100, 0));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, next(a_.cq).Status);
    const ndksim_qp_stats s = qp_stats(a_.qp);
    EXPECT_EQ(1U, s.ops[NDKSIM_STATS_READ].completed);
    EXPECT_EQ(8192U, s.ops[NDKSIM_STATS_READ].bytes);
    EXPECT_EQ(1U, s.ops[NDKSIM_STATS_READ].latency_count);
    EXPECT_EQ(0U, s.ops[NDKSIM_STATS_WRITE].completed);
    EXPECT_EQ(1U, s.ops[NDKSIM_STATS_WRITE].errors);
    EXPECT_EQ(0U, s.ops[NDKSIM_STATS_WRITE].bytes);
    EXPECT_EQ(0U, s.ops[NDKSIM_STATS_WRITE].latency_count);
    EXPECT_GT(adapter_stats(b_.nic).naks_sent, 0U);
}

TEST_F(Stats, JsonHasTheAdapterCountersAndOneEntryPerQp) {
    constexpr int n = 8;
    writes(n, 2048);
    const nlohmann::json j = nlohmann::json::parse(json_of(a_.nic));
    EXPECT_EQ("ndksim.adapter_stats/1", j.at("schema"));
    EXPECT_EQ("10.0.0.1", j.at("address"));
    const nlohmann::json& w = j.at("operations").at("write");
    EXPECT_EQ(n, w.at("completed"));
    EXPECT_EQ(n * 2048, w.at("bytes"));
    EXPECT_EQ(n, w.at("latency_ns").at("count"));
    EXPECT_GT(w.at("latency_ns").at("p50").get<double>(), 0.0);
    EXPECT_GE(w.at("latency_ns").at("p99").get<double>(),
              w.at("latency_ns").at("p50").get<double>());
    std::uint64_t in_buckets = 0;
    for (const auto& b : w.at("latency_ns").at("buckets")) {
        in_buckets += b.at("count").get<std::uint64_t>();
    }
    EXPECT_EQ(n, in_buckets);
    for (const char* key :
         {"send", "receive", "read", "send_invalidate", "bind", "fast_register", "invalidate"}) {
        EXPECT_EQ(0, j.at("operations").at(key).at("completed")) << key;
    }
    for (const char* key : {"packets", "drops", "cm", "link", "translation_cache",
                            "qp_context_cache", "memory", "reliability", "faults", "sockets"}) {
        EXPECT_TRUE(j.at(key).is_object()) << key;
    }
    // The fixture's 256 KiB buffer: 64 registered pages, one entry each for the MR and the PD's
    // privileged token, 8 bytes of page list per page.
    EXPECT_EQ(64, j.at("memory").at("mapped_pages"));
    EXPECT_EQ(2, j.at("memory").at("entries"));
    EXPECT_EQ(64 * 8, j.at("memory").at("page_bytes"));
    EXPECT_EQ(0, j.at("packets").at("retransmitted"));
    EXPECT_EQ(0, j.at("drops").at("bad_frames"));
    ASSERT_EQ(1U, j.at("qps").size());
    EXPECT_EQ(qp_stats(a_.qp).qp_number, j.at("qps")[0].at("qp_number"));
    EXPECT_EQ(n, j.at("qps")[0].at("operations").at("write").at("completed"));
}

// The document's counter keys are docs/statistics.md's schema, on every wire: a layer the
// adapter lacks (the sockets of the in-process wire) still lists its counters, at 0.
TEST_F(Stats, JsonListsEveryDocumentedCounter) {
    const nlohmann::json j = nlohmann::json::parse(json_of(a_.nic));
    const std::map<std::string, std::set<std::string>> schema = {
        {"packets",
         {"sent", "received", "acks_sent", "naks_sent", "rnr_naks_sent", "rnr_retries",
          "retransmitted", "duplicates", "out_of_sequence", "protocol_errors"}},
        {"drops",
         {"bad_frames", "bad_frames_by_cause", "unknown_qp", "unconnected_qp", "pkey_violations",
          "unroutable"}},
        {"cm", {"sent", "received", "bad", "resent"}},
        {"link", {"frames_sent", "frames_received", "bytes_sent"}},
        {"translation_cache", {"hits", "misses", "stale_hits"}},
        {"qp_context_cache", {"hits", "misses"}},
        {"memory", {"entries", "entry_bytes", "mapped_pages", "page_bytes"}},
        {"reliability",
         {"ack_timeouts", "retries_exhausted", "acks_coalesced", "stale_responses",
          "connections_aborted", "window_waits"}},
        {"faults",
         {"dropped", "duplicated", "reordered", "corrupted", "delayed", "cut_sent",
          "cut_received"}},
        {"sockets",
         {"bad_frames", "bad_records", "frames_dropped", "send_errors", "receive_errors",
          "connections_opened", "connections_accepted", "departures_refused", "receive_overruns",
          "backlog_dropped", "sync_records_sent", "sync_records_received", "sync_records_refused",
          "frames_to_lost_peers", "reads_paused"}},
    };
    std::set<std::string> top;
    for (const auto& [key, value] : j.items()) {
        top.insert(key);
    }
    std::set<std::string> expected_top = {"schema", "adapter",    "address",
                                          "now_ps", "operations", "qps"};
    for (const auto& [group, keys] : schema) {
        expected_top.insert(group);
        std::set<std::string> got;
        for (const auto& [key, value] : j.at(group).items()) {
            got.insert(key);
        }
        EXPECT_EQ(keys, got) << group;
    }
    EXPECT_EQ(expected_top, top);
    std::set<std::string> causes;
    for (const auto& [key, value] : j.at("drops").at("bad_frames_by_cause").items()) {
        causes.insert(key);
    }
    const std::set<std::string> documented_causes = {"truncated", "bad_version", "bad_opcode",
                                                     "bad_pad",   "bad_length",  "bad_icrc"};
    EXPECT_EQ(documented_causes, causes);
    EXPECT_EQ(0, j.at("sockets").at("send_errors")) << "the in-process wire has no sockets";
}

TEST_F(Stats, JsonNegotiatesTheBufferSize) {
    SIZE_T needed = 0;
    ASSERT_NT_STATUS(STATUS_BUFFER_TOO_SMALL, ndksim_adapter_stats_json(a_.nic, nullptr, &needed));
    ASSERT_GT(needed, 2U);
    std::string small(needed - 1, 'x');
    SIZE_T length = small.size();
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     ndksim_adapter_stats_json(a_.nic, small.data(), &length));
    EXPECT_EQ(needed, length);
    EXPECT_EQ(std::string(needed - 1, 'x'), small);  // untouched
    std::string exact(needed, 'x');
    length = needed;
    EXPECT_NT_SUCCESS(ndksim_adapter_stats_json(a_.nic, exact.data(), &length));
    EXPECT_EQ(needed, length);
    EXPECT_TRUE(nlohmann::json::accept(exact.c_str()));
}

TEST_F(Stats, BadCallsReturnExactStatuses) {
    ndksim_adapter_stats s{};
    s.size = sizeof(s);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_get_stats(nullptr, &s));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_get_stats(a_.nic, nullptr));
    s.size = 4;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_get_stats(a_.nic, &s));
    ndksim_qp_stats q{};
    q.size = sizeof(q);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_qp_get_stats(nullptr, &q));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_qp_get_stats(a_.qp, nullptr));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_qp_get_stats(reinterpret_cast<NDK_QP*>(a_.cq), &q));
    EXPECT_NT_STATUS(STATUS_INVALID_HANDLE, ndksim_adapter_get_qp_stats(a_.nic, 0xABCDEF, &q));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_get_qp_stats(nullptr, 1, &q));
    q.size = sizeof(q) - 1;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_qp_get_stats(a_.qp, &q));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_stats_json(a_.nic, nullptr, nullptr));
    EXPECT_EQ(0.0, ndksim_latency_percentile_ns(nullptr, 0.5));
}

TEST_F(Stats, ALargerStructFromANewerCallerGetsTheKnownFields) {
    struct newer {
        ndksim_adapter_stats v1;
        ULONG64 later_field;
    } s{};
    s.v1.size = sizeof(s);
    s.later_field = 0x1234;
    ASSERT_NT_SUCCESS(ndksim_adapter_get_stats(a_.nic, &s.v1));
    EXPECT_EQ(sizeof(ndksim_adapter_stats), s.v1.size);
    EXPECT_EQ(0x1234U, s.later_field);
}

// A caller compiled against the version of `Size` bytes gets exactly its fields: `size` stays
// as it passed it, and the bytes after the struct it knows are untouched.
template <ULONG Size>
void expect_fields_of_version(ndksim_adapter* nic) {
    struct older_caller {
        char known[Size];
        ULONG64 guard;
    } s{};
    auto* stats = reinterpret_cast<ndksim_adapter_stats*>(&s);
    stats->size = Size;
    s.guard = 0x5A5A;
    ASSERT_NT_SUCCESS(ndksim_adapter_get_stats(nic, stats));
    EXPECT_EQ(Size, stats->size);
    EXPECT_EQ(0x5A5AU, s.guard);
}

TEST_F(Stats, AVersionOneCallerGetsVersionOneFieldsOnly) {
    expect_fields_of_version<NDKSIM_ADAPTER_STATS_V1_SIZE>(a_.nic);
    ndksim_adapter_stats s{};
    s.size = NDKSIM_ADAPTER_STATS_V1_SIZE - 1;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_get_stats(a_.nic, &s));
}

TEST_F(Stats, AVersionThreeCallerGetsVersionThreeFieldsOnly) {
    expect_fields_of_version<NDKSIM_ADAPTER_STATS_V3_SIZE>(a_.nic);
}

TEST_F(Stats, AVersionFourCallerGetsVersionFourFieldsOnly) {
    expect_fields_of_version<NDKSIM_ADAPTER_STATS_V4_SIZE>(a_.nic);
}

TEST_F(Stats, DroppedFramesShowInTheFaultAndReliabilityCounters) {
    ndksim_link_faults faults{};
    faults.drop_ppm = 200'000;  // one frame in five
    faults.seed = 7;
    ASSERT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &faults));
    constexpr int n = 20;
    writes(n, 10000);
    const ndksim_adapter_stats a = adapter_stats(a_.nic);
    EXPECT_EQ(n, a.ops[NDKSIM_STATS_WRITE].completed);
    EXPECT_GT(a.fault_dropped, 0U);
    EXPECT_GT(a.ack_timeouts, 0U);  // a lost request is only noticed by the transport timer
    EXPECT_GT(a.retransmitted_packets, 0U);
    EXPECT_EQ(0U, a.retries_exhausted);
    EXPECT_EQ(0U, a.connections_aborted);
    EXPECT_EQ(0U, a.fault_duplicated + a.fault_reordered + a.fault_corrupted + a.fault_delayed);
    EXPECT_EQ(0U, a.cut_frames_sent + a.cut_frames_received);
    EXPECT_EQ(0U, a.socket_bad_frames + a.socket_send_errors + a.socket_connections_opened);
    const nlohmann::json j = nlohmann::json::parse(json_of(a_.nic));
    EXPECT_EQ(a.fault_dropped, j.at("faults").at("dropped"));
    EXPECT_EQ(a.ack_timeouts, j.at("reliability").at("ack_timeouts"));
    EXPECT_EQ(0, j.at("reliability").at("retries_exhausted"));
    EXPECT_EQ(0, j.at("sockets").at("connections_opened"));
    // b saw the gaps the drops left and answered the duplicates the retries made.
    const ndksim_adapter_stats b = adapter_stats(b_.nic);
    EXPECT_EQ(0U, b.fault_dropped);
    EXPECT_GT(b.out_of_sequence_packets + b.duplicate_packets, 0U);
}

TEST_F(Stats, ACutLinkCountsItsLostFramesAndTheAbortedConnection) {
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(a_.nic, TRUE));
    NDK_SGE sge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, next(a_.cq).Status);
    const ndksim_adapter_stats a = adapter_stats(a_.nic);
    EXPECT_EQ(1U, a.retries_exhausted);
    EXPECT_EQ(1U, a.connections_aborted);
    EXPECT_EQ(7U, a.ack_timeouts);  // retry_limit's default: 7 resends, then the failure
    EXPECT_GT(a.cut_frames_sent, a.ack_timeouts);  // the first send and each resend
    const nlohmann::json j = nlohmann::json::parse(json_of(a_.nic));
    EXPECT_EQ(1, j.at("reliability").at("connections_aborted"));
    EXPECT_EQ(a.cut_frames_sent, j.at("faults").at("cut_sent"));
}

}  // namespace
}  // namespace ndksim::testkit
