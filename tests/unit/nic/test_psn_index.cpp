// SPDX-License-Identifier: MIT
// The PSN index: every PSN of a live request finds that request, PSNs of finished or retired
// requests and PSNs never handed out find nothing, and the ring grows instead of losing a
// live request when the PSNs in flight outnumber its entries.

#include <gtest/gtest.h>

#include "nic/psn_index.hpp"

namespace ndksim::nic {
namespace {

// Posts a request of `packets` PSNs starting at `psn` and records it, as the requester does.
core::send_wqe& start(core::send_queue& sq, psn_index& index, std::uint32_t psn,
                      std::uint32_t packets) {
    core::send_wqe* w = sq.prepare();
    EXPECT_NE(w, nullptr);
    w->kind = core::wr_kind::write;
    sq.publish();
    const std::uint32_t i = sq.outstanding() - 1;
    core::send_wqe& r = sq.at(i);
    r.started = true;
    r.first_psn = psn;
    r.packets = packets;
    index.record(sq, i);
    return r;
}

TEST(PsnIndex, EveryPsnOfALiveRequestFindsIt) {
    core::send_queue sq(16, 1, 0);
    psn_index index;
    core::send_wqe& a = start(sq, index, 100, 3);
    core::send_wqe& b = start(sq, index, 103, 1);
    for (std::uint32_t p = 100; p < 103; ++p) {
        EXPECT_EQ(index.find(sq, p), &a) << p;
    }
    EXPECT_EQ(index.find(sq, 103), &b);
    EXPECT_EQ(index.find(sq, 104), nullptr);
    EXPECT_EQ(index.find(sq, 99), nullptr);
}

TEST(PsnIndex, NothingBeforeTheFirstRequest) {
    core::send_queue sq(4, 1, 0);
    const psn_index index;
    EXPECT_EQ(index.find(sq, 0), nullptr);
}

TEST(PsnIndex, FinishedAndRetiredRequestsAreNotFound) {
    core::send_queue sq(4, 1, 0);
    psn_index index;
    core::send_wqe& a = start(sq, index, 7, 2);
    start(sq, index, 9, 1);
    a.done = true;
    EXPECT_EQ(index.find(sq, 7), nullptr);
    sq.retire();
    EXPECT_EQ(index.find(sq, 8), nullptr);
    EXPECT_NE(index.find(sq, 9), nullptr);
}

TEST(PsnIndex, AReusedQueueSlotDoesNotAnswerForItsFormerRequest) {
    core::send_queue sq(2, 1, 0);
    psn_index index;
    for (std::uint32_t n = 0; n < 10; ++n) {
        core::send_wqe& w = start(sq, index, n * 5, 5);
        EXPECT_EQ(index.find(sq, n * 5 + 4), &w);
        if (n > 0) {
            EXPECT_EQ(index.find(sq, n * 5 - 1), nullptr) << "request " << n - 1 << " is done";
        }
        w.done = true;
        sq.retire();
    }
}

TEST(PsnIndex, TheRingGrowsWhenTheLivePsnsOutnumberIt) {
    core::send_queue sq(64, 1, 0);
    psn_index index;
    std::vector<core::send_wqe*> live;
    std::uint32_t psn = 0;
    for (int n = 0; n < 40; ++n) {
        live.push_back(&start(sq, index, psn, 33));  // 1320 PSNs in flight
        psn += 33;
    }
    EXPECT_GE(index.size(), 1320U);
    for (std::uint32_t p = 0; p < psn; ++p) {
        EXPECT_EQ(index.find(sq, p), live[p / 33]) << p;
    }
}

TEST(PsnIndex, PsnsWrapAroundTheirSpace) {
    core::send_queue sq(4, 1, 0);
    psn_index index;
    core::send_wqe& w = start(sq, index, wire::psn_mask - 1, 4);  // 0xFFFFFE .. 0x000001
    EXPECT_EQ(index.find(sq, wire::psn_mask), &w);
    EXPECT_EQ(index.find(sq, 0), &w);
    EXPECT_EQ(index.find(sq, 1), &w);
    EXPECT_EQ(index.find(sq, 2), nullptr);
}

TEST(PsnIndex, ARequestLongerThanTheRingGrowsIt) {
    core::send_queue sq(4, 1, 0);
    psn_index index;
    core::send_wqe& w = start(sq, index, 10, 1000);
    EXPECT_GE(index.size(), 1000U);
    EXPECT_EQ(index.find(sq, 10), &w);
    EXPECT_EQ(index.find(sq, 1009), &w);
    EXPECT_EQ(index.find(sq, 1010), nullptr);
}

}  // namespace
}  // namespace ndksim::nic
