// ndksim-perf: perftest-like latency and bandwidth runs between two simulated NICs, written
// against the public API only (ndkpi.h, ndksim.h). See docs/perf.md.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "rig.hpp"
#include "runner.hpp"

using namespace ndksim::perf;

namespace {

int run(const options& o) {
    const std::uint64_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    if (largest > (1ULL << 30)) {
        throw perf_error("sizes above 1 GiB exceed the adapter's MaxTransferLength");
    }
    // One page-aligned buffer per side holds the largest message.
    const std::size_t buffer = (largest + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
    rig r(o, buffer);
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
    if (!o.csv.empty()) {
        write_csv(o.csv, o, rows);
    }
    if (!o.json.empty()) {
        write_json(o.json, o, rows);
    }
    if (!o.stats_json.empty()) {
        write_stats_json(o.stats_json, rig::stats_json(r.a()), rig::stats_json(r.b()));
    }
    return 0;
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
