// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <array>
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

// perftest's column headings, then the host's. Each row prints its value in the heading's
// width, so a reader that splits on the headings' widths finds every value under its name.
struct column {
    const char* heading;
    const char* format;  // printf format of the value, in the heading's width
};
constexpr std::array<column, 11> k_lat_columns{{
    {" #bytes", "%7llu"},
    {" #iterations", "%12llu"},
    {"    t_min[usec]", "%15.3f"},
    {"    t_max[usec]", "%15.3f"},
    {"  t_typical[usec]", "%17.3f"},
    {"    t_avg[usec]", "%15.3f"},
    {"    t_stdev[usec]", "%17.3f"},
    {"   99% percentile[usec]", "%23.3f"},
    {"   99.9% percentile[usec]", "%25.3f"},
    {"  host_wall[s]", "%14.3f"},
    {"  host_rate[msg/s]", "%18.0f"},
}};
constexpr std::array<column, 7> k_bw_columns{{
    {" #bytes", "%7llu"},
    {"     #iterations", "%16llu"},
    {"    BW peak[MB/sec]", "%19.2f"},
    {"    BW average[MB/sec]", "%22.2f"},
    {"   MsgRate[Mpps]", "%16.6f"},
    {"  host_wall[s]", "%14.3f"},
    {"  host_BW[MB/sec]", "%17.2f"},
}};
// The modelled columns come first; " |" separates them from the host's.
constexpr std::size_t k_lat_modelled_columns = 9;
constexpr std::size_t k_bw_modelled_columns = 5;
constexpr const char* k_separator = " |";

template <std::size_t N>
void print_headings(std::FILE* out, const std::array<column, N>& cols, std::size_t modelled) {
    for (std::size_t i = 0; i < N; ++i) {
        std::fputs(i == modelled ? k_separator : "", out);
        std::fputs(cols[i].heading, out);
    }
    std::fputc('\n', out);
}

// A row: the size and iteration count, then one double per further column.
template <std::size_t N, std::size_t V>
void print_values(std::FILE* out, const std::array<column, N>& cols, std::size_t modelled,
                  const size_result& r, const std::array<double, V>& values) {
    static_assert(V + 2 == N, "one value for each column after #bytes and #iterations");
    std::fprintf(out, cols[0].format, static_cast<unsigned long long>(r.size));
    std::fprintf(out, cols[1].format, static_cast<unsigned long long>(r.iterations));
    for (std::size_t i = 2; i < N; ++i) {
        std::fputs(i == modelled ? k_separator : "", out);
        std::fprintf(out, cols[i].format, values[i - 2]);
    }
    std::fputc('\n', out);
}

template <std::size_t N>
std::size_t width(const std::array<column, N>& cols) {
    std::size_t w = std::char_traits<char>::length(k_separator);
    for (const column& c : cols) {
        w += std::char_traits<char>::length(c.heading);
    }
    return w;
}

void rule(std::FILE* out, const options& o) {
    const std::size_t w = o.mode == run_mode::lat ? width(k_lat_columns) : width(k_bw_columns);
    std::fprintf(out, "%s\n", std::string(w, '-').c_str());
}

}  // namespace

bool modelled_includes_host(const options& o) noexcept {
    // Synchronized time keeps the engines exact whatever the host does (an inexact step, when
    // a consumer did not react in time, is counted in the statistics' synchronization section).
    return (o.threaded || o.wire != wire_kind::inproc) && o.time != time_kind::synchronized;
}

void print_header(std::FILE* out, const options& o) {
    rule(out, o);
    std::fprintf(out, "# ndksim-perf %s: %s (%s), wire %s%s, profile %s\n", ndksim_version(),
                 test_name(o.test, o.mode), test_title(o.test, o.mode), name_of(o.wire),
                 o.who != role::local && o.time == time_kind::synchronized
                     ? " (synchronized, server in another process)"
                 : o.who != role::local              ? " (threaded, server in another process)"
                 : o.time == time_kind::synchronized ? " (threaded, synchronized)"
                 : o.threaded                        ? " (threaded)"
                                                     : " (deterministic)",
                 o.profile.empty() ? "cx4-edr" : o.profile.c_str());
    std::fprintf(out, "# %u QP%s, ", o.qps, o.qps == 1 ? "" : "s");
    if (o.duration > 0) {
        std::fprintf(out, "%u s per size", o.duration);
    } else {
        std::fprintf(out, "%u iterations", o.iterations);
    }
    std::fprintf(out, " after %u warm-up, tx depth %u, inline up to %u bytes%s\n", o.warmup,
                 o.mode == run_mode::bw ? o.outstanding : 1U, o.inline_size,
                 o.bidirectional ? ", bidirectional" : "");
    if (modelled_includes_host(o)) {
        std::fprintf(out,
                     "# MODELLED (before |): simulated time, which threaded engines keep no "
                     "slower than the wall clock:\n#   these figures INCLUDE HOST TIME (threads, "
                     "sockets), they are not the NIC model's alone\n");
    } else {
        std::fprintf(out,
                     "# MODELLED (before |): simulated time of the NIC model, the same on every "
                     "run\n");
    }
    std::fprintf(out,
                 "# HOST (after |): wall time of this process, the simulator's own speed; MB = "
                 "2^20 bytes\n");
    if (o.mode == run_mode::lat) {
        std::fprintf(
            out, "# t_*: one-way latency%s\n",
            o.test == test_kind::read ? " (the read's post to completion)" : " (round trip / 2)");
        print_headings(out, k_lat_columns, k_lat_modelled_columns);
    } else {
        print_headings(out, k_bw_columns, k_bw_modelled_columns);
    }
    std::fflush(out);
}

