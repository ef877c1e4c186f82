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
    const std::uint64_t per_size = static_cast<std::uint64_t>(o.iterations) * o.qps;
    progress bar(per_size * o.sizes.size(), !o.quiet);
    print_header(stdout, o);
    std::vector<size_result> rows;
    for (std::size_t i = 0; i < o.sizes.size(); ++i) {
        bar.begin(std::to_string(o.sizes[i]) + " bytes", per_size * i);
        size_result row = run_size(r, o, o.sizes[i], [&](std::uint64_t done) { bar.update(done); });
        bar.clear();
        print_row(stdout, row);
        rows.push_back(row);
    }
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
    std::fprintf(stderr,
                 "ndksim-perf server: listening on %s port %u (%s wire, test %s, mode %s)\n",
                 o.local.empty() ? k_server_address : o.local.c_str(), unsigned{r.port()},
                 name_of(o.wire), name_of(o.test), name_of(o.mode));
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
    int code = 0;
    if (!parse_options(argc, argv, o, code)) {
        return code;
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
