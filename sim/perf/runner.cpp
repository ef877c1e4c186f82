// SPDX-License-Identifier: MIT
#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

namespace ndksim::perf {
namespace {

void posted(NTSTATUS s, const char* what) {
    if (s != STATUS_SUCCESS) {
        throw perf_error(std::string(what) + " refused: " + ndksim_status_name(s));
    }
}

}  // namespace

void post(const options& o, endpoint& ep, const side& from, const side& to, std::uint64_t size) {
    NDK_SGE sge = from.sge(0, size);
    // Reads carry no payload of the requester's, so -I applies to writes and sends (as perftest).
    const ULONG flags = size <= o.inline_size ? NDK_OP_FLAG_INLINE : 0;
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
    ++ep.receives_posted;
}

bool try_post_receive(endpoint& ep, const side& s, std::uint64_t size) {
    NDK_SGE sge = s.sge(0, size);
    const NTSTATUS st = ep.qp->Dispatch->NdkReceive(ep.qp, nullptr, &sge, 1);
    if (st == STATUS_INSUFFICIENT_RESOURCES) {
        return false;
    }
    posted(st, "NdkReceive");
    ++ep.receives_posted;
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

// When a phase ends: after `count` messages per QP, or (count 0, -D) once the wall clock
// passes `deadline`.
struct budget {
    std::uint64_t count = 0;
    std::chrono::steady_clock::time_point deadline{};
    bool more(std::uint64_t done) const {
        return count != 0 ? done < count : std::chrono::steady_clock::now() < deadline;
    }
    // The most messages the phase may post per QP (a bound for the receives kept posted).
    std::uint64_t limit() const { return count != 0 ? count : UINT64_MAX; }
};

// Nearest-rank quantile of sorted samples.
std::uint64_t quantile(const std::vector<std::uint64_t>& sorted, double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// Ping-pong (ib_write_lat, ib_send_lat) or one request at a time (ib_read_lat). When side b
// is in another process (client role), its half of each ping-pong runs there (server.cpp).
// Iteration i of the phase carries the tags of iteration `first + i`, as the server counts.
// Returns the iterations done.
std::uint64_t latency_run(rig& r, const options& o, std::uint64_t size, std::uint32_t first,
                          const budget& until, std::vector<std::uint64_t>& samples,
                          const progress_fn& progress) {
    side& a = r.a();
    side& b = r.b();
    const bool here = !r.remote_b();
    const std::size_t qps = a.eps.size();
    std::uint64_t i = 0;
    for (; until.more(i); ++i) {
        const auto index = static_cast<std::uint32_t>(first + i);
        for (std::size_t j = 0; j < qps; ++j) {
            endpoint& ea = a.eps[j];
            endpoint* eb = here ? &b.eps[j] : nullptr;
            const std::uint64_t t0 = r.now();
            if (o.test == test_kind::write) {
                // Each direction carries a fresh tag in the watched byte.
                const std::byte tag = ping_tag(index, j, qps);
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
        progress((i + 1) * qps);
    }
    return i;
}

// One direction of a bandwidth run on one QP pair: `from` initiates on its endpoint, `to`
// receives (send) or lends its memory (write, read).
struct flow {
    side* from = nullptr;
    side* to = nullptr;
    std::size_t qp = 0;
    bool receives_here = false;  // `to` is in this process and must keep receives posted
    std::uint64_t posted = 0;
    std::uint64_t done = 0;
    std::uint64_t base = 0;             // initiator completions of from's endpoint before the run
    std::uint64_t receives_posted = 0;  // by this phase
    std::vector<std::uint64_t> posted_at;  // ring of post times, completion order = post order
};

// Keeps o.outstanding requests posted on every flow until each has done its budget (a->b, and
// with -b also b->a). Records each request's post-to-completion time in `samples` and each
// completion's time in `done_at`. Returns the messages done.
std::uint64_t bandwidth_run(rig& r, const options& o, std::uint64_t size, const budget& until,
                            std::vector<std::uint64_t>& samples,
                            std::vector<std::uint64_t>& done_at, const progress_fn& progress) {
    side& a = r.a();
    side& b = r.b();
    const std::size_t qps = a.eps.size();
    std::vector<flow> flows;
    for (int d = 0; d < (o.bidirectional ? 2 : 1); ++d) {
        for (std::size_t j = 0; j < qps; ++j) {
            flow f;
            f.from = d == 0 ? &a : &b;
            f.to = d == 0 ? &b : &a;
            f.qp = j;
            f.receives_here = o.test == test_kind::send && !r.remote_b();
            flows.push_back(std::move(f));
        }
    }
    // The receive queue's depth, but never more than the sends to come. Each receive takes the
    // whole buffer, so one left posted after a size (-D ends a flow at any count) still fits a
    // larger message of the next, and counts as posted there.
    const std::uint64_t receives = std::min<std::uint64_t>(o.outstanding + 16, until.limit());
    auto top_up = [&](flow& f) {
        endpoint& to = f.to->eps[f.qp];
        while (f.receives_posted < until.limit() &&
               to.receives_posted - to.counts.received < receives &&
               try_post_receive(to, *f.to, f.to->buffer_size)) {
            ++f.receives_posted;
        }
    };
    for (flow& f : flows) {
        f.base = f.from->eps[f.qp].counts.initiator_done;
        f.posted_at.assign(o.outstanding, 0);
        if (f.receives_here) {
            top_up(f);
        }
    }
    std::uint64_t finished = 0;
    std::uint64_t idle = 0;  // flows that will post no more and have nothing in flight
    while (idle < flows.size()) {
        for (flow& f : flows) {
            while (f.posted - f.done < o.outstanding && until.more(f.posted)) {
                f.posted_at[f.posted % o.outstanding] = r.now();
                post(o, f.from->eps[f.qp], *f.from, *f.to, size);
                ++f.posted;
            }
        }
        idle = 0;
        for (const flow& f : flows) {
            idle += f.posted == f.done ? 1 : 0;
        }
        if (idle == flows.size()) {
            break;
        }
        // Until a request completes: its QP then takes the next one. Each wait has its own
        // time limit, so a long sweep only fails when the completions stop coming.
        const std::uint64_t before = finished;
        r.wait(
            [&] {
                for (flow& f : flows) {
                    endpoint& ep = f.from->eps[f.qp];
                    r.reap(ep);
                    const std::uint64_t done = ep.counts.initiator_done - f.base;
                    // The clock only when something completed: a look that found nothing
                    // (most of a spinning wait's) reads no time.
                    const std::uint64_t now = f.done < done ? r.now() : 0;
                    for (; f.done < done; ++f.done, ++finished) {
                        samples.push_back(now - f.posted_at[f.done % o.outstanding]);
                        done_at.push_back(now);
                    }
                    if (f.receives_here) {
                        r.reap(f.to->eps[f.qp]);
                        top_up(f);
                    }
                }
                return finished > before;
            },
            "completions");
        progress(finished);
    }
    return finished;
}

// The best bandwidth over `window` consecutive completions (sorted times) [bytes/ps].
double peak_rate(const std::vector<std::uint64_t>& done_at, std::size_t window,
                 std::uint64_t size) {
    if (done_at.size() <= window) {
        return 0;
    }
    double best = 0;
    for (std::size_t k = window; k < done_at.size(); ++k) {
        const std::uint64_t span = done_at[k] - done_at[k - window];
        if (span > 0) {
            best = std::max(best, static_cast<double>(window * size) / static_cast<double>(span));
        }
    }
    return best;
}

}  // namespace

size_result run_size(rig& r, const options& o, std::uint64_t size, const progress_fn& progress) {
    const std::size_t directions = o.bidirectional ? 2 : 1;
    const std::size_t qps = r.a().eps.size();
    std::vector<std::uint64_t> samples;
    std::vector<std::uint64_t> done_at;
    const progress_fn quiet = [](std::uint64_t) {};
    if (o.warmup > 0) {
        if (o.mode == run_mode::lat) {
            latency_run(r, o, size, 0, budget{o.warmup, {}}, samples, quiet);
        } else {
            bandwidth_run(r, o, size, budget{o.warmup, {}}, samples, done_at, quiet);
        }
        samples.clear();
        done_at.clear();
    }
    const auto wall0 = std::chrono::steady_clock::now();
    budget measured{o.iterations, {}};
    if (o.duration > 0) {
        measured = budget{0, wall0 + std::chrono::seconds(o.duration)};
    } else {
        samples.reserve(static_cast<std::size_t>(o.iterations) * qps * directions);
    }
    const std::uint64_t t0 = r.now();
    if (o.mode == run_mode::lat) {
        latency_run(r, o, size, o.warmup, measured, samples, progress);
    } else {
        bandwidth_run(r, o, size, measured, samples, done_at, progress);
    }
    const std::uint64_t t1 = r.now();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    size_result out;
    out.size = size;
    out.messages = samples.size();
    out.iterations = out.messages / (qps * directions);
    out.bytes = out.messages * size;
    std::sort(samples.begin(), samples.end());
    if (!samples.empty()) {
        constexpr double us = 1e6;  // ps per us
        double sum = 0;
        for (const std::uint64_t s : samples) {
            sum += static_cast<double>(s);
        }
        const double mean = sum / static_cast<double>(samples.size());
        double squares = 0;
        for (const std::uint64_t s : samples) {
            squares += (static_cast<double>(s) - mean) * (static_cast<double>(s) - mean);
        }
        out.t_min_us = static_cast<double>(samples.front()) / us;
        out.t_max_us = static_cast<double>(samples.back()) / us;
        out.t_typical_us = static_cast<double>(quantile(samples, 0.5)) / us;
        out.t_avg_us = mean / us;
        out.t_stdev_us = std::sqrt(squares / static_cast<double>(samples.size())) / us;
        out.t_p99_us = static_cast<double>(quantile(samples, 0.99)) / us;
        out.t_p999_us = static_cast<double>(quantile(samples, 0.999)) / us;
    }
    out.sim_elapsed_ps = t1 - t0;
    constexpr double mib = 1024.0 * 1024.0;
    if (out.sim_elapsed_ps > 0) {
        const double seconds = static_cast<double>(out.sim_elapsed_ps) * 1e-12;
        out.bw_avg_mb_s = static_cast<double>(out.bytes) / seconds / mib;
        out.bw_gbps = static_cast<double>(out.bytes) * 8 / seconds / 1e9;
        out.msg_rate_mpps = static_cast<double>(out.messages) / seconds / 1e6;
    }
    // The window is a tenth of the measurement, and at least what the flows keep in flight
    // together (the tx depth on each QP): completions come in bursts (one coalesced ACK
    // completes many writes), and the drain at the end of a -D run completes a whole window
    // with no new requests behind it, so a shorter window measures the bursts, not the flow.
    const std::size_t window =
        std::max(std::size_t{o.outstanding} * qps * directions, done_at.size() / 10);
    const double peak = peak_rate(done_at, window, size);
    out.bw_peak_mb_s = std::max(peak * 1e12 / mib, out.bw_avg_mb_s);
    out.wall_s = wall;
    if (wall > 0) {
        out.host_msgs_per_s = static_cast<double>(out.messages) / wall;
        out.host_mb_per_s = static_cast<double>(out.bytes) / wall / mib;
    }
    return out;
}

}  // namespace ndksim::perf
