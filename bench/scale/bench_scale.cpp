// SPDX-License-Identifier: MIT
// Scale: what many objects cost the host. Two adapters of one process on a deterministic loop,
// N connected QP pairs (one per connector, all on one CQ per side) and M normally registered
// MRs on each adapter, every MR one 4 KiB page (the same page: registrations are counted and
// translated one by one, while the bytes moved stay in one host page, so a configuration
// differs from another only in the simulator's own tables). Through the public NDK API:
//
//   BM_ScaleWrite/qps/mrs/batch   64-byte RDMA writes, `batch` posted before the loop runs;
//                                 op k goes out on QP k mod N, gathers from a local MR and
//                                 lands in a remote MR both drawn at random among the M (a
//                                 fixed seed), so every write walks cold object and
//                                 translation entries once N and M are large. Time per
//                                 iteration / batch is the host cost of one write; compare the
//                                 rows of one run (10,000 QPs + 1,000,000 MRs against 1 + 1).
//   BM_CreateMrs/count            NdkCreateMr + NdkRegisterMr of `count` MRs on one adapter,
//                                 one iteration: the time of the whole creation.
//
// Counters: items_per_second (host writes per second), sim_ns_per_op (the modelled time of a
// write, which grows with the model's QP context and translation cache misses: that is the
// model, not host cost), meta_B_per_page
// (the memory unit's translation bytes per mapped page), entry_B (its token-table bytes per
// live entry), us_per_mr and seconds (creation).

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>

#include "common/ndk_bench.hpp"

namespace {

constexpr ULONG k_page = 4096;
constexpr ULONG k_write_bytes = 64;
constexpr std::size_t k_schedule = 1U << 16;  // planned writes, replayed in a cycle

using ndksim::bench::drain;
using ndksim::bench::ok;
using ndksim::bench::on_close;
using ndksim::bench::on_connect;
using ndksim::bench::on_cq;
using ndksim::bench::on_create;
using ndksim::bench::on_request;

SOCKADDR_IN ipv4(unsigned char last, USHORT port) {
    return ndksim::bench::ipv4(8, last, port);
}

// A deterministic draw (splitmix64), so every run plans the same writes.
std::uint64_t draw(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// One adapter: a PD, a CQ, its QPs and its MRs, all MRs over one page.
struct side {
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* a = nullptr;
    NDK_PD* pd = nullptr;
    NDK_CQ* cq = nullptr;
    std::byte* page = nullptr;
    MDL* mdl = nullptr;
    std::vector<NDK_QP*> qps;
    std::vector<NDK_CONNECTOR*> conns;
    std::vector<NDK_MR*> mrs;
    std::vector<UINT32> tokens;

    side(ndksim_loop* loop, const char* address, ULONG cq_depth) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.loop = loop;
        c.address = address;
        ok(ndksim_adapter_create(&c, &nic), "adapter");
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        ok(ndksim_open_ndk_adapter(nic, &p, &a), "open");
        NDK_OBJECT_HEADER* o = nullptr;
        ok(a->Dispatch->NdkCreatePd(a, on_create, &o, &pd), "pd");
        ok(a->Dispatch->NdkCreateCq(a, cq_depth, on_cq, nullptr, nullptr, on_create, &o, &cq),
           "cq");
        page = static_cast<std::byte*>(std::aligned_alloc(k_page, k_page));
        std::memset(page, 0, k_page);
        mdl = IoAllocateMdl(page, k_page, FALSE, FALSE, nullptr);
        MmBuildMdlForNonPagedPool(mdl);
    }

    void add_qps(std::size_t n, ULONG depth) {
        qps.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            NDK_OBJECT_HEADER* o = nullptr;
            NDK_QP* qp = nullptr;
            ok(pd->Dispatch->NdkCreateQp(pd, cq, cq, nullptr, 1, depth, 1, 1, 0, on_create, &o,
                                         &qp),
               "qp");
            qps.push_back(qp);
        }
    }

    void add_mrs(std::size_t n) {
        mrs.reserve(mrs.size() + n);
        tokens.reserve(tokens.size() + n);
        for (std::size_t i = 0; i < n; ++i) {
            NDK_OBJECT_HEADER* o = nullptr;
            NDK_MR* mr = nullptr;
            ok(pd->Dispatch->NdkCreateMr(pd, FALSE, on_create, &o, &mr), "mr");
            NTSTATUS r = STATUS_PENDING;
            ok(mr->Dispatch->NdkRegisterMr(
                   mr, mdl, k_page, NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                   on_request, &r),
               "register");
            mrs.push_back(mr);
            tokens.push_back(mr->Dispatch->NdkGetRemoteTokenFromMr(mr));
        }
    }

    void close_mrs(ndksim_loop* loop) {
        for (NDK_MR* mr : mrs) {
            NTSTATUS r = STATUS_PENDING;
            mr->Dispatch->NdkDeregisterMr(mr, on_request, &r);
            mr->Dispatch->NdkCloseMr(&mr->Header, on_close, nullptr);
        }
        ndksim_loop_run_until_idle(loop);
        mrs.clear();
        tokens.clear();
    }

