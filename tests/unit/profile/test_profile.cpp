// SPDX-License-Identifier: MIT
// The profile files: the shipped ones load, a partial file keeps the defaults, and every kind
// of bad file is refused with a message naming the file, the line and the field.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "timing/profile.hpp"

namespace ndksim::timing {
namespace {

const std::string data_dir = NDKSIM_TEST_PROFILE_DATA;

profile_result load_fixture(const std::string& file) {
    return load_profile_file(data_dir + "/" + file);
}

// The refusal names the file, the line and the dotted field, and says what is wrong.
void expect_refused(const std::string& file, const std::string& where, const std::string& what) {
    const profile_result r = load_fixture(file);
    ASSERT_FALSE(r.ok()) << file;
    EXPECT_EQ(r.error, profile_error::invalid) << file;
    EXPECT_NE(r.message.find(file), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(where), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(what), std::string::npos) << r.message;
}

TEST(Profile, ShippedProfilesLoadByName) {
    for (const char* name : {"cx4-edr", "roce-100g", "roce-25g"}) {
        const profile_result r = load_profile(name);
        ASSERT_TRUE(r.ok()) << r.message;
        EXPECT_EQ(r.profile.name, name);
        EXPECT_NE(r.profile.source, "<built-in>") << name;
        EXPECT_FALSE(r.profile.description.empty());
    }
}

TEST(Profile, Cx4EdrFileEqualsTheBuiltInDefaults) {
    const profile_result r = load_profile("cx4-edr");
    ASSERT_TRUE(r.ok()) << r.message;
    const cost_model defaults;
    const cost_model& m = r.profile.costs;
    EXPECT_EQ(m.host.doorbell_mmio, defaults.host.doorbell_mmio);
    EXPECT_EQ(m.pcie.crossing, defaults.pcie.crossing);
    EXPECT_EQ(m.pcie.dllp_overhead_bytes, defaults.pcie.dllp_overhead_bytes);
    EXPECT_EQ(m.nic.clock_period, defaults.nic.clock_period);
    EXPECT_EQ(m.nic.rx_pipeline_cycles, defaults.nic.rx_pipeline_cycles);
    EXPECT_EQ(m.nic.max_packets_per_second, defaults.nic.max_packets_per_second);
    EXPECT_EQ(m.wire.propagation, defaults.wire.propagation);
    EXPECT_EQ(m.wire.link_bits_per_second, defaults.wire.link_bits_per_second);
    EXPECT_EQ(m.wqe_fetch, defaults.wqe_fetch);
    EXPECT_EQ(m.serialization(4112), defaults.serialization(4112));
}

TEST(Profile, RoceProfilesCarryEthernetFraming) {
    const profile_result r = load_profile("roce-25g");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.profile.costs.mtu, 1024U);
    EXPECT_EQ(r.profile.costs.wire_overhead_bytes, 66U);
    EXPECT_EQ(r.profile.costs.link_bits_per_second, 25'000'000'000U);
    EXPECT_EQ(r.profile.costs.propagation, nanoseconds(490));  // 90 ns + one switch
    EXPECT_EQ(r.profile.costs.pcie.lanes, 8U);
}

TEST(Profile, MissingFieldsKeepTheDefaults) {
    const profile_result r = load_fixture("partial.toml");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.profile.name, "partial-test");
    EXPECT_EQ(r.profile.costs.mtu, 1024U);
    EXPECT_EQ(r.profile.costs.link_bits_per_second, 25'000'000'000U);
    EXPECT_EQ(r.profile.costs.nic.mtt_miss, picoseconds(100'500));
    EXPECT_EQ(r.profile.costs.pcie.lanes, cost_model{}.pcie.lanes);
    EXPECT_EQ(r.profile.costs.doorbell, cost_model{}.doorbell);
}

TEST(Profile, ByPathAndNameAreToldApart) {
    EXPECT_TRUE(is_profile_path("./cx4-edr"));
    EXPECT_TRUE(is_profile_path("mine.toml"));
    EXPECT_FALSE(is_profile_path("cx4-edr"));
    const profile_result r = load_profile(data_dir + "/partial.toml");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.profile.name, "partial-test");
}

TEST(Profile, UnknownFieldIsRefused) {
    expect_refused("unknown_field.toml", ":3: nic.bogus_cycles", "unknown field");
}

TEST(Profile, WrongTypeIsRefused) {
    expect_refused("wrong_type.toml", ":3: wire.mtu_bytes", "must be an integer");
    expect_refused("float_count.toml", ":2: pcie.lanes", "must be an integer");
    expect_refused("bad_name_type.toml", ":2: profile.name", "must be a string");
}

TEST(Profile, OutOfRangeValueIsRefused) {
    expect_refused("out_of_range.toml", ":3: pcie.lanes", "out of range");
    expect_refused("negative.toml", ":2: wire.propagation_ns", "out of range");
    expect_refused("not_power_of_two.toml", ":2: wire.mtu_bytes", "not a power of two");
    // The translation cache is allocated at adapter creation: its size is bounded.
    expect_refused("huge_mtt_cache.toml", ":2: nic.mtt_cache_entries", "out of range");
}

TEST(Profile, EveryCacheInterruptAndCoalescingFieldIsRead) {
    const profile_result r = parse_profile(
        "[host]\ninterrupt_ns = 3000\n[nic]\nmtt_cache_entries = 1000\n"
        "qpc_cache_entries = 7\nqpc_miss_ns = 400\n[ack]\ncoalesce_ns = 1500\n",
        "inline");
    ASSERT_TRUE(r.ok()) << r.message;
    const cost_model& m = r.profile.costs;
    EXPECT_EQ(m.host.interrupt, nanoseconds(3'000));
    EXPECT_EQ(m.nic.mtt_cache_entries, 1000U);
    EXPECT_EQ(m.nic.qpc_cache_entries, 7U);
    EXPECT_EQ(m.nic.qpc_miss, nanoseconds(400));
    EXPECT_EQ(m.cache_miss_penalty(nic_cache::qp_context), nanoseconds(400));
    EXPECT_EQ(m.ack.coalesce_window, nanoseconds(1'500));
}

TEST(Profile, SyntaxErrorNamesTheLine) {
    expect_refused("syntax_error.toml", ":3: syntax error", "");
}

TEST(Profile, UnknownSectionAndStrayValueAreRefused) {
    expect_refused("unknown_section.toml", ":4: gpu", "unknown section");
    expect_refused("top_level_value.toml", ":1: link_gbps", "unknown section");
}

TEST(Profile, MissingFileIsInvalidAndUnknownNameIsNotFound) {
    const profile_result file = load_fixture("does-not-exist.toml");
    EXPECT_EQ(file.error, profile_error::invalid);
    EXPECT_NE(file.message.find("does-not-exist.toml"), std::string::npos) << file.message;
    const profile_result name = load_profile("no-such-nic");
    EXPECT_EQ(name.error, profile_error::not_found);
    EXPECT_NE(name.message.find("no-such-nic"), std::string::npos) << name.message;
    // A name that could leave the search directories is never looked up.
    EXPECT_EQ(load_profile("..").error, profile_error::not_found);
}

TEST(Profile, SearchPathEnvironmentFindsNames) {
    ASSERT_EQ(setenv("NDKSIM_PROFILE_PATH", (data_dir + "/search").c_str(), 1), 0);
    const profile_result r = load_profile("custom-test");
    unsetenv("NDKSIM_PROFILE_PATH");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.profile.name, "custom-test");  // the file's stem
    EXPECT_EQ(r.profile.costs.link_bits_per_second, 40'000'000'000U);
}

}  // namespace
}  // namespace ndksim::timing
