// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

using Region = unit_test;

const access rw_local = access_from_mr_flags(ndk_flags::mr_allow_local_write);
const access all_remote =
    access_from_mr_flags(ndk_flags::mr_allow_remote_read | ndk_flags::mr_allow_remote_write);

TEST_F(Region, RegisteredRegionIsValidAndItsTokenLooksUp) {
    guarded_buffer buf(2 * page_size, 0x40);
    const region_id mr = registered(buf.data(), 5000, rw_local);
    const region_info info = unit_.describe(mr);
    EXPECT_EQ(info.state, region_state::valid);
    EXPECT_EQ(info.base_va, buf.address());
    EXPECT_EQ(info.length, 5000u);
    EXPECT_EQ(info.fbo, 0x40u);
    EXPECT_EQ(info.page_count, 2u);
    EXPECT_TRUE(look(unit_.local_token(mr), access_op::local_write, buf.address(), 5000).ok());
}

TEST_F(Region, LocalAndRemoteTokensAreTheSameValue) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, all_remote);
    EXPECT_EQ(unit_.local_token(mr), unit_.remote_token(mr));
    EXPECT_NE(unit_.local_token(mr), 0u);
}

TEST_F(Region, ZeroBasedVirtualAddressIsInvalidParameter) {
    guarded_buffer buf(page_size);
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    m.segments()[0].virtual_address = 0;
    m.segments()[0].byte_offset = 0;
    EXPECT_EQ(unit_.register_region(mr, m.chain(), 100, rw_local), status::invalid_parameter);
    EXPECT_EQ(unit_.describe(mr).state, region_state::unregistered);
    EXPECT_EQ(unit_.mapped_pages(), 0u);
}

TEST_F(Region, ChainNotVirtuallyContiguousIsInvalidParameter) {
    guarded_buffer a(page_size);
    guarded_buffer b(page_size);
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    mdl_builder m(host_);
    m.add(a.data(), page_size).add(b.data(), page_size);
    EXPECT_EQ(unit_.register_region(mr, m.chain(), 2 * page_size, rw_local),
              status::invalid_parameter);
    EXPECT_EQ(unit_.register_region(mr, m.chain(), page_size, rw_local), status::success);
}

TEST_F(Region, LengthBeyondTheChainIsInvalidParameter) {
    guarded_buffer buf(page_size);
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    EXPECT_EQ(unit_.register_region(mr, m.chain(), 101, rw_local), status::invalid_parameter);
}

TEST_F(Region, RegisterOnAFastRegisterRegionIsInvalidDeviceRequest) {
    guarded_buffer buf(page_size);
    const region_id mr = unit_.create_region(pd_, region_kind::fast_register).id;
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    EXPECT_EQ(unit_.register_region(mr, m.chain(), 100, rw_local), status::invalid_device_request);
}

TEST_F(Region, RegisterTwiceIsInvalidDeviceState) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, rw_local);
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    EXPECT_EQ(unit_.register_region(mr, m.chain(), 100, rw_local), status::invalid_device_state);
}

TEST_F(Region, DeregisterOfAnUnregisteredRegionIsInvalidDeviceState) {
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    EXPECT_EQ(unit_.deregister_region(mr), status::invalid_device_state);
}

TEST_F(Region, DeregisterOfAFastRegisterRegionIsInvalidDeviceRequest) {
    const region_id mr = unit_.create_region(pd_, region_kind::fast_register).id;
    EXPECT_EQ(unit_.deregister_region(mr), status::invalid_device_request);
}

TEST_F(Region, DeregisteredTokenIsRefused) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, rw_local);
    const std::uint32_t token = unit_.local_token(mr);
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    const lookup_result r = look(token, access_op::local_read, buf.address(), 10);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.st(), status::access_violation);
}

TEST_F(Region, ReRegistrationIssuesANewTokenAndTheOldOneNeverMatches) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, rw_local);
    const std::uint32_t old_token = unit_.local_token(mr);
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    ASSERT_EQ(unit_.register_region(mr, m.chain(), 100, rw_local), status::success);
    const std::uint32_t new_token = unit_.local_token(mr);
    EXPECT_NE(new_token, old_token);
    EXPECT_EQ(token_index(new_token), token_index(old_token));
    EXPECT_EQ(look(old_token, access_op::local_read, buf.address(), 10).failed, fault::stale_token);
    EXPECT_TRUE(look(new_token, access_op::local_read, buf.address(), 10).ok());
}

TEST_F(Region, TokenOfADestroyedRegionNeverMatchesTheReusedEntry) {
    unit_config cfg = default_config();
    cfg.max_entries = 2;  // the PD's privileged token and one more slot
    translation_unit small(host_, cfg);
    const pd_id pd = small.create_pd().id;
    guarded_buffer buf(page_size);
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    std::vector<std::uint32_t> seen;
    for (int life = 0; life < 20; ++life) {
        const region_id mr = small.create_region(pd, region_kind::normal).id;
        ASSERT_NE(mr, region_id::none);
        ASSERT_EQ(small.register_region(mr, m.chain(), 100, rw_local), status::success);
        const std::uint32_t token = small.local_token(mr);
        {
            const read_guard g = small.read();
            for (const std::uint32_t old : seen) {
                EXPECT_NE(old, token);
                EXPECT_EQ(
                    small.lookup(g, {old, pd, access_op::local_read, buf.address(), 1}).failed,
                    fault::stale_token);
            }
            EXPECT_TRUE(small.lookup(g, {token, pd, access_op::local_read, buf.address(), 1}).ok());
        }
        seen.push_back(token);
        ASSERT_EQ(small.destroy_region(mr), status::success);
    }
}

