// SPDX-License-Identifier: MIT
#include "connector_script.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "loopback/client.hpp"
#include "loopback/service.hpp"

namespace ndksim::loopback {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
}

std::uint64_t median(std::vector<std::uint64_t> v) {
    if (v.empty()) {
        return 0;
    }
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// What a bench completed: only writes whose completion said STATUS_SUCCESS count.
struct bench_result {
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
    bool failed = false;  ///< a post or a completion failed: the connection is of no more use
};

// Bench mode: pipelined writes for bandwidth, then one at a time for latency. Only the last
// write's data is verified: the measurement must not include the checks. The first failure
// ends it: a post the QP refused will never complete, and after a failed completion the QP is
// in the error state (IBA 10.7.3.1), so every write behind it only completes flushed.
bench_result bench(endpoint& ep, client& c, const connector_options& o, report& out) {
    bench_result result;
    const std::uint32_t token = c.peer().mw_token;
    fill_pattern(ep.data(), o.size, 7);
    unsigned posted = 0, done = 0;
    const auto t0 = clock::now();
    for (;;) {
        while (!result.failed && posted < o.iterations && posted - done < o.depth) {
            const NTSTATUS s = ep.post_write(0, o.size, c.peer().address, token);
            if (s != STATUS_SUCCESS) {
                out.check(false, "bench: write {} not posted: {}", posted, ndksim_status_name(s));
                result.failed = true;
                break;
            }
            ++posted;
        }
        if (done == posted) {
            break;
        }
        // Only writes that were posted are waited for.
        auto r = ep.next();
        if (!r) {
            out.check(false, "bench: no write completion within the timeout ({} of {} posted)",
                      done, posted);
            result.failed = true;
            break;
        }
        ++done;
        if (r->Status != STATUS_SUCCESS) {
            if (!result.failed) {
                out.check(false, "bench: write {} completed with {}", done - 1,
                          ndksim_status_name(r->Status));
            }
            result.failed = true;
            continue;
        }
        ++result.ops;
    }
    const double secs = seconds_since(t0);
    result.bytes = result.ops * o.size;
    if (result.failed) {
        out.step("bench: stopped after {} completed writes of {} planned", result.ops,
                 o.iterations);
        return result;
    }
    std::vector<std::uint64_t> wall_ns;
    const unsigned pings = std::min(o.iterations, 1000u);
    for (unsigned i = 0; i < pings && !result.failed; ++i) {
        const auto p0 = clock::now();
        const NTSTATUS s = c.write(0, o.size, 0, token);
        if (!out.check(s == STATUS_SUCCESS, "bench: latency write {}: {}", i,
                       ndksim_status_name(s))) {
            result.failed = true;
            break;
        }
        ++result.ops;
        result.bytes += o.size;
        wall_ns.push_back(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - p0).count()));
    }
    if (result.failed) {
        return result;
    }
    out.check(c.remote_verify(0, o.size, 7) == 0, "bench: the peer's data differs");
    const double mbps = double(o.size) * o.iterations / secs / 1e6;
    out.step(
        "bench: size={} ops={} depth={} MB/s={:.1f} ops/s={:.0f} lat_us_median={:.2f} "
        "sim_lat_us_median={:.2f}",
        o.size, o.iterations, o.depth, mbps, o.iterations / secs, double(median(wall_ns)) / 1e3,
        double(median(c.latencies())) / 1e6);
    return result;
}

}  // namespace

