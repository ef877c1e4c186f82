// SPDX-License-Identifier: MIT
#include "server.hpp"

#include <algorithm>
#include <vector>

#include "runner.hpp"

namespace ndksim::perf {
namespace {

// Receives the client's sends take: each is posted over the whole buffer, so it takes a message
// of any size of the sweep. `posted` and `received` count per QP over the whole run.
struct receive_flow {
    std::uint64_t posted = 0;
    std::uint64_t received = 0;
};

// Reaps b's endpoint j and keeps its receive queue topped up, never posting more receives than
// sends are to come (`total` per QP).
void refill(rig& r, std::size_t j, receive_flow& f, std::uint64_t total, std::uint64_t depth) {
    side& b = r.b();
    endpoint& eb = b.eps[j];
    r.reap(eb);
    f.received = eb.counts.received;
    while (f.posted < total && f.posted - f.received < depth &&
           try_post_receive(eb, b, b.buffer_size)) {
        ++f.posted;
    }
}

}  // namespace

void serve(rig& r, const options& o) {
    r.accept(o);
    side& a = r.a();  // the client's: its buffer's address and token only
    side& b = r.b();
    const std::size_t qps = b.eps.size();
    // The client runs its warm-up before each size's measurement, through the same exchanges.
    const std::uint32_t per_size = o.warmup + o.iterations;
    const std::uint64_t per_qp = std::uint64_t{per_size} * o.sizes.size();
    // Latency mode sends one message at a time, so one receive posted ahead suffices; bandwidth
    // mode keeps the receive queue full (its depth is outstanding + 16, the client's window).
    const std::uint64_t depth = o.mode == run_mode::lat ? 1 : o.outstanding + 16;
    std::vector<receive_flow> flows(qps);
    if (o.test == test_kind::send) {
        for (std::size_t j = 0; j < qps; ++j) {
            refill(r, j, flows[j], per_qp, depth);
        }
    }
    if (o.mode == run_mode::lat && o.test != test_kind::read) {
        for (const std::uint64_t size : o.sizes) {
            for (std::uint32_t i = 0; i < per_size; ++i) {
                for (std::size_t j = 0; j < qps; ++j) {
                    endpoint& eb = b.eps[j];
                    if (o.test == test_kind::write) {
                        const std::byte tag = ping_tag(i, j, qps);
                        r.wait([&] { return watched(b, size) == tag || r.disconnected() > 0; },
                               "the client's write");
                        set_watched(b, size,
                                    static_cast<std::byte>(static_cast<unsigned>(tag) + 1));
                    } else {
                        const std::uint64_t got = flows[j].received;
                        r.wait(
                            [&] {
                                refill(r, j, flows[j], per_qp, depth);
                                return flows[j].received > got || r.disconnected() > 0;
                            },
                            "the client's send");
                    }
                    if (r.disconnected() > 0) {
                        throw perf_error("the client disconnected in the middle of the run");
                    }
                    post(o, eb, b, a, size);
                    r.reap(eb);
                }
            }
        }
    }
    // Bandwidth and read runs need nothing more of the server than its receives (send) and its
    // memory, until the client ends the run, however long its sweep takes.
    r.wait_unbounded(
        [&] {
            if (o.test == test_kind::send) {
                for (std::size_t j = 0; j < qps; ++j) {
                    refill(r, j, flows[j], per_qp, depth);
                }
            } else {
                for (endpoint& eb : b.eps) {
                    r.reap(eb);
                }
            }
            return r.disconnected() >= qps;
        },
        "the client to disconnect");
    r.disconnect();
}

}  // namespace ndksim::perf
