// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

const access remote_rw =
    access_from_op_flags(ndk_flags::op_allow_remote_read | ndk_flags::op_allow_remote_write);
const access local_rw = access_from_op_flags(ndk_flags::op_allow_local_write);

class FastRegister : public unit_test {
  protected:
    explicit FastRegister(unit_config cfg = default_config())
        : unit_test(std::move(cfg)), buf_(4 * page_size) {
        buf_.fill_pattern(1);
        lam_ = lam(buf_.data(), 4 * page_size, pages_);
        mr_ = unit_.create_region(pd_, region_kind::fast_register).id;
        EXPECT_EQ(unit_.initialize_fast_register(mr_, 4, true), status::success);
    }

    fast_register_request request(access rights = remote_rw) const {
        return {mr_, pages_, 0x100, 3 * page_size, 0x5000000100ULL, rights};
    }

    /// Posts and executes `rq`; returns the execution status (or the post status on failure).
    status run(const fast_register_request& rq, std::uint32_t* token = nullptr) {
        const token_result t = unit_.post_fast_register(pd_, rq);
        if (t.st != status::success) {
            return t.st;
        }
        if (token != nullptr) {
            *token = t.token;
        }
        return unit_.execute_fast_register(pd_, rq, t.token);
    }

    guarded_buffer buf_;
    std::vector<std::uint64_t> pages_;
    lam_result lam_;
    region_id mr_{};
};

/// The FastRegister fixture over the default configuration as `Edit` changes it.
template <void (*Edit)(unit_config&)>
class FastRegisterWith : public FastRegister {
  protected:
    static unit_config config() {
        unit_config cfg = default_config();
        Edit(cfg);
        return cfg;
    }
    FastRegisterWith() : FastRegister(config()) {}
};

// The strict option: each fast register issues a new key byte, so an earlier token is stale.
void rotating(unit_config& cfg) {
    cfg.rotate_fast_register_tokens = true;
}
using FastRegisterRotating = FastRegisterWith<rotating>;

// The engine reads a departing packet's payload again through a cursor that leaves the
// translation cache alone: through a fast-registered region it still translates each page of
// the page list and still refuses the region once it is invalidated.
TEST_F(FastRegister, ACursorThatLeavesTheCacheAloneReadsThroughThePageListAndStopsAtInvalidate) {
    std::uint32_t token = 0;
    const fast_register_request rq = request(local_rw);
    ASSERT_EQ(run(rq, &token), status::success);
    const std::vector<sge> list{{rq.base_va + page_size - 8, 16, token}};
    const cache_counters before = unit_.cache_stats();
    std::vector<std::byte> out(16);
    {
        const read_guard g = unit_.read();
        sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
        ASSERT_TRUE(quiet.copy_from_host(g, out).ok());
    }
    EXPECT_EQ(std::memcmp(out.data(), buf_.data() + 0x100 + page_size - 8, 16), 0)
        << "the bytes either side of a page boundary of the list";
    EXPECT_EQ(unit_.cache_stats().misses, before.misses);
    EXPECT_EQ(unit_.cache_stats().hits, before.hits);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    const read_guard g = unit_.read();
    sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
    EXPECT_EQ(quiet.copy_from_host(g, out).failed, fault::invalid_state);
}

TEST_F(FastRegister, InitializeBeyondTheAdapterLimitIsImplementationLimit) {
    const region_id mr = unit_.create_region(pd_, region_kind::fast_register).id;
    EXPECT_EQ(unit_.initialize_fast_register(mr, 65, false), status::implementation_limit);
    EXPECT_EQ(unit_.initialize_fast_register(mr, 64, false), status::success);
}

TEST_F(FastRegister, InitializeOnANormalRegionIsInvalidDeviceRequest) {
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    EXPECT_EQ(unit_.initialize_fast_register(mr, 4, false), status::invalid_device_request);
}

TEST_F(FastRegister, InitializeWithZeroPagesIsInvalidParameter) {
    EXPECT_EQ(unit_.initialize_fast_register(mr_, 0, false), status::invalid_parameter);
}

TEST_F(FastRegister, InitializeWhileValidIsInvalidDeviceState) {
    ASSERT_EQ(run(request()), status::success);
    EXPECT_EQ(unit_.initialize_fast_register(mr_, 2, true), status::invalid_device_state);
}

TEST_F(FastRegisterRotating, TokenIssuedAtPostWorksAfterExecution) {
    const fast_register_request rq = request();
    const token_result t = unit_.post_fast_register(pd_, rq);
    ASSERT_EQ(t.st, status::success);
    EXPECT_EQ(unit_.remote_token(mr_), t.token);
    EXPECT_EQ(look(t.token, access_op::remote_read, rq.base_va, 16).failed, fault::stale_token);
    ASSERT_EQ(unit_.execute_fast_register(pd_, rq, t.token), status::success);
    const auto got = read_bytes(t.token, access_op::remote_read, rq.base_va + 0x10, 6000);
    EXPECT_EQ(std::memcmp(got.data(), buf_.data() + 0x110, 6000), 0);
}

