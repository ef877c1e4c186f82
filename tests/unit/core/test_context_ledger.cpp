// SPDX-License-Identifier: MIT
// core::context_ledger: the outstanding requests of one work queue by RequestContext, the
// verifier's record for rule 17 (context-reuse).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/context_ledger.hpp"

namespace ndksim::core {
namespace {

const void* key(std::uintptr_t n) {
    return reinterpret_cast<const void*>(n * 16);
}

TEST(ContextLedger, AContextIsOutstandingFromItsPostUntilItsCompletionIsRetrieved) {
    context_ledger l;
    EXPECT_EQ(nullptr, l.outstanding(key(1)).call);
    l.post(key(1), "NdkSend", false);
    EXPECT_STREQ("NdkSend", l.outstanding(key(1)).call);
    EXPECT_FALSE(l.outstanding(key(1)).silent);
    EXPECT_EQ(nullptr, l.outstanding(key(2)).call);
    l.retrieved(key(1));
    EXPECT_EQ(nullptr, l.outstanding(key(1)).call);
    EXPECT_EQ(0U, l.size());
}

TEST(ContextLedger, AReusedContextStaysOutstandingUntilEachOfItsCompletionsIsRetrieved) {
    context_ledger l;
    l.post(key(1), "NdkWrite", false);
    l.post(key(1), "NdkRead", false);
    l.retrieved(key(1));
    EXPECT_STREQ("NdkRead", l.outstanding(key(1)).call) << "the oldest one completed first";
    l.retrieved(key(1));
    EXPECT_EQ(nullptr, l.outstanding(key(1)).call);
}

TEST(ContextLedger, ASilentRequestLeavesWhenALaterCompletionIsRetrieved) {
    context_ledger l;
    l.post(key(1), "NdkWrite", true);
    l.post(key(2), "NdkWrite", true);
    l.post(key(3), "NdkSend", false);
    l.post(key(4), "NdkWrite", true);
    EXPECT_TRUE(l.outstanding(key(1)).silent);
    l.retrieved(key(3));
    EXPECT_EQ(nullptr, l.outstanding(key(1)).call);
    EXPECT_EQ(nullptr, l.outstanding(key(2)).call);
    EXPECT_STREQ("NdkWrite", l.outstanding(key(4)).call) << "posted after the completion";
    EXPECT_EQ(1U, l.size());
}

TEST(ContextLedger, AFailedSilentRequestLeavesWithItsOwnCompletion) {
    context_ledger l;
    l.post(key(1), "NdkWrite", true);
    l.post(key(2), "NdkWrite", true);
    l.retrieved(key(1));  // it failed, so it completed
    EXPECT_EQ(nullptr, l.outstanding(key(1)).call);
    EXPECT_STREQ("NdkWrite", l.outstanding(key(2)).call);
}

TEST(ContextLedger, ACompletionOfAnUntrackedRequestRetiresNothing) {
    context_ledger l;
    l.post(key(1), "NdkWrite", true);
    l.retrieved(key(9));  // posted while the rule was off: its place in the order is unknown
    EXPECT_STREQ("NdkWrite", l.outstanding(key(1)).call);
}

TEST(ContextLedger, ARefusedPostIsForgottenAndAnEarlierOneWithItsContextKept) {
    context_ledger l;
    l.post(key(1), "NdkSend", false);
    l.post(key(1), "NdkWrite", false);
    l.refused(key(1));
    EXPECT_STREQ("NdkSend", l.outstanding(key(1)).call);
    EXPECT_EQ(1U, l.size());
}

// Many contexts, posted and retired in an order that leaves holes in the ring and forces
// the count table through growth and backward-shift deletions; a plain vector is the model.
TEST(ContextLedger, ManyContextsAgreeWithAModel) {
    context_ledger l;
    std::vector<std::uintptr_t> model;  // outstanding, in posting order
    std::mt19937 rng(7);
    for (int step = 0; step < 20000; ++step) {
        const std::uintptr_t c = 1 + rng() % 300;
        if (rng() % 2 != 0 || model.empty()) {
            l.post(key(c), "NdkReceive", false);
            model.push_back(c);
        } else {
            // Retrieve some outstanding context (receives of an SRQ may complete out of order).
            const std::uintptr_t r = model[rng() % model.size()];
            l.retrieved(key(r));
            for (auto it = model.begin(); it != model.end(); ++it) {
                if (*it == r) {
                    model.erase(it);
                    break;
                }
            }
        }
        ASSERT_EQ(model.size(), l.size());
    }
    for (std::uintptr_t c = 1; c <= 300; ++c) {
        bool in_model = false;
        for (const std::uintptr_t m : model) {
            in_model = in_model || m == c;
        }
        EXPECT_EQ(in_model, l.outstanding(key(c)).call != nullptr) << c;
    }
}

}  // namespace
}  // namespace ndksim::core