    void close(ndksim_loop* loop) {
        for (NDK_CONNECTOR* c : conns) {
            c->Dispatch->NdkCloseConnector(&c->Header, on_close, nullptr);
        }
        for (NDK_QP* qp : qps) {
            qp->Dispatch->NdkCloseQp(&qp->Header, on_close, nullptr);
        }
        ndksim_loop_run_until_idle(loop);
        close_mrs(loop);
        cq->Dispatch->NdkCloseCq(&cq->Header, on_close, nullptr);
        pd->Dispatch->NdkClosePd(&pd->Header, on_close, nullptr);
        ndksim_loop_run_until_idle(loop);
        ndksim_close_ndk_adapter(nic, a);
        ndksim_adapter_destroy(nic);
        IoFreeMdl(mdl);
        std::free(page);
    }

    ndksim_adapter_stats stats() const {
        ndksim_adapter_stats s{};
        s.size = sizeof s;
        ok(ndksim_adapter_get_stats(nic, &s), "stats");
        return s;
    }
};

constexpr ULONG k_sq_depth = 16;

// Two adapters with `qps` connected QP pairs and `mrs` MRs on each.
struct fleet {
    // One write, with the tokens looked up when planned: replaying the plan reads it in order,
    // so the benchmark's own cost does not grow with the number of MRs.
    struct planned {
        NDK_QP* qp;
        UINT32 local;
        UINT32 remote;
    };

    ndksim_loop* loop = nullptr;
    std::unique_ptr<side> s[2];
    NDK_LISTENER* listener = nullptr;
    std::vector<planned> schedule;
    std::size_t next = 0;
    std::size_t qp_count;
    std::size_t mr_count;

    fleet(std::size_t qps, std::size_t mrs) : qp_count(qps), mr_count(mrs) {
        ok(ndksim_loop_create(&loop), "loop");
        s[0] = std::make_unique<side>(loop, "10.8.0.1", 4096);
        s[1] = std::make_unique<side>(loop, "10.8.0.2", 4096);
        for (auto& x : s) {
            x->add_qps(qps, k_sq_depth);
            x->add_mrs(mrs);
        }
        connect_all();
        std::uint64_t seed = 12;
        schedule.resize(k_schedule);
        for (std::size_t k = 0; k < k_schedule; ++k) {
            const std::uint64_t local = draw(seed) % mrs;
            const std::uint64_t remote = draw(seed) % mrs;
            schedule[k] = planned{s[0]->qps[k % qps], s[0]->tokens[local], s[1]->tokens[remote]};
        }
    }

    ~fleet() {
        listener->Dispatch->NdkCloseListener(&listener->Header, on_close, nullptr);
        ndksim_loop_run_until_idle(loop);
        for (auto& x : s) {
            x->close(loop);
        }
        ndksim_loop_destroy(loop);
    }

    fleet(const fleet&) = delete;
    fleet& operator=(const fleet&) = delete;

    // Connects QP i of side 0 to QP i of side 1, one handshake at a time.
    void connect_all() {
        side& a = *s[0];
        side& b = *s[1];
        NDK_CONNECTOR* incoming = nullptr;
        NDK_OBJECT_HEADER* o = nullptr;
        ok(b.a->Dispatch->NdkCreateListener(b.a, on_connect, &incoming, on_create, &o, &listener),
           "listener");
        SOCKADDR_IN at = ipv4(2, 7000);
        NTSTATUS r = STATUS_PENDING;
        ok(listener->Dispatch->NdkListen(listener, reinterpret_cast<PSOCKADDR>(&at), sizeof at,
                                         on_request, &r),
           "listen");
        SOCKADDR_IN src = ipv4(1, 0);
        for (std::size_t i = 0; i < a.qps.size(); ++i) {
            NDK_CONNECTOR* conn = nullptr;
            ok(a.a->Dispatch->NdkCreateConnector(a.a, on_create, &o, &conn), "connector");
            NTSTATUS connected = STATUS_PENDING;
            incoming = nullptr;
            ok(conn->Dispatch->NdkConnect(conn, a.qps[i], reinterpret_cast<PSOCKADDR>(&src),
                                          sizeof src, reinterpret_cast<PSOCKADDR>(&at), sizeof at,
                                          0, 0, nullptr, 0, on_request, &connected),
               "connect");
            // Run only until each step's event: running the loop dry would also run the
            // connection manager's timeout (one simulated second) before Accept.
            while (incoming == nullptr && ndksim_loop_run_one(loop) != FALSE) {
            }
            NTSTATUS accepted = STATUS_PENDING;
            ok(incoming->Dispatch->NdkAccept(incoming, b.qps[i], 0, 0, nullptr, 0, nullptr, nullptr,
                                             on_request, &accepted),
               "accept");
            while (connected == STATUS_PENDING && ndksim_loop_run_one(loop) != FALSE) {
            }
            NTSTATUS completed = STATUS_PENDING;
            ok(conn->Dispatch->NdkCompleteConnect(conn, nullptr, nullptr, on_request, &completed),
               "complete");
            while ((accepted == STATUS_PENDING || completed == STATUS_PENDING) &&
                   ndksim_loop_run_one(loop) != FALSE) {
            }
            if (accepted != STATUS_SUCCESS || completed != STATUS_SUCCESS) {
                throw std::runtime_error("handshake " + std::to_string(i) + " failed");
            }
            a.conns.push_back(conn);
            b.conns.push_back(incoming);
        }
        ndksim_loop_run_until_idle(loop);
    }