TEST_F(FastRegister, MorePagesThanInitializedIsInvalidParameter) {
    const region_id mr = unit_.create_region(pd_, region_kind::fast_register).id;
    ASSERT_EQ(unit_.initialize_fast_register(mr, 3, true), status::success);
    fast_register_request rq = request();
    rq.region = mr;
    EXPECT_EQ(unit_.post_fast_register(pd_, rq).st, status::invalid_parameter);
    rq.pages = std::span(pages_.data(), 3);
    rq.length = 2 * page_size;
    EXPECT_EQ(run(rq), status::success);
}

TEST_F(FastRegister, RemoteReadWithoutRemoteAccessIsAccessViolation) {
    ASSERT_EQ(unit_.initialize_fast_register(mr_, 4, false), status::success);
    EXPECT_EQ(unit_.post_fast_register(pd_, request(access_from_op_flags(0x8))).st,
              status::access_violation);
}

TEST_F(FastRegister, RemoteWriteWithoutRemoteAccessIsAccessViolation) {
    ASSERT_EQ(unit_.initialize_fast_register(mr_, 4, false), status::success);
    const fast_register_request rq = request(access_from_op_flags(0x30));
    EXPECT_EQ(unit_.post_fast_register(pd_, rq).st, status::access_violation);
    EXPECT_EQ(unit_.execute_fast_register(pd_, rq, unit_.remote_token(mr_)),
              status::access_violation);
}

TEST_F(FastRegister, LocalRightsWithoutRemoteAccessSucceed) {
    ASSERT_EQ(unit_.initialize_fast_register(mr_, 4, false), status::success);
    std::uint32_t token = 0;
    ASSERT_EQ(run(request(local_rw), &token), status::success);
    EXPECT_TRUE(look(token, access_op::local_write, 0x5000000100ULL, 100).ok());
    EXPECT_EQ(look(token, access_op::remote_read, 0x5000000100ULL, 100).failed,
              fault::access_denied);
}

TEST_F(FastRegister, FboOfAPageOrMoreIsInvalidParameter) {
    fast_register_request rq = request();
    rq.fbo = page_size;
    rq.base_va = 0x5000001000ULL;
    rq.length = 100;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, LengthBeyondPagesMinusFboIsInvalidParameter) {
    fast_register_request rq = request();
    rq.length = 4 * page_size - rq.fbo + 1;
    EXPECT_EQ(run(rq), status::invalid_parameter);
    rq.length = 4 * page_size - rq.fbo;
    EXPECT_EQ(run(rq), status::success);
}

TEST_F(FastRegister, BaseAddressNotFboPlusPageMultipleIsInvalidParameter) {
    fast_register_request rq = request();
    rq.base_va = 0x5000000200ULL;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, ZeroBaseAddressIsInvalidParameter) {
    fast_register_request rq = request();
    rq.fbo = 0;
    rq.base_va = 0;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, WrappingRangeIsInvalidParameter) {
    fast_register_request rq = request();
    rq.base_va = 0xFFFFFFFFFFFFF100ULL;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, UnalignedPageAddressIsInvalidParameter) {
    std::vector<std::uint64_t> bad = pages_;
    bad[2] += 8;
    fast_register_request rq = request();
    rq.pages = bad;
    EXPECT_EQ(unit_.post_fast_register(pd_, rq).st, status::invalid_parameter);
}

TEST_F(FastRegister, PageNotMappedByTheIommuIsInvalidParameter) {
    std::vector<std::uint64_t> bad = pages_;
    bad[1] = buf_.address() & ~page_mask;  // a virtual address, not a logical one
    fast_register_request rq = request();
    rq.pages = bad;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, PageOfANormalRegistrationIsNotALamPage) {
    guarded_buffer other(page_size);
    registered(other.data(), page_size, access::local_write);
    // The registration's single page was mapped right after the LAM's four.
    std::vector<std::uint64_t> bad{pages_[3] + page_size};
    fast_register_request rq = request();
    rq.pages = bad;
    rq.length = 100;
    EXPECT_EQ(run(rq), status::invalid_parameter);
}

TEST_F(FastRegister, LamReleasedBetweenPostAndExecutionIsInvalidParameter) {
    const fast_register_request rq = request();
    const token_result t = unit_.post_fast_register(pd_, rq);
    ASSERT_EQ(t.st, status::success);
    ASSERT_TRUE(unit_.release_lam(lam_.id));
    EXPECT_EQ(unit_.execute_fast_register(pd_, rq, t.token), status::invalid_parameter);
    EXPECT_EQ(unit_.describe(mr_).state, region_state::free);
}

