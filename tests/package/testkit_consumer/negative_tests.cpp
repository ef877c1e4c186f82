// SPDX-License-Identifier: MIT
// Negative tests as a consumer writes them with the installed test kit: each asserts the exact
// status the NDKPI rules give, in every completion style, deterministic and threaded.
#include <ndksim/testkit/ndk_fixture.hpp>
#include <ndksim/testkit/rc_pair.hpp>

#include <cstring>

namespace {

using namespace ndksim::testkit;

class CqDepth : public NdkStyleTest {};

// NdkCreateCq refuses a depth of 0 at the call (never through the completion), and the refused
// create leaves no object behind: the adapter handle is the only live object.
TEST_P(CqDepth, ZeroIsRefusedWithInvalidParameter) {
    auto cq = create_cq(0);
    EXPECT_EQ(STATUS_INVALID_PARAMETER, cq.returned) << status_text(cq.returned);
    EXPECT_EQ(nullptr, cq.object);
    EXPECT_EQ(1U, ndksim_adapter_live_objects(sim()));
}

NDKSIM_TEST_INSTANTIATE_STYLES(CqDepth);
NDKSIM_TEST_INSTANTIATE_THREADED_STYLES(CqDepth);

// A remote write that runs past the end of the peer's registered buffer is refused by the peer:
// the initiator's completion carries STATUS_ACCESS_VIOLATION, and not one byte of the peer's
// memory changes.
class PeerBounds : public RcPair {};

TEST_F(PeerBounds, WritePastTheRegionFailsWithAccessViolation) {
    std::memset(b_.buf.bytes, 0x5A, k_buffer);
    std::memset(a_.buf.bytes, 0x11, 64);
    NDK_SGE sge = a_.buf.sge(0, 64);
    const NTSTATUS posted = a_.qp->Dispatch->NdkWrite(
        a_.qp, nullptr, &sge, 1, b_.buf.address() + k_buffer - 16, b_.buf.remote_token, 0);
    ASSERT_EQ(STATUS_SUCCESS, posted) << status_string(posted);
    const NDK_RESULT_EX done = next(a_.cq);
    EXPECT_EQ(STATUS_ACCESS_VIOLATION, done.Status) << status_string(done.Status);
    EXPECT_EQ(std::byte{0x5A}, b_.buf.bytes[k_buffer - 16]);
    EXPECT_EQ(std::byte{0x5A}, b_.buf.bytes[k_buffer - 1]);
}

}  // namespace
