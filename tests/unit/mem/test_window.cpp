// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

const access bind_rw =
    access_from_op_flags(ndk_flags::op_allow_remote_read | ndk_flags::op_allow_remote_write);
const access bind_read = access_from_op_flags(ndk_flags::op_allow_remote_read);

class Window : public unit_test {
  protected:
    Window() : buf_(4 * page_size) {
        buf_.fill_pattern(5);
        mr_ = registered(buf_.data(), 4 * page_size,
                         access_from_mr_flags(ndk_flags::mr_allow_local_write));
        mw_ = unit_.create_window(pd_).id;
    }

    bind_request request(std::uint64_t offset, std::uint64_t length, access rights) const {
        return {mw_, mr_, buf_.address() + offset, length, rights};
    }

    status bind(const bind_request& rq, std::uint32_t* token = nullptr, pd_id qp = pd_id::none) {
        const pd_id pd = qp == pd_id::none ? pd_ : qp;
        const token_result t = unit_.post_bind(pd, rq);
        if (t.st != status::success) {
            return t.st;
        }
        if (token != nullptr) {
            *token = t.token;
        }
        return unit_.execute_bind(pd, rq, t.token);
    }

    guarded_buffer buf_;
    region_id mr_{};
    window_id mw_{};
};

TEST_F(Window, BoundWindowGrantsRemoteAccessInsideItsRangeOnly) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0x1000, 0x800, bind_rw), &token), status::success);
    EXPECT_EQ(unit_.window_token(mw_), token);
    const std::uint64_t base = buf_.address() + 0x1000;
    EXPECT_TRUE(look(token, access_op::remote_write, base, 0x800).ok());
    EXPECT_TRUE(look(token, access_op::remote_read, base + 0x7FF, 1).ok());
    EXPECT_EQ(look(token, access_op::remote_read, base - 1, 2).failed, fault::out_of_bounds);
    EXPECT_EQ(look(token, access_op::remote_read, base + 0x7FF, 2).failed, fault::out_of_bounds);
    const auto got = read_bytes(token, access_op::remote_read, base + 0x10, 0x100);
    EXPECT_EQ(std::memcmp(got.data(), buf_.data() + 0x1010, 0x100), 0);
}

TEST_F(Window, BindBeyondTheRegionIsInvalidParameter) {
    EXPECT_EQ(unit_.post_bind(pd_, request(3 * page_size, page_size + 1, bind_read)).st,
              status::invalid_parameter);
    EXPECT_EQ(unit_.post_bind(pd_, request(0, 5 * page_size, bind_read)).st,
              status::invalid_parameter);
    bind_request before = request(0, 16, bind_read);
    before.va -= 1;
    EXPECT_EQ(unit_.post_bind(pd_, before).st, status::invalid_parameter);
    EXPECT_EQ(unit_.execute_bind(pd_, before, unit_.window_token(mw_)), status::invalid_parameter);
    EXPECT_EQ(bind(request(3 * page_size, page_size, bind_read)), status::success);
}

TEST_F(Window, BindRangeThatWrapsIsInvalidParameter) {
    EXPECT_EQ(unit_.post_bind(pd_, request(16, ~std::uint64_t{0}, bind_read)).st,
              status::invalid_parameter);
}

TEST_F(Window, RemoteWriteOnARegionWithoutLocalWriteIsAccessViolation) {
    const region_id ro =
        registered(buf_.data(), page_size, access_from_mr_flags(ndk_flags::mr_allow_remote_read));
    const bind_request rq{mw_, ro, buf_.address(), 64, bind_rw};
    EXPECT_EQ(unit_.post_bind(pd_, rq).st, status::access_violation);
    EXPECT_EQ(unit_.execute_bind(pd_, rq, unit_.window_token(mw_)), status::access_violation);
    EXPECT_EQ(bind({mw_, ro, buf_.address(), 64, bind_read}), status::success);
}

TEST_F(Window, ZeroVirtualAddressIsInvalidParameter) {
    bind_request rq = request(0, 16, bind_read);
    rq.va = 0;
    EXPECT_EQ(unit_.post_bind(pd_, rq).st, status::invalid_parameter);
}

TEST_F(Window, BindToAnUnregisteredRegionFailsAtExecution) {
    const region_id fresh = unit_.create_region(pd_, region_kind::normal).id;
    const bind_request rq{mw_, fresh, buf_.address(), 16, bind_read};
    const token_result t = unit_.post_bind(pd_, rq);
    ASSERT_EQ(t.st, status::success);
    EXPECT_EQ(unit_.execute_bind(pd_, rq, t.token), status::invalid_device_state);
    EXPECT_EQ(unit_.describe(mw_).state, window_state::free);
}

TEST_F(Window, BindAcrossProtectionDomainsIsAccessViolation) {
    const pd_id other = unit_.create_pd().id;
    const window_id foreign = unit_.create_window(other).id;
    EXPECT_EQ(bind(request(0, 16, bind_read), nullptr, other), status::access_violation);
    bind_request rq = request(0, 16, bind_read);
    rq.window = foreign;
    EXPECT_EQ(bind(rq), status::access_violation);
    EXPECT_EQ(bind(rq, nullptr, other), status::access_violation);
}

