// SPDX-License-Identifier: MIT
// The connected threaded pair with NDKSIM_POLL_CONSUMER: the test thread runs both engines in
// ndksim_adapter_progress() while it waits for its completions, as a polling consumer would.
// Set-up and teardown wait on callbacks without calling it: the engine threads run the engines
// then. Run under TSan too.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/adapter_pair.hpp"
#include "threaded_pair/pattern.hpp"

namespace ndksim::testkit {
namespace {

using threaded::fill;

class RcConsumerDriven : public ::testing::Test, protected threaded::adapter_pair {
  protected:
    RcConsumerDriven()
        : adapter_pair({"10.0.3.1", "10.0.3.2", 256 * 1024, 64, "driven a", "driven b"}) {}

    void SetUp() override {
        make_inproc_adapter(a_.nic, shape().a_address, NDKSIM_POLL_CONSUMER);
        make_inproc_adapter(b_.nic, shape().b_address, NDKSIM_POLL_CONSUMER);
        ASSERT_FALSE(HasFatalFailure());
        open_and_connect();
    }

    void TearDown() override { close_all(); }

    // Runs both engines on this thread until side `s` has `n` completions; fails after 10 s.
    bool drive_until(threaded::pair_side& s, std::size_t n) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (result_count(s) < n) {
            if (std::chrono::steady_clock::now() > deadline) {
                ADD_FAILURE() << "only " << result_count(s) << " of " << n
                              << " completions within 10 s of driving both engines";
                return false;
            }
            const ULONG ran = ndksim_adapter_progress(a_.nic) + ndksim_adapter_progress(b_.nic);
            handlers_run_ += ran;
            if (ran == 0) {
                std::this_thread::yield();
            }
        }
        return true;
    }

    std::uint64_t handlers_run_ = 0;  ///< what ndksim_adapter_progress ran on this thread
};

TEST_F(RcConsumerDriven, WritesAndReadsCompleteWhileTheConsumerRunsTheEngines) {
    constexpr ULONG size = 64 * 1024;
    for (int round = 0; round < 20; ++round) {
        fill(a_.buf.bytes, size, static_cast<unsigned>(round));
        NDK_SGE w = a_.buf.sge(0, size);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &w, 1, b_.buf.address(),
                                                    b_.buf.remote_token, 0));
        NDK_SGE r = a_.buf.sge(128 * 1024, size);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &r, 1, b_.buf.address(),
                                                   b_.buf.remote_token, NDK_OP_FLAG_READ_FENCE));
        const auto done = static_cast<std::size_t>(2 * (round + 1));
        ASSERT_TRUE(drive_until(a_, done));
        const std::vector<NDK_RESULT_EX> got = results(a_, done, "the write and the read");
        EXPECT_NT_SUCCESS(got[done - 2].Status);
        EXPECT_EQ(NdkOperationTypeWrite, got[done - 2].Type);
        EXPECT_NT_SUCCESS(got[done - 1].Status);
        EXPECT_EQ(NdkOperationTypeRead, got[done - 1].Type);
        ASSERT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, size)) << "round " << round;
        ASSERT_EQ(0, std::memcmp(a_.buf.bytes, a_.buf.bytes + 128 * 1024, size))
            << "round " << round;
    }
    // The engine threads hand over to a consumer that keeps calling: this thread ran engine
    // work (they step back in only after it paused for a millisecond).
    EXPECT_GT(handlers_run_, 0U);
}

// ndksim_adapter_progress on an adapter of another policy, or on NULL, runs nothing.
TEST(ConsumerProgress, OtherPoliciesAndNullRunNothing) {
    EXPECT_EQ(0U, ndksim_adapter_progress(nullptr));
    for (const ndksim_poll_policy p :
         {NDKSIM_POLL_BLOCK, NDKSIM_POLL_SPIN, NDKSIM_POLL_SPIN_THEN_BLOCK}) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.address = "10.0.3.9";
        c.poll_policy = p;
        ndksim_adapter* nic = nullptr;
        ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &nic));
        EXPECT_EQ(0U, ndksim_adapter_progress(nic)) << p;
        ndksim_adapter_destroy(nic);
    }
}

}  // namespace
}  // namespace ndksim::testkit