unsigned run_connector(endpoint& ep, const connector_options& o, report& out) {
    const unsigned before = out.failures();
    client c(ep);
    const std::string text = "connector " + ep.options().address + " says hello";
    std::string reply;
    if (!out.check(c.connect(o.peer, o.nd_port, text, &reply) == STATUS_SUCCESS, "connect: {}",
                   c.error())) {
        ep.close();
        return out.failures() - before;
    }
    out.step("connected to {} ND port {}; our private data \"{}\", the listener's \"{}\"", o.peer,
             o.nd_port, text, reply);
    const peer_memory& p = c.peer();
    out.step("received the listener's window: token {:#x}, {} bytes at {:#x}", p.mw_token, p.length,
             p.address);
    if (!out.check(p.length >= o.size, "the listener exposes {} bytes, fewer than --size {}",
                   p.length, o.size)) {
        ep.close();
        return out.failures() - before;
    }

    const auto t0 = clock::now();
    std::uint64_t bytes = 0, ops = 0;
    bool broken = false;  // the connection failed: no goodbye, nothing more to wait for
    if (o.bench) {
        const bench_result r = bench(ep, c, o, out);
        bytes = r.bytes;
        ops = r.ops;
        broken = r.failed;
    } else {
        for (unsigned i = 0; i < o.iterations; ++i) {
            const std::uint64_t seed = 100 + i;
            fill_pattern(ep.data(), o.size, seed);
            NTSTATUS s = c.write(0, o.size, 0, p.mw_token);
            const std::uint64_t bad = c.remote_verify(0, o.size, seed);
            if (out.check(s == STATUS_SUCCESS && bad == 0, "RDMA write: {}, verify: {}",
                          ndksim_status_name(s), bad) &&
                i == 0) {
                out.step(
                    "RDMA write of {} bytes through the window: every byte verified by the "
                    "listener",
                    o.size);
            }
            const std::uint64_t rseed = 200 + i;
            out.check(c.remote_fill(0, o.size, rseed), "fill request: {}", c.error());
            s = c.read(0, o.size, 0, p.mw_token);
            const std::uint64_t rbad = check_pattern(ep.data(), o.size, rseed);
            if (out.check(s == STATUS_SUCCESS && rbad == 0, "RDMA read: {}, first bad byte {}",
                          ndksim_status_name(s), rbad) &&
                i == 0) {
                out.step("RDMA read of {} bytes through the window: every byte verified", o.size);
            }
            bytes += 2 * std::uint64_t{o.size};
            ops += 2;
        }
        const ULONG payload = std::min<ULONG>(o.size, k_slot_size - sizeof(message));
        fill_pattern(ep.data(), payload, 300);
        auto r = c.send_payload(0, payload, 300);
        if (out.check(r && r->result == 0, "send/receive of {} bytes: {}", payload, c.error())) {
            out.step("send/receive of {} bytes: every byte verified by the listener", payload);
        }
        bytes += payload;
        ++ops;
        if (out.check(c.send_and_invalidate(400), "send-and-invalidate: {}", c.error())) {
            out.step("send-and-invalidate of token {:#x}: the listener saw its window invalidated",
                     p.mw_token);
        }
        ++ops;
        fill_pattern(ep.data(), o.size, 500);
        NTSTATUS s = c.write(0, o.size, 0, p.mw_token);
        if (out.check(s == STATUS_ACCESS_VIOLATION,
                      "a write with the invalidated token completed with {}, expected "
                      "STATUS_ACCESS_VIOLATION",
                      ndksim_status_name(s))) {
            out.step("RDMA write with the invalidated token refused: {}", ndksim_status_name(s));
        }
        ++ops;
    }
    const double wall = seconds_since(t0);
    if (o.bench && !broken) {
        out.check(c.bye(), "bye: {}", c.error());
    }
    NTSTATUS d = ep.disconnect();
    out.check(d == STATUS_SUCCESS, "disconnect: {}", ep.error());
    out.step("disconnected");
    // Whether the modelled figures are the model's alone (docs/statistics.md): a consumer that
    // did not react within the grace, or a frame behind the clock, says not. Read before the
    // adapter closes.
    std::string exactness;
    if (ep.options().time_mode == NDKSIM_TIME_SYNCHRONIZED && ep.nic() != nullptr) {
        std::string stats(1 << 16, '\0');
        SIZE_T size = stats.size();
        if (ndksim_adapter_stats_json(ep.nic(), stats.data(), &size) == STATUS_SUCCESS) {
            exactness = stats.find("\"exact\":true") != std::string::npos
                            ? "exact"
                            : "not exact (see its statistics)";
        }
    }
    const ULONG leaked = ep.close();
    out.check(leaked == 0, "{} objects leaked", leaked);
    out.step("closed every object, {} leaked", leaked);
    out.step(
        "summary: {} operations, {} bytes, modelled latency per op (median) {:.2f} us, host "
        "throughput {:.1f} MB/s over {:.3f} s",
        ops, bytes, double(median(c.latencies())) / 1e6, double(bytes) / wall / 1e6, wall);
    if (!exactness.empty()) {
        out.step("synchronized time: {}", exactness);
    }
    return out.failures() - before;
}

}  // namespace ndksim::loopback
