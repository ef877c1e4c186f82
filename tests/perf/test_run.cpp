// SPDX-License-Identifier: MIT
// ndksim-perf run as an ib_write_* user runs it: perftest's columns on stdout, one row per
// size whose values parse, and the same results in the --out_json document.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../capture/pcap_reader.hpp"

namespace {

struct run_output {
    int status = -1;
    std::string out;
};

// A command ndksim-perf runs under (with its own arguments and a trailing space), or empty.
std::string g_launcher;

// Runs ndksim-perf with `args` (stderr kept apart: progress and warnings go there).
run_output run_perf(const std::string& args) {
    const std::string command =
        g_launcher + std::string(NDKSIM_PERF_EXE) + " " + args + " 2>/dev/null";
    run_output r;
    FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) {
        ADD_FAILURE() << "popen failed: " << command;
        return r;
    }
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) {
        r.out.append(buffer, n);
    }
    r.status = ::pclose(p);
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

// The numbers of a table row, the " | " between the modelled and the host columns skipped.
// Fails the test when a value does not parse.
std::vector<double> values_of(const std::string& row) {
    std::vector<double> out;
    std::istringstream in(row);
    for (std::string word; in >> word;) {
        if (word == "|") {
            continue;
        }
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(word, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        EXPECT_EQ(used, word.size()) << "not a number: '" << word << "' in: " << row;
        out.push_back(v);
    }
    return out;
}

// The rows under the heading line, up to the closing rule.
std::vector<std::vector<double>> table_rows(const std::vector<std::string>& lines,
                                            const std::string& heading) {
    std::vector<std::vector<double>> rows;
    bool in_table = false;
    for (const std::string& line : lines) {
        if (line == heading) {
            in_table = true;
        } else if (in_table && line.rfind("---", 0) == 0) {
            break;
        } else if (in_table) {
            rows.push_back(values_of(line));
        }
    }
    EXPECT_TRUE(in_table) << "no heading line:\n" << heading;
    return rows;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream f(path);
    return nlohmann::json::parse(f);
}

std::string temp_path(const char* name) {
    return ::testing::TempDir() + "perf_run_" + std::to_string(::getpid()) + "_" + name;
}

constexpr const char* k_lat_heading =
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] |  host_wall[s]  "
    "host_rate[msg/s]";
constexpr const char* k_bw_heading =
    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps] |  "
    "host_wall[s]  host_BW[MB/sec]";

TEST(PerfRun, WriteLatPrintsPerftestLatencyColumns) {
    const std::string json = temp_path("write_lat.json");
    const run_output r = run_perf("write_lat -s 64 -n 1000 --quiet --out_json " + json);
    ASSERT_EQ(r.status, 0) << r.out;
    const std::vector<std::string> lines = lines_of(r.out);
    const auto rows = table_rows(lines, k_lat_heading);
    ASSERT_EQ(rows.size(), 1U) << r.out;
    const std::vector<double>& v = rows[0];
    ASSERT_EQ(v.size(), 11U) << r.out;
    EXPECT_EQ(v[0], 64);    // #bytes
    EXPECT_EQ(v[1], 1000);  // #iterations
    const double t_min = v[2], t_max = v[3], typical = v[4], avg = v[5], stdev = v[6];
    const double p99 = v[7], p999 = v[8];
    EXPECT_GT(t_min, 0);
    EXPECT_LE(t_min, typical);
    EXPECT_LE(typical, p99);
    EXPECT_LE(p99, p999);
    EXPECT_LE(p999, t_max);
    EXPECT_GE(avg, t_min);
    EXPECT_LE(avg, t_max);
    EXPECT_GE(stdev, 0);
    EXPECT_GT(v[9], 0);   // host wall seconds
    EXPECT_GT(v[10], 0);  // host messages per second
    // Both clocks are named, and the in-process run's modelled figures are the model's alone.
    EXPECT_NE(r.out.find("# MODELLED (before |): simulated time of the NIC model"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("# HOST (after |): wall time of this process"), std::string::npos);

    const nlohmann::json doc = read_json(json);
    std::remove(json.c_str());
    EXPECT_EQ(doc.at("test"), "write_lat");
    EXPECT_EQ(doc.at("modelled_includes_host_time"), false);
    EXPECT_EQ(doc.at("config").at("iterations"), 1000);
    ASSERT_EQ(doc.at("results").size(), 1U);
    const nlohmann::json& res = doc.at("results").at(0);
    EXPECT_EQ(res.at("bytes"), 64);
    EXPECT_EQ(res.at("iterations"), 1000);
    const nlohmann::json& m = res.at("modelled");
    // The document holds the printed values before rounding to three decimals.
    EXPECT_NEAR(m.at("t_min_usec").get<double>(), t_min, 0.0005);
    EXPECT_NEAR(m.at("t_typical_usec").get<double>(), typical, 0.0005);
    EXPECT_NEAR(m.at("t_99_9_percentile_usec").get<double>(), p999, 0.0005);
    EXPECT_GT(res.at("host").at("wall_s").get<double>(), 0);
}

// -n 100 instead of perftest's 5000: with 5000 the 8 MiB size alone copies 40 GiB of payload,
// about half a minute of CPU, which a test suite on a shared host cannot spend.
TEST(PerfRun, WriteBwAllPrintsPerftestBandwidthColumnsForEverySize) {
    const std::string json = temp_path("write_bw.json");
    const run_output r = run_perf("write_bw -a -n 100 --quiet --out_json " + json);
    ASSERT_EQ(r.status, 0) << r.out;
    const auto rows = table_rows(lines_of(r.out), k_bw_heading);
    ASSERT_EQ(rows.size(), 23U) << r.out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::vector<double>& v = rows[i];
        ASSERT_EQ(v.size(), 7U) << r.out;
        EXPECT_EQ(v[0], static_cast<double>(std::uint64_t{2} << i));
        EXPECT_EQ(v[1], 100);
        EXPECT_GE(v[2], v[3]) << "BW peak below BW average at " << v[0];
        EXPECT_GT(v[3], 0);
        EXPECT_GT(v[4], 0);
    }
    const nlohmann::json doc = read_json(json);
    std::remove(json.c_str());
    EXPECT_EQ(doc.at("test"), "write_bw");
    EXPECT_EQ(doc.at("config").at("tx_depth"), 128);
    ASSERT_EQ(doc.at("results").size(), 23U);
    const nlohmann::json& last = doc.at("results").at(22);
    EXPECT_EQ(last.at("bytes"), 8388608);
    EXPECT_NEAR(last.at("modelled").at("bw_average_mb_sec").get<double>(), rows[22][3], 0.005);
}