TEST_F(Region, RegisteredAddressIsAKeyNeverDereferenced) {
    guarded_buffer buf(2 * page_size, 0x10);
    buf.fill_pattern(9);
    const std::uint64_t va = fake_va(buf.data());
    const region_id mr = registered(buf.data(), 6000, rw_local, va);
    EXPECT_EQ(unit_.describe(mr).base_va, va);
    const auto got = read_bytes(unit_.local_token(mr), access_op::local_read, va + 4000, 1000);
    EXPECT_EQ(std::memcmp(got.data(), buf.data() + 4000, 1000), 0);
    EXPECT_EQ(look(unit_.local_token(mr), access_op::local_read, buf.address(), 1).failed,
              fault::out_of_bounds);
}

TEST_F(Region, RegistrationPinsFramesAndDeregistrationReleasesThem) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, rw_local);
    const std::uint64_t pfn = host_.pfn_of(buf.data());
    EXPECT_EQ(host_.pin_count(pfn), 2u);  // the MDL's pin and the IOMMU mapping's
    EXPECT_EQ(unit_.mapped_pages(), 1u);
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    EXPECT_EQ(host_.pin_count(pfn), 1u);
    EXPECT_EQ(unit_.mapped_pages(), 0u);
}

TEST_F(Region, DestroyDeregistersFirst) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, rw_local);
    ASSERT_EQ(unit_.destroy_region(mr), status::success);
    EXPECT_EQ(unit_.mapped_pages(), 0u);
    EXPECT_EQ(unit_.local_token(mr), 0u);
    EXPECT_EQ(unit_.destroy_region(mr), status::invalid_handle);
}

TEST_F(Region, DeregisterWithABoundWindowIsDeviceBusy) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 1000, all_remote);
    const window_id mw = unit_.create_window(pd_).id;
    const bind_request b{mw, mr, buf.address(), 500, access::remote_read};
    const token_result t = unit_.post_bind(pd_, b);
    ASSERT_EQ(unit_.execute_bind(pd_, b, t.token), status::success);
    EXPECT_EQ(unit_.deregister_region(mr), status::device_busy);
    EXPECT_EQ(unit_.destroy_region(mr), status::device_busy);
    EXPECT_EQ(unit_.describe(mr).state, region_state::valid);
    EXPECT_TRUE(look(t.token, access_op::remote_read, buf.address(), 500).ok());
    ASSERT_EQ(unit_.execute_invalidate(pd_, mw), status::success);
    EXPECT_EQ(unit_.deregister_region(mr), status::success);
}

TEST_F(Region, IommuFullIsInsufficientResources) {
    unit_config cfg = default_config();
    cfg.max_mapped_pages = 2;
    translation_unit small(host_, cfg);
    const pd_id pd = small.create_pd().id;
    guarded_buffer buf(3 * page_size);
    mdl_builder m(host_);
    m.add(buf.data(), 3 * page_size);
    const region_id mr = small.create_region(pd, region_kind::normal).id;
    EXPECT_EQ(small.register_region(mr, m.chain(), 3 * page_size, rw_local),
              status::insufficient_resources);
    EXPECT_EQ(small.describe(mr).state, region_state::unregistered);
    EXPECT_EQ(small.register_region(mr, m.chain(), 2 * page_size, rw_local), status::success);
}

TEST_F(Region, TokenTableFullIsInsufficientResources) {
    unit_config cfg = default_config();
    cfg.max_entries = 3;
    translation_unit small(host_, cfg);
    const pd_id pd = small.create_pd().id;
    EXPECT_EQ(small.create_region(pd, region_kind::normal).st, status::success);
    EXPECT_EQ(small.create_window(pd).st, status::success);
    EXPECT_EQ(small.create_region(pd, region_kind::normal).st, status::insufficient_resources);
    EXPECT_EQ(small.create_pd().st, status::insufficient_resources);
}

TEST_F(Region, UnknownIdsAreInvalidHandle) {
    mdl_builder m(host_);
    EXPECT_EQ(unit_.register_region(region_id{77}, {}, 1, rw_local), status::invalid_parameter);
    guarded_buffer buf(page_size);
    m.add(buf.data(), 10);
    EXPECT_EQ(unit_.register_region(region_id{77}, m.chain(), 10, rw_local),
              status::invalid_handle);
    EXPECT_EQ(unit_.deregister_region(region_id{77}), status::invalid_handle);
    EXPECT_EQ(unit_.create_region(pd_id{99}, region_kind::normal).st, status::invalid_handle);
    EXPECT_EQ(unit_.local_token(region_id{77}), 0u);
}

TEST_F(Region, ProtectionDomainWithRegionsCannotBeDestroyed) {
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    EXPECT_EQ(unit_.destroy_pd(pd_), status::device_busy);
    ASSERT_EQ(unit_.destroy_region(mr), status::success);
    EXPECT_EQ(unit_.destroy_pd(pd_), status::success);
    EXPECT_EQ(unit_.destroy_pd(pd_), status::invalid_handle);
}

TEST_F(Region, RightsComeFromTheFlagsNormalized) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, access::remote_write);
    EXPECT_EQ(unit_.describe(mr).rights,
              access::local_read | access::local_write | access::remote_write);
}

}  // namespace
}  // namespace ndksim::mem::test
