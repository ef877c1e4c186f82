// SPDX-License-Identifier: MIT
// A consumer's unit test written with the installed test kit (ndksim::testkit).
#include <ndksim/testkit/ndk_fixture.hpp>
#include <ndksim/testkit/rc_pair.hpp>

#include <cstring>

namespace {

using namespace ndksim::testkit;

class ConsumerPd : public NdkStyleTest {};

TEST_P(ConsumerPd, CreatesAndClosesInEveryCompletionStyle) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

NDKSIM_TEST_INSTANTIATE_STYLES(ConsumerPd);

// Two connected adapters from the kit: a write from side a lands in side b's buffer.
class ConsumerPair : public ndksim::testkit::RcPair {};

TEST_F(ConsumerPair, WriteReachesThePeer) {
    std::memcpy(a_.buf.bytes, "from a", 7);
    NDK_SGE sge = a_.buf.sge(0, 7);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_STREQ("from a", reinterpret_cast<const char*>(b_.buf.bytes));
}

}  // namespace
