#include "report.hpp"

#include <fstream>

#include <ndksim/ndksim.h>
#include <nlohmann/json.hpp>

namespace ndksim::perf {
namespace {

std::ofstream open_out(const std::string& path) {
    std::ofstream f(path);
    if (!f) {
        throw perf_error("cannot write " + path);
    }
    return f;
}

}  // namespace

void print_header(std::FILE* out, const options& o) {
    std::fprintf(out, "# ndksim-perf %s: test %s, mode %s, wire %s%s, %u QP%s, %u iterations%s",
                 ndksim_version(), name_of(o.test), name_of(o.mode), name_of(o.wire),
                 o.who != role::local ? " (threaded, server in another process)"
                 : o.threaded         ? " (threaded)"
                                      : " (deterministic)",
                 o.qps, o.qps == 1 ? "" : "s", o.iterations, o.inline_data ? ", inline" : "");
    if (o.mode == run_mode::bw) {
        std::fprintf(out, ", %u outstanding", o.outstanding);
    }
    std::fprintf(out,
                 "\n# latency and bandwidth: modelled (simulated time); host: the "
                 "simulator's own speed (wall time)\n");
    std::fprintf(out, "%10s %10s %12s %12s %10s %12s %12s %12s\n", "bytes", "messages",
                 o.mode == run_mode::lat ? "lat_p50[us]" : "done_p50[us]",
                 o.mode == run_mode::lat ? "lat_p99[us]" : "done_p99[us]", "bw[Gb/s]",
                 "rate[Mmsg/s]", "host[op/s]", "host[MB/s]");
}

void print_row(std::FILE* out, const size_result& r) {
    std::fprintf(out, "%10llu %10llu %12.3f %12.3f %10.3f %12.4f %12.0f %12.1f\n",
                 static_cast<unsigned long long>(r.size),
                 static_cast<unsigned long long>(r.messages), r.lat_median_us, r.lat_p99_us,
                 r.bw_gbps, r.msg_rate_mps, r.host_ops_per_s, r.host_mb_per_s);
    std::fflush(out);
}

void write_csv(const std::string& path, const options& o, const std::vector<size_result>& rows) {
    std::ofstream f = open_out(path);
    f << "test,mode,wire,qps,outstanding,size,messages,lat_median_us,lat_p99_us,lat_min_us,"
         "lat_max_us,bw_gbps,msg_rate_mps,sim_elapsed_ps,wall_s,host_ops_per_s,host_mb_per_s\n";
    for (const size_result& r : rows) {
        f << name_of(o.test) << ',' << name_of(o.mode) << ',' << name_of(o.wire) << ',' << o.qps
          << ',' << (o.mode == run_mode::bw ? o.outstanding : 1) << ',' << r.size << ','
          << r.messages << ',' << r.lat_median_us << ',' << r.lat_p99_us << ',' << r.lat_min_us
          << ',' << r.lat_max_us << ',' << r.bw_gbps << ',' << r.msg_rate_mps << ','
          << r.sim_elapsed_ps << ',' << r.wall_s << ',' << r.host_ops_per_s << ','
          << r.host_mb_per_s << '\n';
    }
}

void write_json(const std::string& path, const options& o, const std::vector<size_result>& rows) {
    nlohmann::json results = nlohmann::json::array();
    for (const size_result& r : rows) {
        results.push_back({{"size", r.size},
                           {"messages", r.messages},
                           {"latency_us",
                            {{"median", r.lat_median_us},
                             {"p99", r.lat_p99_us},
                             {"min", r.lat_min_us},
                             {"max", r.lat_max_us}}},
                           {"bandwidth_gbps", r.bw_gbps},
                           {"message_rate_mps", r.msg_rate_mps},
                           {"sim_elapsed_ps", r.sim_elapsed_ps},
                           {"host",
                            {{"wall_s", r.wall_s},
                             {"ops_per_s", r.host_ops_per_s},
                             {"mb_per_s", r.host_mb_per_s}}}});
    }
    const nlohmann::json doc{{"tool", "ndksim-perf"},
                             {"version", ndksim_version()},
                             {"config",
                              {{"test", name_of(o.test)},
                               {"mode", name_of(o.mode)},
                               {"wire", name_of(o.wire)},
                               {"role", name_of(o.who)},
                               {"threaded", o.threaded},
                               {"qps", o.qps},
                               {"outstanding", o.outstanding},
                               {"iterations", o.iterations},
                               {"inline", o.inline_data},
                               {"profile", o.profile.empty() ? "cx4-edr" : o.profile}}},
                             {"results", std::move(results)}};
    open_out(path) << doc.dump(2) << '\n';
}

void write_stats_json(const std::string& path, const std::vector<std::string>& adapters) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& a : adapters) {
        list.push_back(nlohmann::json::parse(a));
    }
    const nlohmann::json doc{{"adapters", std::move(list)}};
    if (path == "-") {
        std::printf("%s\n", doc.dump(2).c_str());
        return;
    }
    open_out(path) << doc.dump(2) << '\n';
}

}  // namespace ndksim::perf
