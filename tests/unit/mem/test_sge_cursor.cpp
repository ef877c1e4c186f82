// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

std::vector<std::byte> payload(std::size_t n, std::uint8_t seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<std::byte>(seed + i * 13);
    }
    return v;
}

class SgeCursor : public unit_test {
  protected:
    SgeCursor() : a_(3 * page_size, 0x7F0), b_(2 * page_size, 0x10) {
        a_.fill_pattern(1);
        b_.fill_pattern(2);
        const access rw = access_from_mr_flags(ndk_flags::mr_allow_local_write);
        va_a_ = fake_va(a_.data(), 100);
        va_b_ = fake_va(b_.data(), 200);
        ta_ = unit_.local_token(registered(a_.data(), 3 * page_size, rw, va_a_));
        tb_ = unit_.local_token(registered(b_.data(), 2 * page_size, rw, va_b_));
    }

    guarded_buffer a_;
    guarded_buffer b_;
    std::uint64_t va_a_ = 0;
    std::uint64_t va_b_ = 0;
    std::uint32_t ta_ = 0;
    std::uint32_t tb_ = 0;
};

TEST_F(SgeCursor, GathersAcrossPageAndSgeBoundaries) {
    const std::vector<sge> list{{va_a_ + 100, 9000, ta_}, {va_b_ + 5, 5000, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    EXPECT_EQ(c.total_length(), 14000u);
    std::vector<std::byte> out(14000);
    const read_guard g = unit_.read();
    const copy_result r = c.copy_from_host(g, out);
    ASSERT_TRUE(r.ok()) << fault_name(r.failed);
    EXPECT_EQ(r.bytes, 14000u);
    EXPECT_EQ(std::memcmp(out.data(), a_.data() + 100, 9000), 0);
    EXPECT_EQ(std::memcmp(out.data() + 9000, b_.data() + 5, 5000), 0);
    EXPECT_EQ(c.remaining(), 0u);
}

TEST_F(SgeCursor, ScattersAcrossPageAndSgeBoundariesAndNothingElse) {
    const std::vector<sge> list{{va_b_ + 4000, 200, tb_}, {va_a_ + 3, 8200, ta_}};
    sge_cursor c(unit_, pd_, access_op::local_write, list);
    const auto src = payload(8400, 9);
    std::vector<std::byte> expect_a(a_.data(), a_.data() + a_.size());
    std::vector<std::byte> expect_b(b_.data(), b_.data() + b_.size());
    std::memcpy(expect_b.data() + 4000, src.data(), 200);
    std::memcpy(expect_a.data() + 3, src.data() + 200, 8200);
    const read_guard g = unit_.read();
    const copy_result r = c.copy_to_host(g, src);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.bytes, 8400u);
    EXPECT_EQ(std::memcmp(a_.data(), expect_a.data(), a_.size()), 0);
    EXPECT_EQ(std::memcmp(b_.data(), expect_b.data(), b_.size()), 0);
    EXPECT_TRUE(a_.guards_intact());
    EXPECT_TRUE(b_.guards_intact());
}

TEST_F(SgeCursor, ZeroLengthSgesAreSkippedWithoutALookup) {
    const std::vector<sge> list{{0, 0, 0xDEADBEEF}, {va_a_, 10, ta_}, {1, 0, 0}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    std::vector<std::byte> out(10);
    const read_guard g = unit_.read();
    EXPECT_TRUE(c.validate(g).ok());
    const copy_result r = c.copy_from_host(g, out);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.bytes, 10u);
}

TEST_F(SgeCursor, PartialCopiesResumeWhereTheyStopped) {
    const std::vector<sge> list{{va_a_ + 50, 7000, ta_}, {va_b_, 3000, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    std::vector<std::byte> out(10000);
    const read_guard g = unit_.read();
    std::size_t done = 0;
    for (const std::size_t step : {1u, 4095u, 2000u, 1000u, 2904u}) {
        const copy_result r = c.copy_from_host(g, std::span(out.data() + done, step));
        ASSERT_TRUE(r.ok());
        ASSERT_EQ(r.bytes, step);
        done += step;
        EXPECT_EQ(c.position(), done);
    }
    EXPECT_EQ(std::memcmp(out.data(), a_.data() + 50, 7000), 0);
    EXPECT_EQ(std::memcmp(out.data() + 7000, b_.data(), 3000), 0);
}

TEST_F(SgeCursor, CopyStopsAtTheEndOfTheList) {
    const std::vector<sge> list{{va_a_, 100, ta_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    std::vector<std::byte> out(300);
    const read_guard g = unit_.read();
    EXPECT_EQ(c.copy_from_host(g, out).bytes, 100u);
    EXPECT_EQ(c.copy_from_host(g, out).bytes, 0u);
}

TEST_F(SgeCursor, RefusedSgeIsNeverTouched) {
    // The second SGE leaves region b by one byte.
    const std::vector<sge> list{{va_a_, 100, ta_}, {va_b_ + 10, 2 * page_size - 9, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_write, list);
    const std::vector<std::byte> before_b(b_.data(), b_.data() + b_.size());
    const auto src = payload(2 * page_size + 91, 4);
    const read_guard g = unit_.read();
    const copy_result r = c.copy_to_host(g, src);
    EXPECT_EQ(r.failed, fault::out_of_bounds);
    EXPECT_EQ(r.st(), status::access_violation);
    EXPECT_EQ(r.sge_index, 1u);
    EXPECT_EQ(r.bytes, 100u);
    EXPECT_EQ(std::memcmp(a_.data(), src.data(), 100), 0);
    EXPECT_EQ(std::memcmp(b_.data(), before_b.data(), b_.size()), 0);
    EXPECT_TRUE(b_.guards_intact());
}

TEST_F(SgeCursor, ValidateReportsTheFirstRefusedSge) {
    const std::vector<sge> list{{va_a_, 100, ta_}, {va_b_, 100, tb_ + 1}, {va_a_, 1, 0}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    const read_guard g = unit_.read();
    const copy_result r = c.validate(g);
    EXPECT_EQ(r.failed, fault::stale_token);
    EXPECT_EQ(r.sge_index, 1u);
    EXPECT_EQ(c.position(), 0u);
}

TEST_F(SgeCursor, ABorrowOfOneHostRunCopiesNothingAndPointsAtTheBytes) {
    const std::vector<sge> list{{va_a_ + 100, 9000, ta_}, {va_b_ + 5, 5000, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    std::vector<std::byte> out(4096, std::byte{0xEE});
    const read_guard g = unit_.read();
    // Across a page boundary of region a: its pages lie one after the other in host memory.
    const std::byte* borrowed = nullptr;
    copy_result r = c.borrow_from_host(g, out, borrowed);
    ASSERT_TRUE(r.ok()) << fault_name(r.failed);
    EXPECT_EQ(r.bytes, 4096u);
    EXPECT_EQ(borrowed, a_.data() + 100);
    EXPECT_EQ(out[0], std::byte{0xEE}) << "nothing copied";
    EXPECT_EQ(c.position(), 4096u);
    // Across the two SGEs (4904 bytes of a, then b): two runs, copied as copy_from_host would.
    std::vector<std::byte> both(6000);
    r = c.borrow_from_host(g, both, borrowed);
    ASSERT_TRUE(r.ok()) << fault_name(r.failed);
    EXPECT_EQ(borrowed, nullptr);
    EXPECT_EQ(std::memcmp(both.data(), a_.data() + 100 + 4096, 4904), 0);
    EXPECT_EQ(std::memcmp(both.data() + 4904, b_.data() + 5, 1096), 0);
}

TEST_F(SgeCursor, ABorrowRefusesWhatACopyWould) {
    const std::vector<sge> list{{va_a_, 100, ta_ + 1}};
    std::vector<std::byte> out(100);
    const read_guard g = unit_.read();
    const std::byte* borrowed = a_.data();
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    EXPECT_EQ(c.borrow_from_host(g, out, borrowed).failed, fault::stale_token);
    EXPECT_EQ(borrowed, nullptr);
    const std::vector<sge> good{{va_a_, 100, ta_}};
    sge_cursor writer(unit_, pd_, access_op::local_write, good);
    EXPECT_EQ(writer.borrow_from_host(g, out, borrowed).failed, fault::access_denied);
    EXPECT_EQ(borrowed, nullptr);
}

TEST_F(SgeCursor, CopyDirectionMustMatchTheOperation) {
    const std::vector<sge> list{{va_a_, 100, ta_}};
    std::vector<std::byte> buf(100);
    const read_guard g = unit_.read();
    sge_cursor reader(unit_, pd_, access_op::local_read, list);
    EXPECT_EQ(reader.copy_to_host(g, buf).failed, fault::access_denied);
    sge_cursor writer(unit_, pd_, access_op::local_write, list);
    EXPECT_EQ(writer.copy_from_host(g, buf).failed, fault::access_denied);
    EXPECT_TRUE(a_.guards_intact());
}

TEST_F(SgeCursor, DeregistrationBetweenGuardsIsNoticedBeforeMoreBytesMove) {
    guarded_buffer c_buf(page_size);
    const region_id mr = registered(c_buf.data(), page_size, access::local_write);
    const std::vector<sge> list{{c_buf.address(), page_size, unit_.local_token(mr)}};
    sge_cursor c(unit_, pd_, access_op::local_write, list);
    const auto src = payload(page_size, 3);
    {
        const read_guard g = unit_.read();
        ASSERT_EQ(c.copy_to_host(g, std::span(src.data(), 100)).bytes, 100u);
    }
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    const std::vector<std::byte> before(c_buf.data(), c_buf.data() + page_size);
    const read_guard g = unit_.read();
    const copy_result r = c.copy_to_host(g, std::span(src.data() + 100, 100));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(std::memcmp(c_buf.data(), before.data(), page_size), 0);
}

TEST_F(SgeCursor, SeekRepositionsTheCursor) {
    const std::vector<sge> list{{va_a_, 1000, ta_}, {va_b_, 1000, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    const read_guard g = unit_.read();
    c.seek(1500);
    std::vector<std::byte> out(100);
    ASSERT_EQ(c.copy_from_host(g, out).bytes, 100u);
    EXPECT_EQ(std::memcmp(out.data(), b_.data() + 500, 100), 0);
    c.seek(1000);
    ASSERT_EQ(c.copy_from_host(g, out).bytes, 100u);
    EXPECT_EQ(std::memcmp(out.data(), b_.data(), 100), 0);
    c.seek(10);
    ASSERT_EQ(c.copy_from_host(g, out).bytes, 100u);
    EXPECT_EQ(std::memcmp(out.data(), a_.data() + 10, 100), 0);
    c.seek(99999);
    EXPECT_EQ(c.remaining(), 0u);
}

TEST_F(SgeCursor, RemoteRangeIsASingleElementList) {
    const region_id mr =
        registered(a_.data(), 3 * page_size, access_from_mr_flags(ndk_flags::mr_allow_remote_write),
                   fake_va(a_.data(), 900));
    const sge remote{fake_va(a_.data(), 900) + 4096, 5000, unit_.remote_token(mr)};
    sge_cursor c(unit_, pd_, access_op::remote_write, std::span(&remote, 1));
    const auto src = payload(5000, 8);
    const read_guard g = unit_.read();
    ASSERT_TRUE(c.copy_to_host(g, src).ok());
    EXPECT_EQ(std::memcmp(a_.data() + 4096, src.data(), 5000), 0);
}

TEST_F(SgeCursor, LookupsReportTheirCacheMisses) {
    const std::vector<sge> list{{va_a_, 3 * page_size, ta_}};
    std::vector<std::byte> out(3 * page_size);
    const read_guard g = unit_.read();
    sge_cursor first(unit_, pd_, access_op::local_read, list);
    EXPECT_EQ(first.copy_from_host(g, out).cache_misses, 4u);
    sge_cursor second(unit_, pd_, access_op::local_read, list);
    EXPECT_EQ(second.copy_from_host(g, out).cache_misses, 0u);
}

TEST_F(SgeCursor, AValidatedTargetIsTranslatedOnce) {
    // A remote WRITE's target over four pages: the check looks each page up once, and the
    // placement that follows reuses that translation instead of touching the cache again.
    const region_id mr =
        registered(a_.data(), 3 * page_size, access_from_mr_flags(ndk_flags::mr_allow_remote_write),
                   fake_va(a_.data(), 900));
    const sge remote{fake_va(a_.data(), 900), 3 * page_size, unit_.remote_token(mr)};
    sge_cursor c(unit_, pd_, access_op::remote_write, std::span(&remote, 1));
    const auto src = payload(3 * page_size, 9);
    const read_guard g = unit_.read();
    const cache_counters before = unit_.cache_stats();
    const copy_result checked = c.validate(g);
    ASSERT_TRUE(checked.ok());
    EXPECT_EQ(checked.cache_misses, 4u);
    const cache_counters validated = unit_.cache_stats();
    EXPECT_EQ(validated.misses - before.misses, 4u);
    const copy_result placed = c.copy_to_host(g, src);
    ASSERT_TRUE(placed.ok());
    EXPECT_EQ(placed.bytes, 3 * page_size);
    EXPECT_EQ(placed.cache_misses, 0u);
    const cache_counters after = unit_.cache_stats();
    EXPECT_EQ(after.hits, validated.hits) << "the placement touched the cache again";
    EXPECT_EQ(after.misses, validated.misses);
    EXPECT_EQ(std::memcmp(a_.data(), src.data(), 3 * page_size), 0);
}

TEST_F(SgeCursor, ATargetDeregisteredAfterItsCheckIsRefusedAtPlacement) {
    guarded_buffer c_buf(page_size);
    const region_id mr =
        registered(c_buf.data(), page_size, access_from_mr_flags(ndk_flags::mr_allow_remote_write),
                   fake_va(c_buf.data(), 300));
    const sge remote{fake_va(c_buf.data(), 300), page_size, unit_.remote_token(mr)};
    sge_cursor c(unit_, pd_, access_op::remote_write, std::span(&remote, 1));
    {
        const read_guard g = unit_.read();
        ASSERT_TRUE(c.validate(g).ok());
    }
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    const std::vector<std::byte> before(c_buf.data(), c_buf.data() + page_size);
    const auto src = payload(page_size, 4);
    const read_guard g = unit_.read();
    const copy_result r = c.copy_to_host(g, src);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(std::memcmp(c_buf.data(), before.data(), page_size), 0);
    EXPECT_TRUE(c_buf.guards_intact());
}

TEST_F(SgeCursor, SkipRefusesWhatACopyWouldAndMovesNoByte) {
    // The second SGE leaves region b by one byte.
    const std::vector<sge> list{{va_a_, 100, ta_}, {va_b_ + 10, 2 * page_size - 9, tb_}};
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    const std::vector<std::byte> before_a(a_.data(), a_.data() + a_.size());
    const read_guard g = unit_.read();
    const copy_result r = c.skip(g, 2 * page_size + 91);
    EXPECT_EQ(r.failed, fault::out_of_bounds);
    EXPECT_EQ(r.sge_index, 1u);
    EXPECT_EQ(r.bytes, 100u);
    EXPECT_EQ(c.position(), 100u);
    EXPECT_EQ(std::memcmp(a_.data(), before_a.data(), a_.size()), 0);
}

TEST_F(SgeCursor, SkipPassesOverBytesAndTouchesTheCacheAsTheCopyWould) {
    const std::vector<sge> list{{va_a_, 3 * page_size, ta_}};
    const read_guard g = unit_.read();
    sge_cursor c(unit_, pd_, access_op::local_read, list);
    const copy_result r = c.skip(g, 5000);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.bytes, 5000u);
    EXPECT_EQ(r.cache_misses, 4u) << "the SGE's whole length is looked up, as a copy does";
    std::vector<std::byte> out(100);
    ASSERT_EQ(c.copy_from_host(g, out).bytes, 100u);
    EXPECT_EQ(std::memcmp(out.data(), a_.data() + 5000, 100), 0);
}

TEST_F(SgeCursor, ACursorThatLeavesTheCacheAloneStillRefusesRevokedMemory) {
    guarded_buffer c_buf(2 * page_size);
    c_buf.fill_pattern(5);
    const region_id mr = registered(c_buf.data(), 2 * page_size, access::local_write);
    const std::vector<sge> list{{c_buf.address() + 10, page_size, unit_.local_token(mr)}};
    const cache_counters before = unit_.cache_stats();
    std::vector<std::byte> out(page_size);
    {
        const read_guard g = unit_.read();
        sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
        const copy_result r = quiet.copy_from_host(g, out);
        ASSERT_TRUE(r.ok()) << fault_name(r.failed);
        EXPECT_EQ(r.cache_misses, 0u);
        EXPECT_EQ(std::memcmp(out.data(), c_buf.data() + 10, page_size), 0);
    }
    const cache_counters after = unit_.cache_stats();
    EXPECT_EQ(after.hits, before.hits);
    EXPECT_EQ(after.misses, before.misses);
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    const read_guard g = unit_.read();
    sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
    EXPECT_EQ(quiet.copy_from_host(g, out).failed, fault::invalid_state);
}

TEST_F(SgeCursor, ACursorThatLeavesTheCacheAloneTranslatesLogicalPagesAndRefusesReleasedOnes) {
    guarded_buffer buf(3 * page_size);
    buf.fill_pattern(3);
    mdl_builder m(host_);
    m.add(buf.data(), 3 * page_size);
    std::vector<std::uint64_t> pages(3);
    const lam_result lam = unit_.build_lam(m.chain(), 3 * page_size, pages);
    ASSERT_EQ(lam.st, status::success);
    const std::uint32_t priv = unit_.privileged_token(pd_);
    const std::vector<sge> list{{pages[1] + 20, 100, priv}};
    const cache_counters before = unit_.cache_stats();
    std::vector<std::byte> out(100);
    {
        const read_guard g = unit_.read();
        sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
        ASSERT_TRUE(quiet.copy_from_host(g, out).ok());
        EXPECT_EQ(std::memcmp(out.data(), buf.data() + page_size + 20, 100), 0);
    }
    EXPECT_EQ(unit_.cache_stats().misses, before.misses);
    ASSERT_TRUE(unit_.release_lam(lam.id));
    const read_guard g = unit_.read();
    sge_cursor quiet(unit_, pd_, access_op::local_read, list, false);
    EXPECT_EQ(quiet.copy_from_host(g, out).failed, fault::unmapped);
}

}  // namespace
}  // namespace ndksim::mem::test