// -D ends each size at whatever count the second allowed, with receives still posted: the
// next, larger size must take them and post its own, not stall waiting for receives.
TEST(PerfRun, SendBwDurationRunsEverySizeForItsSeconds) {
    const run_output r = run_perf("send_bw -D 1 --sizes 64,65536 --quiet");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto rows = table_rows(lines_of(r.out), k_bw_heading);
    ASSERT_EQ(rows.size(), 2U) << r.out;
    for (const std::vector<double>& v : rows) {
        ASSERT_EQ(v.size(), 7U) << r.out;
        EXPECT_GT(v[1], 0) << r.out;     // #iterations: as many as the second allowed
        EXPECT_GE(v[5], 1.0) << r.out;   // host wall time: the duration at least
        EXPECT_GE(v[2], v[3]) << r.out;  // BW peak >= BW average
    }
}

// Synchronized time (docs/timing.md): a two-process run over a socket wire gives the modelled
// figures of the in-process deterministic run, within 1 % (they are the same events), its
// statistics say the run was exact, and a second run repeats it exactly. Two warm-up
// iterations: the server process posts its first receive when it starts, not, as the in-process
// run does, just before the first send, so the first send of a run differs by that workload.
struct synchronized_case {
    const char* test;
    const char* sizes;
    const char* iterations;
    std::vector<const char*> fields;
};

nlohmann::json modelled_of(const std::string& args, const char* name,
                           const std::string& stats = {}) {
    const std::string json = temp_path(name);
    const run_output r = run_perf(args + " --quiet --out_json " + json +
                                  (stats.empty() ? "" : " --stats-json " + stats));
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
    if (r.status != 0) {
        return {};
    }
    const nlohmann::json doc = read_json(json);
    std::remove(json.c_str());
    return doc.at("results");
}

// The results of a synchronized run whose statistics say its figures are the model's alone:
// both sides exact, and no request of the measuring side's deferred to a promise. A host too
// busy to let a consumer thread react within the grace makes a run inexact, and says so: up to
// three runs are made.
nlohmann::json exact_run(const std::string& args, const char* name,
                         nlohmann::json* stats_of_exact = nullptr) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        const std::string stats = temp_path("stats.json");
        nlohmann::json results = modelled_of(args, name, stats);
        if (results.is_null()) {
            return results;
        }
        const nlohmann::json doc = read_json(stats);
        std::remove(stats.c_str());
        bool exact = true;
        for (const nlohmann::json& adapter : doc.at("adapters")) {
            const nlohmann::json& s = adapter.at("synchronization");
            EXPECT_EQ(s.at("horizon_violations"), 0) << s;
            EXPECT_GT(adapter.at("sockets").at("sync_records_received").get<int>(), 0);
            exact = exact && s.at("exact").get<bool>();
        }
        const nlohmann::json& measuring = doc.at("adapters").at(0).at("synchronization");
        exact = exact && measuring.at("deferred_posts").get<int>() == 0;
        if (exact) {
            if (stats_of_exact != nullptr) {
                *stats_of_exact = doc;
            }
            return results;
        }
    }
    ADD_FAILURE() << "three runs, none exact: " << args;
    return {};
}

class PerfSynchronized : public ::testing::TestWithParam<const char*> {};

