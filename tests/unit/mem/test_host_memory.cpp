// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

TEST(HostMemory, PinYieldsPfnsDistinctFromVirtualPageNumbers) {
    host_memory host;
    guarded_buffer buf(3 * page_size, 0x10);
    std::vector<std::uint64_t> pfns(4);
    ASSERT_EQ(host.pin(buf.data(), buf.size(), pfns), status::success);
    for (std::size_t i = 0; i < pfns.size(); ++i) {
        EXPECT_GE(pfns[i], host.first_pfn());
        EXPECT_NE(pfns[i], page_number(buf.address()) + i);
    }
    host.unpin(pfns);
}

TEST(HostMemory, FrameMapsBackToTheRealHostPage) {
    host_memory host;
    guarded_buffer buf(2 * page_size, 0x123);
    std::vector<std::uint64_t> pfns(3);
    ASSERT_EQ(host.pin(buf.data(), buf.size(), pfns), status::success);
    const auto first_page = reinterpret_cast<std::byte*>(page_align(buf.address()));
    for (std::size_t i = 0; i < pfns.size(); ++i) {
        EXPECT_EQ(host.frame_address(pfns[i]), first_page + i * page_size);
        EXPECT_EQ(host.pfn_of(first_page + i * page_size), pfns[i]);
    }
    host.unpin(pfns);
}

TEST(HostMemory, PinsAreCountedAndTheLastUnpinReleasesTheFrame) {
    host_memory host;
    guarded_buffer buf(page_size);
    std::vector<std::uint64_t> a(1);
    std::vector<std::uint64_t> b(1);
    ASSERT_EQ(host.pin(buf.data(), 100, a), status::success);
    ASSERT_EQ(host.pin(buf.data() + 200, 100, b), status::success);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(host.pin_count(a[0]), 2u);
    host.unpin(a);
    EXPECT_EQ(host.pin_count(a[0]), 1u);
    EXPECT_NE(host.frame_address(a[0]), nullptr);
    host.unpin(b);
    EXPECT_EQ(host.pin_count(a[0]), 0u);
    EXPECT_EQ(host.frame_address(a[0]), nullptr);
    EXPECT_EQ(host.pfn_of(buf.data()), 0u);
    EXPECT_EQ(host.pinned_frames(), 0u);
}

TEST(HostMemory, ExhaustedPoolIsInsufficientResourcesAndPinsNothing) {
    host_memory host(host_memory::config{0x5000, 2});
    guarded_buffer buf(3 * page_size);
    std::vector<std::uint64_t> pfns(3);
    EXPECT_EQ(host.pin(buf.data(), buf.size(), pfns), status::insufficient_resources);
    EXPECT_EQ(host.pinned_frames(), 0u);
    EXPECT_EQ(host.pin(buf.data(), 2 * page_size, pfns), status::success);
    host.unpin(std::span(pfns.data(), 2));
}

TEST(HostMemory, ReleasedPfnsAreReusedOldestFirst) {
    host_memory host;
    guarded_buffer buf(2 * page_size);
    std::vector<std::uint64_t> p(2);
    ASSERT_EQ(host.pin(buf.data(), buf.size(), p), status::success);
    host.unpin(std::span(&p[1], 1));
    host.unpin(std::span(&p[0], 1));
    std::vector<std::uint64_t> q(2);
    ASSERT_EQ(host.pin(buf.data(), buf.size(), q), status::success);
    EXPECT_EQ(q[0], p[1]);
    EXPECT_EQ(q[1], p[0]);
    host.unpin(q);
}

TEST(HostMemory, PinFramesIsAllOrNothing) {
    host_memory host;
    guarded_buffer buf(page_size);
    std::vector<std::uint64_t> p(1);
    ASSERT_EQ(host.pin(buf.data(), 1, p), status::success);
    const std::vector<std::uint64_t> bad{p[0], p[0] + 1000};
    EXPECT_EQ(host.pin_frames(bad), status::invalid_parameter);
    EXPECT_EQ(host.pin_count(p[0]), 1u);
    EXPECT_EQ(host.pin_frames(p), status::success);
    EXPECT_EQ(host.pin_count(p[0]), 2u);
    host.unpin(p);
    host.unpin(p);
}

TEST(HostMemory, StrayUnpinIsIgnoredAndCounted) {
    host_memory host;
    const std::vector<std::uint64_t> forged{12345};
    host.unpin(forged);
    EXPECT_EQ(host.stray_unpins(), 1u);
    EXPECT_EQ(host.frame_address(12345), nullptr);
}

TEST(HostMemory, NullOrWrappingRangeIsInvalidParameter) {
    host_memory host;
    std::vector<std::uint64_t> p(2);
    EXPECT_EQ(host.pin(nullptr, 10, p), status::invalid_parameter);
    guarded_buffer buf(page_size);
    EXPECT_EQ(host.pin(buf.data(), ~std::uint64_t{0}, p), status::invalid_parameter);
    EXPECT_EQ(host.pin(buf.data(), 2 * page_size + 1, p), status::invalid_parameter);
}

TEST(HostMemory, ConcurrentPinsOfTheSamePagesShareFrames) {
    host_memory host;
    guarded_buffer buf(8 * page_size);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 500; ++i) {
                std::vector<std::uint64_t> p(8);
                ASSERT_EQ(host.pin(buf.data(), buf.size(), p), status::success);
                ASSERT_NE(host.frame_address(p[3]), nullptr);
                host.unpin(p);
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_EQ(host.pinned_frames(), 0u);
    EXPECT_EQ(host.stray_unpins(), 0u);
}

TEST(HostMemory, InstanceIsOneProcessWideHost) {
    EXPECT_EQ(&host_memory::instance(), &host_memory::instance());
}

}  // namespace
}  // namespace ndksim::mem::test
