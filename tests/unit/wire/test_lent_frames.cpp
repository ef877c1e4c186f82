// SPDX-License-Identifier: MIT
// Lent frames: a frame whose payload stays in the sender's memory is listed by its sender until
// it goes back to its pool, and copying the payload in (materialize) takes it off the list with
// the bytes the memory held then: by request before it completes (also when a retransmission
// lent a frame out of order), all at once when the list goes.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "wire/frame.hpp"
#include "wire/lent_frames.hpp"
#include "wire/proto.hpp"

namespace ndksim::wire {
namespace {

constexpr std::uint32_t k_offset = 40;  // where a payload would sit after the headers
constexpr std::uint32_t k_size = 256;

class LentFrames : public ::testing::Test {
  protected:
    LentFrames() {
        for (std::size_t i = 0; i < memory_.size(); ++i) {
            memory_[i] = static_cast<std::byte>(i * 5 + 3);
        }
    }

    // A frame from the pool whose payload (packet `index` of the memory) is lent at `psn`.
    frame* lend(lent_frames& list, std::uint32_t index, std::uint32_t psn) {
        frame* f = pool_->take();
        f->length = k_offset + k_size + 4;
        std::memset(f->data + k_offset, 0, k_size);
        list.lend(*f, memory_.data() + index * k_size, k_offset, k_size, psn);
        return f;
    }

    // True when `f` holds packet `index`'s bytes itself and is on no list.
    bool holds(const frame& f, std::uint32_t index) const {
        return f.borrowed == nullptr && f.lender == nullptr &&
               std::memcmp(f.data + k_offset, memory_.data() + index * k_size, k_size) == 0;
    }

    std::shared_ptr<frame_pool> pool_ = frame_pool::create(8);
    std::array<std::byte, 8 * k_size> memory_{};
};

TEST_F(LentFrames, ALentFrameRefersToTheMemoryAndCopiesNothing) {
    lent_frames list;
    frame* f = lend(list, 2, 100);
    EXPECT_EQ(f->borrowed, memory_.data() + 2 * k_size);
    EXPECT_EQ(f->borrowed_offset, k_offset);
    EXPECT_EQ(f->borrowed_size, k_size);
    EXPECT_EQ(f->lender, &list);
    EXPECT_EQ(f->data[k_offset], std::byte{0}) << "the payload's place in the frame is not written";
    EXPECT_EQ(list.size(), 1U);
    frame_pool::release(f);
}

TEST_F(LentFrames, AFrameGoingBackToItsPoolLeavesTheList) {
    lent_frames list;
    frame* a = lend(list, 0, 1);
    frame* b = lend(list, 1, 2);
    frame* c = lend(list, 2, 3);
    frame_pool::release(b);  // from the middle
    EXPECT_EQ(list.size(), 2U);
    frame_pool::release(a);  // the oldest
    frame_pool::release(c);  // the last
    EXPECT_TRUE(list.empty());
    EXPECT_EQ(pool_->outstanding(), 0U);
    // A frame taken again is not lent.
    frame* again = pool_->take();
    EXPECT_EQ(again->borrowed, nullptr);
    EXPECT_EQ(again->lender, nullptr);
    frame_pool::release(again);
}

TEST_F(LentFrames, MaterializingARequestsRangeCopiesTheBytesTheMemoryHoldsAndOnlyThoseFrames) {
    lent_frames list;
    // Two requests of two packets each, PSNs across the 24-bit wrap: psn_mask - 1, psn_mask,
    // then 0, 1.
    std::array<frame*, 4> f{};
    for (std::uint32_t i = 0; i < f.size(); ++i) {
        f[i] = lend(list, i, psn_add(psn_mask - 1, i));
    }
    EXPECT_EQ(list.materialize(psn_mask - 1, psn_mask), 2U);  // the first request completes
    EXPECT_TRUE(holds(*f[0], 0));
    EXPECT_TRUE(holds(*f[1], 1));
    EXPECT_NE(f[2]->borrowed, nullptr);
    EXPECT_NE(f[3]->borrowed, nullptr);
    EXPECT_EQ(list.size(), 2U);
    // The memory changes after the copy: a materialized frame keeps what it copied.
    memory_[1 * k_size] = std::byte{0x77};
    EXPECT_EQ(f[1]->data[k_offset], static_cast<std::byte>(1 * k_size * 5 + 3));
    EXPECT_EQ(list.materialize(psn_mask - 1, psn_mask), 0U) << "nothing of it is left";
    EXPECT_EQ(list.materialize(0, 1), 2U);
    EXPECT_TRUE(list.empty());
    for (frame* x : f) {
        frame_pool::release(x);
    }
}

TEST_F(LentFrames, AFrameLentOutOfOrderIsFoundBehindLaterOnes) {
    // A retransmission lends PSN 5 again behind 6 and 7: the request of PSN 5 completes first,
    // and its second copy is behind frames it must leave lent.
    lent_frames list;
    frame* a = lend(list, 0, 5);
    frame* b = lend(list, 1, 6);
    frame* c = lend(list, 2, 7);
    frame* again = lend(list, 0, 5);
    EXPECT_EQ(list.materialize(5, 5), 2U);
    EXPECT_TRUE(holds(*a, 0));
    EXPECT_TRUE(holds(*again, 0));
    EXPECT_NE(b->borrowed, nullptr);
    EXPECT_NE(c->borrowed, nullptr);
    EXPECT_EQ(list.materialize(6, 7), 2U);
    EXPECT_TRUE(list.empty());
    // Empty again, the list is in order again: the next request's frames lead it.
    frame* d = lend(list, 3, 8);
    EXPECT_EQ(list.materialize(8, 8), 1U);
    for (frame* x : {a, b, c, again, d}) {
        frame_pool::release(x);
    }
}

TEST_F(LentFrames, AFrameMaterializedByItselfLeavesItsList) {
    lent_frames list;
    frame* a = lend(list, 3, 7);
    frame* b = lend(list, 4, 8);
    materialize(*a);
    EXPECT_TRUE(holds(*a, 3));
    EXPECT_EQ(list.size(), 1U);
    materialize(*a);  // a frame that holds its payload: nothing to do
    EXPECT_TRUE(holds(*a, 3));
    frame_pool::release(a);
    frame_pool::release(b);
    EXPECT_TRUE(list.empty());
}

TEST_F(LentFrames, AListThatGoesMaterializesEveryFrameStillLent) {
    std::vector<frame*> frames;
    {
        lent_frames list;
        for (std::uint32_t i = 0; i < 5; ++i) {
            frames.push_back(lend(list, i, 10 + i));
        }
        frame_pool::release(frames[4]);
        frames.pop_back();
        EXPECT_EQ(list.materialize_all(), 4U);
        frames.push_back(lend(list, 7, 20));
    }
    for (std::uint32_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(holds(*frames[i], i)) << i;
    }
    EXPECT_TRUE(holds(*frames[4], 7)) << "materialized by the list's destructor";
    for (frame* f : frames) {
        frame_pool::release(f);
    }
}

}  // namespace
}  // namespace ndksim::wire