void print_row(std::FILE* out, const options& o, const size_result& r) {
    if (o.mode == run_mode::lat) {
        print_values(
            out, k_lat_columns, k_lat_modelled_columns, r,
            std::array<double, 9>{r.t_min_us, r.t_max_us, r.t_typical_us, r.t_avg_us, r.t_stdev_us,
                                  r.t_p99_us, r.t_p999_us, r.wall_s, r.host_msgs_per_s});
    } else {
        print_values(out, k_bw_columns, k_bw_modelled_columns, r,
                     std::array<double, 5>{r.bw_peak_mb_s, r.bw_avg_mb_s, r.msg_rate_mpps, r.wall_s,
                                           r.host_mb_per_s});
    }
    std::fflush(out);
}

void print_footer(std::FILE* out, const options& o) {
    rule(out, o);
    std::fflush(out);
}

void write_csv(const std::string& path, const options& o, const std::vector<size_result>& rows) {
    std::ofstream f = open_out(path);
    // The first seventeen columns are those of earlier versions (scripts/plot_perf.sh reads
    // them by position); host_mb_per_s stays in 10^6 bytes.
    f << "test,mode,wire,qps,outstanding,size,messages,lat_median_us,lat_p99_us,lat_min_us,"
         "lat_max_us,bw_gbps,msg_rate_mps,sim_elapsed_ps,wall_s,host_ops_per_s,host_mb_per_s,"
         "iterations,lat_avg_us,lat_stdev_us,lat_p999_us,bw_peak_mib_s,bw_avg_mib_s\n";
    for (const size_result& r : rows) {
        const double host_mb = r.wall_s > 0 ? static_cast<double>(r.bytes) / r.wall_s / 1e6 : 0;
        f << name_of(o.test) << ',' << name_of(o.mode) << ',' << name_of(o.wire) << ',' << o.qps
          << ',' << (o.mode == run_mode::bw ? o.outstanding : 1) << ',' << r.size << ','
          << r.messages << ',' << r.t_typical_us << ',' << r.t_p99_us << ',' << r.t_min_us << ','
          << r.t_max_us << ',' << r.bw_gbps << ',' << r.msg_rate_mpps << ',' << r.sim_elapsed_ps
          << ',' << r.wall_s << ',' << r.host_msgs_per_s << ',' << host_mb << ',' << r.iterations
          << ',' << r.t_avg_us << ',' << r.t_stdev_us << ',' << r.t_p999_us << ',' << r.bw_peak_mb_s
          << ',' << r.bw_avg_mb_s << '\n';
    }
}

void write_json(const std::string& path, const options& o, const std::vector<size_result>& rows) {
    nlohmann::json results = nlohmann::json::array();
    for (const size_result& r : rows) {
        results.push_back({{"bytes", r.size},
                           {"iterations", r.iterations},
                           {"messages", r.messages},
                           {"modelled",
                            {{"t_min_usec", r.t_min_us},
                             {"t_max_usec", r.t_max_us},
                             {"t_typical_usec", r.t_typical_us},
                             {"t_avg_usec", r.t_avg_us},
                             {"t_stdev_usec", r.t_stdev_us},
                             {"t_99_percentile_usec", r.t_p99_us},
                             {"t_99_9_percentile_usec", r.t_p999_us},
                             {"bw_peak_mb_sec", r.bw_peak_mb_s},
                             {"bw_average_mb_sec", r.bw_avg_mb_s},
                             {"msg_rate_mpps", r.msg_rate_mpps},
                             {"bw_gbps", r.bw_gbps},
                             {"elapsed_ps", r.sim_elapsed_ps}}},
                           {"host",
                            {{"wall_s", r.wall_s},
                             {"msg_per_s", r.host_msgs_per_s},
                             {"mb_per_sec", r.host_mb_per_s}}}});
    }
    const bool mixed = modelled_includes_host(o);
    const nlohmann::json doc{
        {"tool", "ndksim-perf"},
        {"version", ndksim_version()},
        {"test", test_name(o.test, o.mode)},
        {"config",
         {{"test", name_of(o.test)},
          {"mode", name_of(o.mode)},
          {"wire", name_of(o.wire)},
          {"role", name_of(o.who)},
          {"threaded", o.threaded},
          {"time", name_of(o.time)},
          {"qps", o.qps},
          {"tx_depth", o.outstanding},
          {"iterations", o.iterations},
          {"warmup", o.warmup},
          {"duration_s", o.duration},
          {"inline_size", o.inline_size},
          {"bidirectional", o.bidirectional},
          {"sizes", o.sizes},
          {"profile", o.profile.empty() ? "cx4-edr" : o.profile}}},
        {"clocks",
         {{"modelled", mixed ? "simulated time kept no slower than the wall clock: includes "
                               "host time"
                             : "simulated time of the NIC model"},
          {"host", "wall time of this process"},
          {"mb", 1048576}}},
        {"modelled_includes_host_time", mixed},
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