TEST_F(Window, RebindIssuesANewTokenAndTheOldOneIsStale) {
    std::uint32_t first = 0;
    ASSERT_EQ(bind(request(0, 64, bind_read), &first), status::success);
    std::uint32_t second = 0;
    ASSERT_EQ(bind(request(0x2000, 64, bind_read), &second), status::success);
    EXPECT_NE(first, second);
    EXPECT_EQ(look(first, access_op::remote_read, buf_.address(), 64).failed, fault::stale_token);
    EXPECT_TRUE(look(second, access_op::remote_read, buf_.address() + 0x2000, 64).ok());
}

TEST_F(Window, InvalidatedWindowRefusesItsToken) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0, 64, bind_rw), &token), status::success);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mw_), status::success);
    const lookup_result r = look(token, access_op::remote_write, buf_.address(), 64);
    EXPECT_EQ(r.failed, fault::invalid_state);
    EXPECT_EQ(r.st(), status::access_violation);
    EXPECT_EQ(unit_.execute_invalidate(pd_, mw_), status::invalid_device_state);
}

TEST_F(Window, InvalidateFromAnotherPdIsAccessViolation) {
    ASSERT_EQ(bind(request(0, 64, bind_rw)), status::success);
    EXPECT_EQ(unit_.execute_invalidate(unit_.create_pd().id, mw_), status::access_violation);
}

TEST_F(Window, InvalidateByTokenWorksForAWindow) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0, 64, bind_rw), &token), status::success);
    EXPECT_EQ(unit_.execute_invalidate_token(pd_, token), status::success);
    EXPECT_EQ(unit_.describe(mw_).state, window_state::free);
    EXPECT_EQ(unit_.execute_invalidate_token(pd_, token), status::invalid_device_state);
}

TEST_F(Window, BoundWindowPinsItsRegionAndTheCountFollowsBinds) {
    EXPECT_EQ(unit_.describe(mr_).bound_windows, 0u);
    ASSERT_EQ(bind(request(0, 64, bind_read)), status::success);
    EXPECT_EQ(unit_.describe(mr_).bound_windows, 1u);
    ASSERT_EQ(bind(request(64, 64, bind_read)), status::success);  // rebind, same region
    EXPECT_EQ(unit_.describe(mr_).bound_windows, 1u);
    const region_id other = registered(buf_.data(), 128, access::local_write);
    ASSERT_EQ(bind({mw_, other, buf_.address(), 16, bind_read}), status::success);
    EXPECT_EQ(unit_.describe(mr_).bound_windows, 0u);
    EXPECT_EQ(unit_.describe(other).bound_windows, 1u);
    EXPECT_EQ(unit_.describe(mw_).region, other);
    ASSERT_EQ(unit_.destroy_window(mw_), status::success);
    EXPECT_EQ(unit_.describe(other).bound_windows, 0u);
    EXPECT_EQ(unit_.deregister_region(other), status::success);
}

TEST_F(Window, TwoWindowsPinTheRegionTwice) {
    const window_id second = unit_.create_window(pd_).id;
    ASSERT_EQ(bind(request(0, 64, bind_read)), status::success);
    bind_request rq = request(0, 64, bind_read);
    rq.window = second;
    ASSERT_EQ(bind(rq), status::success);
    EXPECT_EQ(unit_.describe(mr_).bound_windows, 2u);
    ASSERT_EQ(unit_.execute_invalidate(pd_, mw_), status::success);
    EXPECT_EQ(unit_.deregister_region(mr_), status::device_busy);
    ASSERT_EQ(unit_.execute_invalidate(pd_, second), status::success);
    EXPECT_EQ(unit_.deregister_region(mr_), status::success);
}

TEST_F(Window, WindowNeverGrantsLocalAccess) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0, 64, bind_rw), &token), status::success);
    EXPECT_EQ(unit_.describe(mw_).rights, access::remote_read | access::remote_write);
    EXPECT_EQ(look(token, access_op::local_read, buf_.address(), 8).failed, fault::access_denied);
    EXPECT_EQ(look(token, access_op::local_write, buf_.address(), 8).failed, fault::access_denied);
}

TEST_F(Window, ReadOnlyWindowRefusesRemoteWrite) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0, 64, bind_read), &token), status::success);
    EXPECT_EQ(look(token, access_op::remote_write, buf_.address(), 8).failed, fault::access_denied);
}

TEST_F(Window, WrongPdOnAccessIsRefused) {
    std::uint32_t token = 0;
    ASSERT_EQ(bind(request(0, 64, bind_rw), &token), status::success);
    const pd_id other = unit_.create_pd().id;
    EXPECT_EQ(look(token, access_op::remote_read, buf_.address(), 8, other).failed,
              fault::wrong_pd);
}

TEST_F(Window, DestroyingAnUnboundWindowReleasesItsSlot) {
    const std::uint32_t token = unit_.window_token(mw_);
    ASSERT_EQ(unit_.destroy_window(mw_), status::success);
    EXPECT_EQ(unit_.window_token(mw_), 0u);
    EXPECT_EQ(look(token, access_op::remote_read, buf_.address(), 8).failed, fault::unknown_token);
    EXPECT_EQ(unit_.destroy_window(mw_), status::invalid_handle);
}

}  // namespace
}  // namespace ndksim::mem::test
