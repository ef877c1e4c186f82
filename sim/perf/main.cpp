// SPDX-License-Identifier: MIT
// ndksim-perf: perftest-like latency and bandwidth runs between two simulated NICs, written
// against the public API only (ndkpi.h, ndksim.h). See docs/perf.md.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "rig.hpp"
#include "runner.hpp"
#include "server.hpp"
#include "two_process.hpp"

using namespace ndksim::perf;

namespace {

// One page-aligned buffer per side holds the largest message.
std::size_t buffer_for(const options& o) {
    const std::uint64_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    if (largest > (1ULL << 30)) {
        throw perf_error("sizes above 1 GiB exceed the adapter's MaxTransferLength");
    }
    return (largest + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
}

// The measurement, with both sides here (local) or side a only (client). Fills `stats` with
// the statistics documents of this process's adapters.
int measure(const options& o, std::vector<std::string>& stats) {
    rig r(o, buffer_for(o));
    const std::uint64_t per_size =
        o.duration > 0 ? 0 : std::uint64_t{o.iterations} * o.qps * (o.bidirectional ? 2 : 1);
    progress bar(o.sizes, per_size, o.duration, !o.quiet);
    if (modelled_includes_host(o)) {
        std::fprintf(stderr,
                     "ndksim-perf: warning: this run is threaded (%s): simulated time runs no "
                     "slower than the wall clock, so the modelled figures include host time; "
                     "run with the in-process wire and without --threaded for the NIC model "
                     "alone\n",
                     o.wire != wire_kind::inproc ? "a socket wire" : "--threaded");
    }
    print_header(stdout, o);
    std::vector<size_result> rows;
    for (std::size_t i = 0; i < o.sizes.size(); ++i) {
        bar.begin(i);
        size_result row = run_size(r, o, o.sizes[i], [&](std::uint64_t done) { bar.update(done); });
        bar.end(row.messages);
        print_row(stdout, o, row);
        rows.push_back(row);
    }
    print_footer(stdout, o);
    if (r.remote_b()) {
        r.disconnect();  // the server's signal that the run is over
    }
    if (!o.csv.empty()) {
        write_csv(o.csv, o, rows);
    }
    if (!o.json.empty()) {
        write_json(o.json, o, rows);
    }
    stats.push_back(rig::stats_json(r.a()));
    if (!r.remote_b()) {
        stats.push_back(rig::stats_json(r.b()));
    }
    return 0;
}

int run_local_or_client(const options& o) {
    std::vector<std::string> stats;
    const int rc = measure(o, stats);
    if (!o.stats_json.empty()) {
        write_stats_json(o.stats_json, stats);
    }
    return rc;
}

int run_server(const options& o) {
    rig r(o, buffer_for(o));
    std::fprintf(stderr, "ndksim-perf server: listening on %s port %u (%s wire, %s)\n",
                 o.local.empty() ? k_server_address : o.local.c_str(), unsigned{r.port()},
                 name_of(o.wire), test_name(o.test, o.mode));
    if (o.ready_fd >= 0) {
        const std::uint16_t port = r.port();
        (void)!::write(o.ready_fd, &port, sizeof port);
        ::close(o.ready_fd);
    }
    serve(r, o);
    if (!o.stats_json.empty()) {
        write_stats_json(o.stats_json, {rig::stats_json(r.b())});
    }
    std::fprintf(stderr, "ndksim-perf server: the client finished; %u connection%s served\n", o.qps,
                 o.qps == 1 ? "" : "s");
    return 0;
}

int run(const options& o) {
    switch (o.who) {
        case role::server:
            return run_server(o);
        case role::both:
            return run_both(o, [](const options& c, std::string& stats) {
                std::vector<std::string> own;
                const int rc = measure(c, own);
                stats = own.front();
                return rc;
            });
        case role::local:
        case role::client:
            break;
    }
    return run_local_or_client(o);
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    const parse_outcome parsed = parse_options(argc, argv, o);
    std::fputs(parsed.out.c_str(), stdout);
    std::fputs(parsed.err.c_str(), stderr);
    if (!parsed.run) {
        return parsed.exit_code;
    }
    try {
        return run(o);
    } catch (const perf_error& e) {
        std::fprintf(stderr, "ndksim-perf: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ndksim-perf: unexpected error: %s\n", e.what());
        return 2;
    }
}
