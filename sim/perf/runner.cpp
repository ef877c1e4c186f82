#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

namespace ndksim::perf {
namespace {

constexpr std::uint64_t k_inline_limit = 256;  // the QPs' InlineDataSize with --inline

void posted(NTSTATUS s, const char* what) {
    if (s != STATUS_SUCCESS) {
        throw perf_error(std::string(what) + " refused: " + ndksim_status_name(s));
    }
}

}  // namespace

void post(const options& o, endpoint& ep, const side& from, const side& to, std::uint64_t size) {
    NDK_SGE sge = from.sge(0, size);
    const ULONG flags = o.inline_data && size <= k_inline_limit ? NDK_OP_FLAG_INLINE : 0;
    switch (o.test) {
        case test_kind::write:
            posted(ep.qp->Dispatch->NdkWrite(ep.qp, nullptr, &sge, 1, to.address(), to.remote_token,
                                             flags),
                   "NdkWrite");
            break;
        case test_kind::read:
            posted(
                ep.qp->Dispatch->NdkRead(ep.qp, nullptr, &sge, 1, to.address(), to.remote_token, 0),
                "NdkRead");
            break;
        case test_kind::send:
            posted(ep.qp->Dispatch->NdkSend(ep.qp, nullptr, &sge, 1, flags), "NdkSend");
            break;
    }
}

void post_receive(endpoint& ep, const side& s, std::uint64_t size) {
    NDK_SGE sge = s.sge(0, size);
    posted(ep.qp->Dispatch->NdkReceive(ep.qp, nullptr, &sge, 1), "NdkReceive");
}

bool try_post_receive(endpoint& ep, const side& s, std::uint64_t size) {
    NDK_SGE sge = s.sge(0, size);
    const NTSTATUS st = ep.qp->Dispatch->NdkReceive(ep.qp, nullptr, &sge, 1);
    if (st == STATUS_INSUFFICIENT_RESOURCES) {
        return false;
    }
    posted(st, "NdkReceive");
    return true;
}

// Polling the watched byte is how ib_write_lat sees a write arrive. In threaded mode the engine
// thread placed it, ordered before this read only through the link (the adapters' inboxes or
// the sockets), an order ThreadSanitizer cannot see, so the accesses to that byte are not
// instrumented.
NDKSIM_PERF_NO_TSAN std::byte watched(const side& s, std::uint64_t size) {
    return *static_cast<volatile std::byte*>(s.buffer + size - 1);
}

NDKSIM_PERF_NO_TSAN void set_watched(side& s, std::uint64_t size, std::byte tag) {
    *static_cast<volatile std::byte*>(s.buffer + size - 1) = tag;
}

std::byte ping_tag(std::uint32_t iteration, std::size_t qp, std::size_t qps) {
    return static_cast<std::byte>(1 + 2 * ((iteration * qps + qp) % 120));
}

namespace {

// Nearest-rank quantile of sorted samples.
std::uint64_t quantile(const std::vector<std::uint64_t>& sorted, double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// Ping-pong (ib_write_lat, ib_send_lat) or one request at a time (ib_read_lat). When side b
// is in another process (client role), its half of each ping-pong runs there (server.cpp).
void latency_run(rig& r, const options& o, std::uint64_t size, std::vector<std::uint64_t>& samples,
                 const progress_fn& progress) {
    side& a = r.a();
    side& b = r.b();
    const bool here = !r.remote_b();
    const std::size_t qps = a.eps.size();
    for (std::uint32_t i = 0; i < o.iterations; ++i) {
        for (std::size_t j = 0; j < qps; ++j) {
            endpoint& ea = a.eps[j];
            endpoint* eb = here ? &b.eps[j] : nullptr;
            const std::uint64_t t0 = r.now();
            if (o.test == test_kind::write) {
                // Each direction carries a fresh tag in the watched byte.
                const std::byte tag = ping_tag(i, j, qps);
                const auto reply = static_cast<std::byte>(static_cast<unsigned>(tag) + 1);
                set_watched(a, size, tag);
                post(o, ea, a, b, size);
                if (here) {
                    r.wait([&] { return watched(b, size) == tag; }, "the write to land on side b");
                    set_watched(b, size, reply);
                    post(o, *eb, b, a, size);
                }
                r.wait([&] { return watched(a, size) == reply; }, "the write to land on side a");
                samples.push_back((r.now() - t0) / 2);
                r.reap(ea);
                if (here) {
                    r.reap(*eb);
                }
            } else if (o.test == test_kind::send) {
                const std::uint64_t a_got = ea.counts.received;
                // Posting a receive takes no simulated time, so posting both now is the same
                // as pre-posting them, and no receive is left over for the next size. A
                // server keeps its own receive posted ahead.
                if (here) {
                    post_receive(*eb, b, size);
                }
                post_receive(ea, a, size);
                post(o, ea, a, b, size);
                if (here) {
                    const std::uint64_t b_got = eb->counts.received;
                    r.wait(
                        [&] {
                            r.reap(*eb);
                            return eb->counts.received > b_got;
                        },
                        "the send to reach side b");
                    post(o, *eb, b, a, size);
                }
                r.wait(
                    [&] {
                        r.reap(ea);
                        return ea.counts.received > a_got;
                    },
                    "the send to reach side a");
                samples.push_back((r.now() - t0) / 2);
            } else {
                const std::uint64_t done = ea.counts.initiator_done;
                post(o, ea, a, b, size);
                r.wait(
                    [&] {
                        r.reap(ea);
                        return ea.counts.initiator_done > done;
                    },
                    "the read to complete");
                samples.push_back(r.now() - t0);
            }
        }
        progress(static_cast<std::uint64_t>(i + 1) * qps);
    }
}

// Keeps o.outstanding requests posted on every QP until each has done o.iterations.
void bandwidth_run(rig& r, const options& o, std::uint64_t size,
                   std::vector<std::uint64_t>& samples, const progress_fn& progress) {
    side& a = r.a();
    side& b = r.b();
    const std::size_t qps = a.eps.size();
    struct flow {
        std::uint64_t posted = 0;
        std::uint64_t done = 0;
        std::uint64_t base = 0;  // completions of this endpoint before the run
        std::uint64_t receives_posted = 0;
        std::uint64_t received_base = 0;       // receive completions of b's before the run
        std::vector<std::uint64_t> posted_at;  // ring of post times, completion order = post order
    };
    std::vector<flow> flows(qps);
    // The receive queue's depth, but never more than the sends to come: a receive left
    // posted would take a larger message of the next size and overrun.
    const std::uint64_t receives = std::min<std::uint64_t>(o.outstanding + 16, o.iterations);
    for (std::size_t j = 0; j < qps; ++j) {
        flows[j].base = a.eps[j].counts.initiator_done;
        flows[j].received_base = r.remote_b() ? 0 : b.eps[j].counts.received;
        flows[j].posted_at.assign(o.outstanding, 0);
        if (o.test == test_kind::send && !r.remote_b()) {
            for (; flows[j].receives_posted < receives; ++flows[j].receives_posted) {
                post_receive(b.eps[j], b, size);
            }
        }
    }
    std::uint64_t finished = 0;
    const std::uint64_t total = static_cast<std::uint64_t>(o.iterations) * qps;
    while (finished < total) {
        for (std::size_t j = 0; j < qps; ++j) {
            flow& f = flows[j];
            while (f.posted - f.done < o.outstanding && f.posted < o.iterations) {
                f.posted_at[f.posted % o.outstanding] = r.now();
                post(o, a.eps[j], a, b, size);
                ++f.posted;
            }
        }
        // Until a request completes: its QP then takes the next one. Each wait has its own
        // time limit, so a long sweep only fails when the completions stop coming.
        const std::uint64_t before = finished;
        r.wait(
            [&] {
                for (std::size_t j = 0; j < qps; ++j) {
                    flow& f = flows[j];
                    r.reap(a.eps[j]);
                    const std::uint64_t done = a.eps[j].counts.initiator_done - f.base;
                    const std::uint64_t now = r.now();
                    for (; f.done < done; ++f.done, ++finished) {
                        samples.push_back(now - f.posted_at[f.done % o.outstanding]);
                    }
                    if (o.test == test_kind::send && !r.remote_b()) {
                        r.reap(b.eps[j]);
                        const std::uint64_t got = b.eps[j].counts.received - f.received_base;
                        while (f.receives_posted < o.iterations &&
                               f.receives_posted - got < receives &&
                               try_post_receive(b.eps[j], b, size)) {
                            ++f.receives_posted;
                        }
                    }
                }
                return finished > before;
            },
            "completions");
        progress(finished);
    }
}

}  // namespace

size_result run_size(rig& r, const options& o, std::uint64_t size, const progress_fn& progress) {
    std::vector<std::uint64_t> samples;
    samples.reserve(static_cast<std::size_t>(o.iterations) * r.a().eps.size());
    const auto wall0 = std::chrono::steady_clock::now();
    const std::uint64_t t0 = r.now();
    if (o.mode == run_mode::lat) {
        latency_run(r, o, size, samples, progress);
    } else {
        bandwidth_run(r, o, size, samples, progress);
    }
    const std::uint64_t t1 = r.now();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    size_result out;
    out.size = size;
    out.messages = samples.size();
    out.bytes = out.messages * size;
    std::sort(samples.begin(), samples.end());
    if (!samples.empty()) {
        out.lat_median_us = static_cast<double>(quantile(samples, 0.5)) / 1e6;
        out.lat_p99_us = static_cast<double>(quantile(samples, 0.99)) / 1e6;
        out.lat_min_us = static_cast<double>(samples.front()) / 1e6;
        out.lat_max_us = static_cast<double>(samples.back()) / 1e6;
    }
    out.sim_elapsed_ps = t1 - t0;
    if (out.sim_elapsed_ps > 0) {
        const double seconds = static_cast<double>(out.sim_elapsed_ps) * 1e-12;
        out.bw_gbps = static_cast<double>(out.bytes) * 8 / seconds / 1e9;
        out.msg_rate_mps = static_cast<double>(out.messages) / seconds / 1e6;
    }
    out.wall_s = wall;
    if (wall > 0) {
        out.host_ops_per_s = static_cast<double>(out.messages) / wall;
        out.host_mb_per_s = static_cast<double>(out.bytes) / wall / 1e6;
    }
    return out;
}

}  // namespace ndksim::perf