TEST_F(FastRegister, LamReleasedAfterRegistrationFaultsTheAccessNotTheHost) {
    std::uint32_t token = 0;
    ASSERT_EQ(run(request(), &token), status::success);
    ASSERT_TRUE(unit_.release_lam(lam_.id));
    EXPECT_EQ(look(token, access_op::remote_write, 0x5000000100ULL, 64).failed, fault::unmapped);
    EXPECT_TRUE(buf_.guards_intact());
}

TEST_F(FastRegister, FastRegisterOnANormalRegionIsInvalidDeviceRequest) {
    const region_id mr = unit_.create_region(pd_, region_kind::normal).id;
    fast_register_request rq = request();
    rq.region = mr;
    EXPECT_EQ(unit_.post_fast_register(pd_, rq).st, status::invalid_device_request);
}

TEST_F(FastRegister, FastRegisterBeforeInitializeIsInvalidDeviceState) {
    const region_id mr = unit_.create_region(pd_, region_kind::fast_register).id;
    fast_register_request rq = request();
    rq.region = mr;
    EXPECT_EQ(unit_.post_fast_register(pd_, rq).st, status::invalid_device_state);
}

TEST_F(FastRegister, ReRegistrationWithoutInvalidateIsInvalidDeviceState) {
    ASSERT_EQ(run(request()), status::success);
    EXPECT_EQ(run(request()), status::invalid_device_state);
}

TEST_F(FastRegister, QpOfAnotherPdIsAccessViolation) {
    const pd_id other = unit_.create_pd().id;
    EXPECT_EQ(unit_.post_fast_register(other, request()).st, status::access_violation);
}

TEST_F(FastRegister, ExecutionWithATokenOfAnotherEntryIsInvalidParameter) {
    const fast_register_request rq = request();
    ASSERT_EQ(unit_.post_fast_register(pd_, rq).st, status::success);
    EXPECT_EQ(unit_.execute_fast_register(pd_, rq, make_token(raw(mr_) + 1, 0)),
              status::invalid_parameter);
}

// By default the token read after initialization names the region through every later fast
// register: it is refused while the region is invalid and works again once it is registered.
TEST_F(FastRegister, TheTokenStaysTheSameThroughInvalidateAndReRegistration) {
    const std::uint32_t initial = unit_.remote_token(mr_);
    std::uint32_t first = 0;
    ASSERT_EQ(run(request(), &first), status::success);
    EXPECT_EQ(first, initial);
    EXPECT_TRUE(look(initial, access_op::remote_read, 0x5000000100ULL, 16).ok());
    EXPECT_EQ(unit_.post_invalidate(pd_, mr_), status::success);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    EXPECT_EQ(look(initial, access_op::remote_read, 0x5000000100ULL, 16).failed,
              fault::invalid_state);
    std::uint32_t second = 0;
    ASSERT_EQ(run(request(), &second), status::success);
    EXPECT_EQ(second, initial);
    EXPECT_TRUE(look(initial, access_op::remote_read, 0x5000000100ULL, 16).ok());
}

TEST_F(FastRegisterRotating, InvalidatedTokenIsRefusedAndReRegistrationIssuesANewOne) {
    std::uint32_t first = 0;
    ASSERT_EQ(run(request(), &first), status::success);
    EXPECT_EQ(unit_.post_invalidate(pd_, mr_), status::success);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    EXPECT_EQ(look(first, access_op::remote_read, 0x5000000100ULL, 16).failed,
              fault::invalid_state);
    std::uint32_t second = 0;
    ASSERT_EQ(run(request(), &second), status::success);
    EXPECT_NE(second, first);
    EXPECT_EQ(look(first, access_op::remote_read, 0x5000000100ULL, 16).failed, fault::stale_token);
    EXPECT_TRUE(look(second, access_op::remote_read, 0x5000000100ULL, 16).ok());
}

TEST_F(FastRegisterRotating, TokensStayCorrectWhenInvalidateAndRegisterArePostedBackToBack) {
    std::uint32_t first = 0;
    ASSERT_EQ(run(request(), &first), status::success);
    ASSERT_EQ(unit_.post_invalidate(pd_, mr_), status::success);
    const token_result t = unit_.post_fast_register(pd_, request());
    ASSERT_EQ(t.st, status::success);
    EXPECT_EQ(unit_.remote_token(mr_), t.token);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    ASSERT_EQ(unit_.execute_fast_register(pd_, request(), t.token), status::success);
    EXPECT_EQ(unit_.remote_token(mr_), t.token);
    EXPECT_TRUE(look(t.token, access_op::remote_read, 0x5000000100ULL, 16).ok());
}