TEST_P(PerfSynchronized, TwoProcessesGiveTheInProcessFigures) {
    const std::string wire = GetParam();
    const std::vector<synchronized_case> cases = {
        {"write_lat", "8,4096,65536,1048576", "5", {"t_typical_usec", "t_avg_usec"}},
        {"read_lat", "8,4096,65536,1048576", "5", {"t_typical_usec", "t_avg_usec"}},
        {"send_lat", "8,4096,65536,1048576", "5", {"t_typical_usec", "t_avg_usec"}},
        {"write_bw", "65536,1048576", "20", {"bw_average_mb_sec"}},
    };
    for (const synchronized_case& c : cases) {
        const std::string common =
            std::string(c.test) + " --sizes " + c.sizes + " -n " + c.iterations + " --warmup 2";
        const nlohmann::json here = modelled_of(common, "inproc.json");
        const nlohmann::json there = exact_run(
            common + " --time synchronized --role both --wire " + wire, "synchronized.json");
        ASSERT_EQ(here.size(), there.size()) << c.test;
        for (std::size_t i = 0; i < here.size(); ++i) {
            for (const char* field : c.fields) {
                const double a = here[i].at("modelled").at(field).get<double>();
                const double b = there[i].at("modelled").at(field).get<double>();
                EXPECT_NEAR(b, a, a * 0.01)
                    << c.test << " " << here[i].at("bytes") << " B, " << field << " over " << wire;
            }
        }
    }
}

TEST_P(PerfSynchronized, ASecondRunRepeatsTheFirst) {
    const std::string args = std::string("read_lat --sizes 8,65536 -n 10 --time synchronized ") +
                             "--role both --wire " + GetParam();
    const nlohmann::json first = exact_run(args, "first.json");
    const nlohmann::json second = exact_run(args, "second.json");
    ASSERT_EQ(first.size(), 2U);
    ASSERT_EQ(second.size(), 2U);
    for (std::size_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(first[i].at("modelled"), second[i].at("modelled")) << first[i].at("bytes");
    }
}

// The frames of a capture as one event trace: each frame and its time (departure when sent,
// arrival when received). Sorted, since the file holds them in the order the process read
// them, which depends on the host; the trace does not.
std::vector<std::tuple<std::uint32_t, std::uint32_t, std::vector<std::byte>>> trace_of(
    const std::string& pcap) {
    const ndksim::capture_test::pcap_file f = ndksim::capture_test::read_pcap(pcap);
    EXPECT_TRUE(f.ok) << pcap << ": " << f.error;
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::vector<std::byte>>> out;
    for (const auto& r : f.records) {
        out.emplace_back(r.seconds, r.fraction, r.bytes);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Determinism across processes, on a link that loses, duplicates and reorders frames: the
// fault layer draws from the adapter's seed in each process (NDKSIM_FAULTS reaches the server
// child through the environment), and two runs record the same frames at the same modelled
// times, retransmissions included, with the same figures. Byte for byte: both processes run
// without address space randomization (setarch -R), since the frames carry the addresses of
// the consumer's buffers (a WRITE's RETH, the tool's private data).
TEST_P(PerfSynchronized, TwoRunsOnALossyLinkRecordTheSameTrace) {
    if (std::system("setarch -R true >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "setarch -R is refused here: buffer addresses differ from run to run";
    }
    g_launcher = "setarch -R ";
    const std::string faults = temp_path("faults.toml");
    {
        std::ofstream out(faults);
        out << "[link]\ndrop_ppm = 3000\nduplicate_ppm = 3000\nreorder_ppm = 3000\n"
               "reorder_delay_ns = 2000\n";
    }
    ASSERT_EQ(::setenv("NDKSIM_FAULTS", faults.c_str(), 1), 0);
    const std::string common = std::string("write_bw --sizes 65536 -n 40 --time synchronized ") +
                               "--role both --wire " + GetParam() + " --pcap ";
    const std::string first_pcap = temp_path("first.pcap");
    const std::string second_pcap = temp_path("second.pcap");
    nlohmann::json doc;
    const nlohmann::json first = exact_run(common + first_pcap, "first.json");
    const nlohmann::json second = exact_run(common + second_pcap, "second.json", &doc);
    ::unsetenv("NDKSIM_FAULTS");
    g_launcher.clear();
    std::remove(faults.c_str());
    ASSERT_FALSE(first.is_null());
    ASSERT_FALSE(second.is_null());
    ASSERT_EQ(first.size(), 1U);
    ASSERT_EQ(second.size(), 1U);
    EXPECT_EQ(first[0].at("modelled"), second[0].at("modelled"));
    // The faults were drawn: the client retransmitted what its link lost.
    EXPECT_GT(doc.at("adapters").at(0).at("packets").at("retransmitted").get<std::uint64_t>(), 0U)
        << doc.at("adapters").at(0);
    const auto a = trace_of(first_pcap);
    const auto b = trace_of(second_pcap);
    std::remove(first_pcap.c_str());
    std::remove(second_pcap.c_str());
    ASSERT_GT(a.size(), 1000U);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_TRUE(a[i] == b[i]) << "frame " << i << " of " << a.size() << " differs, at "
                                  << std::get<0>(a[i]) << " s + " << std::get<1>(a[i]) << " ns";
    }
}

INSTANTIATE_TEST_SUITE_P(Wires, PerfSynchronized, ::testing::Values("udp", "tcp"));

}  // namespace
