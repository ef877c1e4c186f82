// SPDX-License-Identifier: MIT
// A refused consumer call says why in every build type (this suite runs in the normal,
// optimised build too): the adapter keeps the last refusal's text, naming the object, the call,
// the status and the rule (ndksim_adapter_last_refusal), and so does the calling thread
// (ndksim_thread_last_refusal, which the test kit prints beside a failed status assertion).

#include <string>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

std::string last_refusal(const ndksim_adapter* nic) {
    char text[400] = {};
    const ULONG length = ndksim_adapter_last_refusal(nic, text, sizeof text);
    EXPECT_EQ(std::string(text).size(), length);
    return text;
}

class Refusals : public RcPair {};

TEST_F(Refusals, NothingRefusedYetReadsAsEmpty) {
    char text[8] = {'x'};
    EXPECT_EQ(0U, ndksim_adapter_last_refusal(b_.nic, text, sizeof text));
    EXPECT_EQ('\0', text[0]);
    EXPECT_EQ(0U, ndksim_adapter_last_refusal(nullptr, text, sizeof text));
}

TEST_F(Refusals, APostAboveTheSgeLimitNamesTheCallTheStatusAndTheRule) {
    NDK_SGE s[8];
    for (ULONG i = 0; i < 8; ++i) {
        s[i] = a_.buf.sge(i, 1);
    }
    const expect_violation deliberate(NDKSIM_RULE_SGE_COUNT, {a_.nic});
    ASSERT_NT_STATUS(
        STATUS_INVALID_PARAMETER,
        a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, s, 8, b_.buf.address(), b_.buf.remote_token, 0));
    const std::string text = last_refusal(a_.nic);
    EXPECT_NE(std::string::npos, text.find("/qp#")) << text;
    EXPECT_NE(std::string::npos,
              text.find("NdkWrite refused with STATUS_INVALID_PARAMETER: rule 11: nSge above "
                        "the QP's MaxInitiatorRequestSge"))
        << text;
    EXPECT_EQ(text, ndksim_thread_last_refusal());
    EXPECT_EQ(0U, ndksim_adapter_last_refusal(b_.nic, nullptr, 0)) << "b refused nothing";
}

TEST_F(Refusals, APostOnADisconnectedQpNamesRuleTen) {
    slot done;
    const NTSTATUS r = a_.connector->Dispatch->NdkDisconnect(a_.connector, slot::on_request, &done);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(done, "Disconnect's completion"));
    }
    NDK_SGE s = a_.buf.sge(0, 16);
    ASSERT_NT_STATUS(STATUS_CONNECTION_INVALID, a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, 0));
    EXPECT_NE(
        std::string::npos,
        last_refusal(a_.nic).find(
            "NdkSend refused with STATUS_CONNECTION_INVALID: rule 10: the QP is not connected"));
}

TEST_F(Refusals, AConnectionCallNamesWhatWasWrong) {
    slot done;
    // The connector is connected: a second NdkCompleteConnect has nothing to complete.
    ASSERT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     a_.connector->Dispatch->NdkCompleteConnect(a_.connector, side::on_disconnect,
                                                                &a_, slot::on_request, &done));
    EXPECT_NE(std::string::npos, last_refusal(a_.nic).find("/connector#")) << last_refusal(a_.nic);
    EXPECT_NE(std::string::npos,
              last_refusal(a_.nic).find("NdkCompleteConnect refused with "
                                        "STATUS_CONNECTION_INVALID: NdkConnect has not completed "
                                        "successfully on this connector"))
        << last_refusal(a_.nic);
}

TEST_F(Refusals, AnArgumentErrorIsTheThreadsLastRefusal) {
    // A NULL SGE array with a count: refused before any object state is looked at.
    ASSERT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, nullptr, 1, 0));
    EXPECT_NE(std::string::npos, std::string(ndksim_thread_last_refusal())
                                     .find("NdkSend refused with STATUS_INVALID_PARAMETER"))
        << ndksim_thread_last_refusal();
}

}  // namespace
}  // namespace ndksim::testkit