TEST_F(FastRegister, InvalidateOfANormalRegionIsInvalidDeviceRequest) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, access::local_write);
    EXPECT_EQ(unit_.post_invalidate(pd_, mr), status::invalid_device_request);
    EXPECT_EQ(unit_.execute_invalidate(pd_, mr), status::invalid_device_request);
    EXPECT_EQ(unit_.execute_invalidate_token(pd_, unit_.local_token(mr)),
              status::invalid_device_request);
    EXPECT_EQ(unit_.describe(mr).state, region_state::valid);
}

TEST_F(FastRegister, InvalidateTwiceIsInvalidDeviceState) {
    ASSERT_EQ(run(request()), status::success);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    EXPECT_EQ(unit_.execute_invalidate(pd_, mr_), status::invalid_device_state);
}

TEST_F(FastRegister, InvalidateFromAnotherPdIsAccessViolation) {
    ASSERT_EQ(run(request()), status::success);
    const pd_id other = unit_.create_pd().id;
    EXPECT_EQ(unit_.post_invalidate(other, mr_), status::access_violation);
    EXPECT_EQ(unit_.execute_invalidate(other, mr_), status::access_violation);
}

TEST_F(FastRegister, InvalidateWithABoundWindowIsDeviceBusy) {
    std::uint32_t token = 0;
    ASSERT_EQ(run(request(local_rw), &token), status::success);
    const window_id mw = unit_.create_window(pd_).id;
    const bind_request b{mw, mr_, 0x5000000100ULL, 64, access::remote_read};
    const token_result t = unit_.post_bind(pd_, b);
    ASSERT_EQ(unit_.execute_bind(pd_, b, t.token), status::success);
    EXPECT_EQ(unit_.execute_invalidate(pd_, mr_), status::device_busy);
}

TEST_F(FastRegisterRotating, InvalidateByTokenRefusesAStaleToken) {
    std::uint32_t first = 0;
    ASSERT_EQ(run(request(), &first), status::success);
    ASSERT_EQ(unit_.execute_invalidate_token(pd_, first), status::success);
    std::uint32_t second = 0;
    ASSERT_EQ(run(request(), &second), status::success);
    EXPECT_EQ(unit_.execute_invalidate_token(pd_, first), status::access_violation);
    EXPECT_EQ(unit_.describe(mr_).state, region_state::valid);
}

TEST_F(FastRegister, PrivilegedTokenCannotBeInvalidated) {
    EXPECT_EQ(unit_.execute_invalidate_token(pd_, unit_.privileged_token(pd_)),
              status::invalid_device_request);
}

TEST_F(FastRegister, PagesFromAnyPlaceInTheLogicalSpaceFormOneVirtualRange) {
    // Reverse page order: the region is virtually contiguous, its logical pages are not.
    std::vector<std::uint64_t> reversed(pages_.rbegin(), pages_.rend());
    fast_register_request rq{mr_, reversed, 0, 4 * page_size, 0x6000000000ULL, remote_rw};
    std::uint32_t token = 0;
    ASSERT_EQ(run(rq, &token), status::success);
    const auto got = read_bytes(token, access_op::remote_read, 0x6000000000ULL + page_size - 8, 16);
    EXPECT_EQ(std::memcmp(got.data(), buf_.data() + 4 * page_size - 8, 8), 0);
    EXPECT_EQ(std::memcmp(got.data() + 8, buf_.data() + 2 * page_size, 8), 0);
}

void read_sink_required(unit_config& cfg) {
    cfg.read_sink_not_required = false;
}
using FastRegisterReadSinkRequired = FastRegisterWith<read_sink_required>;

TEST_F(FastRegisterReadSinkRequired, ReadSinkNeedsTheReadSinkFlag) {
    std::uint32_t token = 0;
    ASSERT_EQ(run(request(local_rw), &token), status::success);
    EXPECT_EQ(look(token, access_op::read_sink, 0x5000000100ULL, 64).failed, fault::access_denied);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    ASSERT_EQ(run(request(access_from_op_flags(0x10 | 0x80)), &token), status::success);
    EXPECT_TRUE(look(token, access_op::read_sink, 0x5000000100ULL, 64).ok());
}

TEST_F(FastRegister, ReadSinkFlagIsAcceptedAndIgnoredWhenNotRequired) {
    std::uint32_t token = 0;
    ASSERT_EQ(run(request(local_rw), &token), status::success);
    EXPECT_TRUE(look(token, access_op::read_sink, 0x5000000100ULL, 64).ok());
    ASSERT_EQ(unit_.execute_invalidate(pd_, mr_), status::success);
    ASSERT_EQ(run(request(access_from_op_flags(0x10 | 0x80)), &token), status::success);
    EXPECT_TRUE(look(token, access_op::read_sink, 0x5000000100ULL, 64).ok());
}

}  // namespace
}  // namespace ndksim::mem::test