    // Posts `count` planned writes and runs the loop until all have completed; returns the
    // simulated time it took [ps]. Not inlined, so that a profile can collect inside it alone
    // (valgrind --toggle-collect='*write_batch*').
    [[gnu::noinline]] ULONG64 write_batch(int count) {
        side& a = *s[0];
        side& b = *s[1];
        const ULONG64 start = ndksim_loop_now(loop);
        for (int i = 0; i < count; ++i) {
            const planned& p = schedule[next];
            next = (next + 1) % k_schedule;
            NDK_SGE sge{};
            sge.VirtualAddress = a.page;
            sge.Length = k_write_bytes;
            sge.MemoryRegionToken = p.local;
            ok(p.qp->Dispatch->NdkWrite(p.qp, nullptr, &sge, 1, reinterpret_cast<UINT64>(b.page),
                                        p.remote, 0),
               "write");
        }
        drain(a.cq, loop, count);
        return ndksim_loop_now(loop) - start;
    }
};

// The memory unit's footprint counters of a side, as benchmark counters.
void report_memory(benchmark::State& state, const side& x) {
    const ndksim_adapter_stats st = x.stats();
    const double pages = static_cast<double>(st.memory_mapped_pages);
    const double entries = static_cast<double>(st.memory_entries);
    state.counters["mapped_pages"] = benchmark::Counter(pages);
    state.counters["meta_B_per_page"] =
        benchmark::Counter(pages == 0 ? 0.0 : static_cast<double>(st.memory_page_bytes) / pages);
    state.counters["entry_B"] = benchmark::Counter(
        entries == 0 ? 0.0 : static_cast<double>(st.memory_entry_bytes) / entries);
}

// Building 10,000 connections and 2,000,000 registrations takes a while: a configuration is
// built once and kept while consecutive runs use it.
std::unique_ptr<fleet> g_fleet;

fleet& fleet_for(std::size_t qps, std::size_t mrs) {
    if (!g_fleet || g_fleet->qp_count != qps || g_fleet->mr_count != mrs) {
        g_fleet.reset();
        g_fleet = std::make_unique<fleet>(qps, mrs);
    }
    return *g_fleet;
}

void BM_ScaleWrite(benchmark::State& state) {
    const auto qps = static_cast<std::size_t>(state.range(0));
    const auto mrs = static_cast<std::size_t>(state.range(1));
    const auto batch = static_cast<int>(state.range(2));
    fleet& f = fleet_for(qps, mrs);
    ULONG64 simulated = 0;
    std::int64_t ops = 0;
    for (auto _ : state) {
        simulated += f.write_batch(batch);
        ops += batch;
    }
    state.SetItemsProcessed(ops);
    state.counters["sim_ns_per_op"] =
        benchmark::Counter(static_cast<double>(simulated) / 1000.0 / static_cast<double>(ops));
    report_memory(state, *f.s[1]);
}

void scale_args(benchmark::internal::Benchmark* b) {
    for (const std::int64_t batch : {1, 16}) {
        b->Args({1, 1, batch});
        b->Args({10000, 1, batch});
        b->Args({1, 1000000, batch});
        b->Args({10000, 1000000, batch});
    }
    b->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_ScaleWrite)->Apply(scale_args);

void BM_CreateMrs(benchmark::State& state) {
    g_fleet.reset();
    const auto count = static_cast<std::size_t>(state.range(0));
    ndksim_loop* loop = nullptr;
    ok(ndksim_loop_create(&loop), "loop");
    side x(loop, "10.8.0.3", 16);
    double seconds = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        x.add_mrs(count);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        state.PauseTiming();
        report_memory(state, x);
        x.close_mrs(loop);
        state.ResumeTiming();
    }
    const auto created = static_cast<double>(count) * static_cast<double>(state.iterations());
    state.counters["seconds"] = benchmark::Counter(seconds);
    state.counters["us_per_mr"] = benchmark::Counter(seconds * 1e6 / created);
    state.SetItemsProcessed(static_cast<std::int64_t>(created));
    x.close(loop);
    ndksim_loop_destroy(loop);
}
BENCHMARK(BM_CreateMrs)->Arg(1000)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

// BENCHMARK_MAIN, and the last configuration closed before the library's own statics go.
int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    g_fleet.reset();
    benchmark::Shutdown();
    return 0;
}
