// SPDX-License-Identifier: MIT
// ndksim-perf's command line: perftest's tests, options and defaults, the older spellings, and
// the messages that refuse bad input before anything runs.

#include <gtest/gtest.h>
#include <unistd.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "options.hpp"

namespace ndksim::perf {
namespace {

struct parsed {
    options o;
    parse_outcome r;
};

parsed parse(std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"ndksim-perf"};
    argv.insert(argv.end(), args.begin(), args.end());
    parsed p;
    p.r = parse_options(static_cast<int>(argv.size()), argv.data(), p.o);
    return p;
}

// The message a refused command line prints on stderr, and that it does not run.
std::string refusal(std::initializer_list<const char*> args) {
    const parsed p = parse(args);
    EXPECT_FALSE(p.r.run);
    EXPECT_EQ(p.r.exit_code, 1);
    EXPECT_EQ(p.r.out, "");
    return p.r.err;
}

constexpr const char* k_more = "Run with --help for more information.\n";

TEST(PerfOptions, WriteLatTakesPerftestLatencyDefaults) {
    const parsed p = parse({"write_lat"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.test, test_kind::write);
    EXPECT_EQ(p.o.mode, run_mode::lat);
    EXPECT_EQ(p.o.sizes, std::vector<std::uint64_t>{2});
    EXPECT_EQ(p.o.iterations, 1000U);
    EXPECT_EQ(p.o.outstanding, 1U);
    EXPECT_EQ(p.o.qps, 1U);
    EXPECT_EQ(p.o.warmup, 0U);
    EXPECT_EQ(p.o.inline_size, 0U);
    EXPECT_EQ(p.o.who, role::local);
    EXPECT_EQ(p.o.wire, wire_kind::inproc);
}

// Latency runs let the tool's thread run the engines (nothing is handed between threads);
// synchronized adapters share an engine thread only it runs, so they spin; bandwidth runs poll
// and then sleep.
TEST(PerfOptions, ThePollPolicyDefaultsByModeAndTime) {
    EXPECT_EQ(parse({"write_lat", "--wire", "udp"}).o.poll, poll_kind::consumer);
    EXPECT_EQ(parse({"write_lat", "--wire", "udp", "--time", "synchronized"}).o.poll,
              poll_kind::spin);
    EXPECT_EQ(parse({"write_bw", "--wire", "udp"}).o.poll, poll_kind::spin_then_block);
    EXPECT_EQ(parse({"write_lat", "--wire", "udp", "--poll", "spin"}).o.poll, poll_kind::spin);
}

TEST(PerfOptions, TheConsumerPolicyIsRefusedInSynchronizedTime) {
    EXPECT_EQ(
        refusal({"write_lat", "--wire", "udp", "--time", "synchronized", "--poll", "consumer"}),
        "ndksim-perf: --poll consumer cannot be used with --time synchronized: the "
        "synchronized adapters of a process share one engine thread\n");
}

TEST(PerfOptions, BandwidthTestsTakePerftestBandwidthDefaults) {
    for (const char* name : {"write_bw", "read_bw", "send_bw"}) {
        const parsed p = parse({name});
        ASSERT_TRUE(p.r.run) << p.r.err;
        EXPECT_EQ(p.o.mode, run_mode::bw) << name;
        EXPECT_EQ(p.o.sizes, std::vector<std::uint64_t>{65536}) << name;
        EXPECT_EQ(p.o.iterations, 5000U) << name;
        EXPECT_EQ(p.o.outstanding, 128U) << name;
    }
}

TEST(PerfOptions, EveryTestNameSelectsItsOperationAndMode) {
    const struct {
        const char* name;
        test_kind test;
        run_mode mode;
    } cases[] = {{"write_lat", test_kind::write, run_mode::lat},
                 {"write_bw", test_kind::write, run_mode::bw},
                 {"read_lat", test_kind::read, run_mode::lat},
                 {"read_bw", test_kind::read, run_mode::bw},
                 {"send_lat", test_kind::send, run_mode::lat},
                 {"send_bw", test_kind::send, run_mode::bw}};
    for (const auto& c : cases) {
        const parsed p = parse({c.name});
        ASSERT_TRUE(p.r.run) << p.r.err;
        EXPECT_EQ(p.o.test, c.test) << c.name;
        EXPECT_EQ(p.o.mode, c.mode) << c.name;
        EXPECT_STREQ(test_name(p.o.test, p.o.mode), c.name);
    }
}

TEST(PerfOptions, ShortOptionsHavePerftestMeanings) {
    const parsed p = parse({"write_bw", "-s", "64", "-n", "1000", "-q", "4", "-t", "32", "-I", "64",
                            "-b", "-p", "5000", "-d", "roce-25g", "--warmup", "10"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.sizes, std::vector<std::uint64_t>{64});
    EXPECT_EQ(p.o.iterations, 1000U);
    EXPECT_EQ(p.o.qps, 4U);
    EXPECT_EQ(p.o.outstanding, 32U);
    EXPECT_EQ(p.o.inline_size, 64U);
    EXPECT_TRUE(p.o.bidirectional);
    EXPECT_EQ(p.o.port, 5000U);
    EXPECT_EQ(p.o.profile, "roce-25g");
    EXPECT_EQ(p.o.warmup, 10U);
    EXPECT_FALSE(p.o.quiet);
}

TEST(PerfOptions, AllRunsEveryPowerOfTwoFrom2To8MiB) {
    const parsed p = parse({"write_bw", "-a"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    ASSERT_EQ(p.o.sizes.size(), 23U);
    for (std::size_t i = 0; i < p.o.sizes.size(); ++i) {
        EXPECT_EQ(p.o.sizes[i], std::uint64_t{2} << i);
    }
    EXPECT_EQ(p.o.sizes_text, "2..8M");
}

TEST(PerfOptions, DurationReplacesTheIterationCount) {
    const parsed p = parse({"send_lat", "-D", "3"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.duration, 3U);
}

TEST(PerfOptions, QuietIsALongOptionOnly) {
    const parsed p = parse({"write_lat", "--quiet"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_TRUE(p.o.quiet);
    EXPECT_EQ(refusal({"write_lat", "-q"}),
              "--qp: 1 required UINT:1..1024 missing\n" + std::string(k_more));
}

TEST(PerfOptions, OlderSpellingsStillWork) {
    const parsed p =
        parse({"--test", "send", "--mode", "bw", "--sizes", "2,4096", "--iterations", "50", "--qps",
               "2", "--outstanding", "8", "--inline", "--json", "/dev/null", "--quiet"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.test, test_kind::send);
    EXPECT_EQ(p.o.mode, run_mode::bw);
    EXPECT_EQ(p.o.sizes, (std::vector<std::uint64_t>{2, 4096}));
    EXPECT_EQ(p.o.iterations, 50U);
    EXPECT_EQ(p.o.qps, 2U);
    EXPECT_EQ(p.o.outstanding, 8U);
    EXPECT_EQ(p.o.inline_size, k_max_inline);
    EXPECT_EQ(p.o.json, "/dev/null");
    EXPECT_TRUE(p.o.quiet);
}

TEST(PerfOptions, NoTestMeansWriteLat) {
    const parsed p = parse({"--sizes", "64", "--iterations", "10"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.test, test_kind::write);
    EXPECT_EQ(p.o.mode, run_mode::lat);
    EXPECT_EQ(p.o.iterations, 10U);
}

TEST(PerfOptions, AHostMakesAClientOverUdpOnRocePort) {
    const parsed p = parse({"write_lat", "127.0.0.2"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.who, role::client);
    EXPECT_EQ(p.o.wire, wire_kind::udp);
    EXPECT_EQ(p.o.peer, "127.0.0.2");
    EXPECT_EQ(p.o.port, k_default_port);
    EXPECT_TRUE(p.o.threaded);
}

TEST(PerfOptions, AHostFollowsTheOlderTestSpelling) {
    const parsed p = parse({"--test", "read", "--mode", "bw", "--wire", "tcp", "10.0.0.7"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.who, role::client);
    EXPECT_EQ(p.o.wire, wire_kind::tcp);
    EXPECT_EQ(p.o.peer, "10.0.0.7");
}

TEST(PerfOptions, ASocketWireWithoutHostMakesAServer) {
    const parsed p = parse({"write_lat", "--wire", "udp"});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_EQ(p.o.who, role::server);
    EXPECT_EQ(p.o.port, k_default_port);
}

TEST(PerfOptions, HelpNamesValuesNotEnumIntegers) {
    const parsed p = parse({"--help"});
    EXPECT_FALSE(p.r.run);
    EXPECT_EQ(p.r.exit_code, 0);
    EXPECT_EQ(p.r.out.find("->"), std::string::npos) << p.r.out;
    for (const char* s :
         {"inproc|udp|tcp", "local|server|client|both", "write|read|send", "lat|bw",
          "write_lat, write_bw, read_lat, read_bw, send_lat or send_bw", "-s,--size", "-a,--all",
          "-n,--iters", "-D,--duration", "-q,--qp", "-t,--tx-depth", "-I,--inline_size",
          "-b,--bidirectional", "-p,--port", "-d,--ib-dev", "--out_json", "--warmup", "--quiet"}) {
        EXPECT_NE(p.r.out.find(s), std::string::npos) << s;
    }
}

TEST(PerfOptions, RefusesAnUnknownTestNamingTheTests) {
    EXPECT_EQ(refusal({"write_lta"}),
              "ndksim-perf: 'write_lta' is not a test: give write_lat, write_bw, read_lat, "
              "read_bw, send_lat or send_bw\n");
}

TEST(PerfOptions, RefusesAnUnknownWireNamingTheWires) {
    EXPECT_EQ(refusal({"--wire", "rdma"}),
              "--wire: 'rdma' is not one of inproc, udp or tcp\n" + std::string(k_more));
}

TEST(PerfOptions, RefusesAnUnknownRoleNamingTheRoles) {
    EXPECT_EQ(refusal({"--role", "peer"}),
              "--role: 'peer' is not one of local, server, client or both\n" + std::string(k_more));
}

TEST(PerfOptions, RefusesAPortOutOfRangeNamingTheRange) {
    EXPECT_EQ(
        refusal({"--port", "70000"}),
        "--port: 70000 is out of range: give 0 to 65535 (0: the default)\n" + std::string(k_more));
    EXPECT_EQ(refusal({"-p", "-1"}),
              "--port: '-1' is not a whole number: give 0 to 65535 (0: the default)\n" +
                  std::string(k_more));
}

TEST(PerfOptions, RefusesCountsOutOfRange) {
    EXPECT_EQ(refusal({"-n", "0"}),
              "--iters: 0 is out of range: give 1 to 100000000\n" + std::string(k_more));
    EXPECT_EQ(refusal({"-q", "2000"}),
              "--qp: 2000 is out of range: give 1 to 1024\n" + std::string(k_more));
    EXPECT_EQ(refusal({"-I", "512"}),
              "--inline_size: 512 is out of range: give 0 to 256\n" + std::string(k_more));
    EXPECT_EQ(refusal({"-t", "many"}),
              "--tx-depth: 'many' is not a whole number: give 1 to 4096\n" + std::string(k_more));
}

TEST(PerfOptions, RefusesABadSize) {
    EXPECT_EQ(refusal({"-s", "12Q"}),
              "--size: '12Q' is not a size (e.g. 64, 4K, 8M)\n" + std::string(k_more));
    EXPECT_EQ(refusal({"--sizes", "8M..2"}),
              "--sizes: size range 8M..2 runs backwards\n" + std::string(k_more));
}

TEST(PerfOptions, RefusesOptionsThatExcludeEachOther) {
    EXPECT_EQ(refusal({"-s", "64", "-a"}), "--size excludes --all\n" + std::string(k_more));
    EXPECT_EQ(refusal({"-n", "5", "-D", "1"}),
              "--iters excludes --duration\n" + std::string(k_more));
    EXPECT_EQ(refusal({"write_lat", "--test", "read"}),
              "ndksim-perf: write_lat contradicts --test read: give one of them\n");
    EXPECT_EQ(refusal({"read_bw", "--test", "read", "--mode", "lat"}),
              "ndksim-perf: read_bw contradicts --test read --mode lat: give one of them\n");
}

TEST(PerfOptions, RefusesBidirectionalLatency) {
    EXPECT_EQ(refusal({"write_lat", "-b"}),
              "ndksim-perf: -b (bidirectional) applies to the bandwidth tests only: write_bw, "
              "read_bw, send_bw\n");
}

TEST(PerfOptions, RefusesWhatTheTwoProcessServerCannotReplay) {
    EXPECT_EQ(refusal({"write_bw", "-b", "--wire", "udp", "--role", "both"}),
              "ndksim-perf: -b needs both sides in this process (--role local), not --role "
              "both\n");
    EXPECT_EQ(refusal({"write_lat", "-D", "2", "127.0.0.2"}),
              "ndksim-perf: -D needs both sides in this process (--role local), not --role "
              "client\n");
}

TEST(PerfOptions, RefusesATwoProcessRoleOnTheInProcessWire) {
    EXPECT_EQ(refusal({"--role", "server", "--wire", "inproc"}),
              "ndksim-perf: --role server runs the sides in two processes, which needs --wire "
              "udp or --wire tcp\n");
}

TEST(PerfOptions, RefusesAnOutputFileItCannotOpenBeforeRunning) {
    EXPECT_EQ(refusal({"write_bw", "-a", "--csv", "/nonexistent-dir/x.csv"}),
              "ndksim-perf: --csv /nonexistent-dir/x.csv: cannot open for writing: No such file "
              "or directory\n");
    EXPECT_EQ(refusal({"--out_json", "/nonexistent-dir/x.json"}),
              "ndksim-perf: --out_json /nonexistent-dir/x.json: cannot open for writing: No "
              "such file or directory\n");
}

TEST(PerfOptions, CheckingAnOutputFileLeavesNoFileBehind) {
    const std::string path =
        ::testing::TempDir() + "perf_options_probe_" + std::to_string(::getpid()) + ".json";
    const parsed p = parse({"--out_json", path.c_str()});
    ASSERT_TRUE(p.r.run) << p.r.err;
    EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace ndksim::perf
