// SPDX-License-Identifier: MIT
// NDK_SRQ conformance: NdkCreateSrq in every completion style with its limits (SrqDepth,
// MaxReceiveRequestSge; one above each is STATUS_INVALID_PARAMETER), NdkModifySrq (depth above
// MaxSrqDepth is STATUS_INVALID_PARAMETER; 0 keeps the depth), NdkQueryExtension, and the close
// rules: an SRQ close pends until its QPs close and comes after a pending NdkModifySrq.

#include <string>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class SrqTest : public NdkStyleTest {
  protected:
    void SetUp() override {
        NdkStyleTest::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        info_ = query_info();
        auto pd = create_pd();
        ASSERT_NT_SUCCESS(pd.status);
        pd_ = pd.object;
    }
    void TearDown() override {
        if (pd_ != nullptr) {
            EXPECT_NT_SUCCESS(close(pd_).status);
        }
        NdkStyleTest::TearDown();
    }
    NDK_ADAPTER_INFO info_{};
    NDK_PD* pd_ = nullptr;
};

class SrqCreate : public SrqTest {};
class SrqModify : public SrqTest {};
class SrqClose : public SrqTest {};
class SrqCloseWithPendingRequest : public SrqTest {};

TEST_P(SrqCreate, DeliversSrqWithTypeVersionAndZeroedReserved) {
    auto srq = create_srq(pd_, 64, 2, 8);
    ASSERT_NT_SUCCESS(srq.status);
    EXPECT_EQ(srq.object->Header.ObjectType, NdkObjectTypeSrq);
    EXPECT_EQ(srq.object->Header.Version.Major, 2);
    EXPECT_EQ(srq.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(srq.object->Header));
    EXPECT_NE(srq.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqCreate, AcceptsDepthAndSgeAtTheirLimits) {
    auto srq = create_srq(pd_, info_.MaxSrqDepth, info_.MaxReceiveRequestSge);
    ASSERT_NT_SUCCESS(srq.status);
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqCreate, RejectsDepthAboveMaxSrqDepthWithInvalidParameter) {
    auto srq = create_srq(pd_, info_.MaxSrqDepth + 1, 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, srq.returned);
    EXPECT_EQ(srq.object, nullptr);
}

TEST_P(SrqCreate, RejectsSgeAboveMaxReceiveRequestSgeWithInvalidParameter) {
    auto srq = create_srq(pd_, 64, info_.MaxReceiveRequestSge + 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, srq.returned);
    EXPECT_EQ(srq.object, nullptr);
}

TEST_P(SrqCreate, RejectsZeroDepthWithInvalidParameter) {
    auto srq = create_srq(pd_, 0, 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, srq.returned);
}

TEST_P(SrqCreate, QueryExtensionReturnsNotSupported) {
    auto srq = create_srq(pd_);
    ASSERT_NT_SUCCESS(srq.status);
    GUID id{9, 9, 9, {9, 9, 9, 9, 9, 9, 9, 9}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, srq.object->Dispatch->NdkQueryExtension(
                                               &srq.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqModify, WithinLimitsSucceedsInlineOrThroughOneCompletion) {
    // A non-zero threshold with no receive queued re-arms and fires a notification at once
    // (ddi/nc-ndkpi-ndk_fn_modify_srq.md); they are recorded, not checked, here.
    recorder& notified = make_recorder("srq.notification");
    auto srq = create_srq(pd_, 64, 2, 8, nullptr, &notified);
    ASSERT_NT_SUCCESS(srq.status);
    const struct {
        ULONG depth;
        ULONG threshold;
    } cases[] = {{128, 0}, {0, 16}, {0, 0}, {info_.MaxSrqDepth, 4}};
    for (const auto& c : cases) {
        const call_result r = modify_srq(srq.object, c.depth, c.threshold);
        EXPECT_NT_SUCCESS(r.status) << "depth " << c.depth << " threshold " << c.threshold;
        if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
            EXPECT_NT_STATUS(STATUS_PENDING, r.returned);
        }
        if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
            EXPECT_NT_SUCCESS(r.returned);
        }
    }
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqModify, ThresholdAboveQueuedReceivesNotifiesOnceWithSuccess) {
    recorder& notified = make_recorder("srq.notification");
    auto srq = create_srq(pd_, 64, 2, 0, nullptr, &notified);
    ASSERT_NT_SUCCESS(srq.status);
    EXPECT_NT_SUCCESS(modify_srq(srq.object, 0, 4).status);
    ASSERT_TRUE(await(notified, 1, "the SRQ notification armed by NdkModifySrq"));
    drain();
    EXPECT_EQ(notified.calls(), 1) << "one notification per arm";
    EXPECT_NT_SUCCESS(notified.status());
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqModify, DepthAboveMaxSrqDepthFailsInlineWithInvalidParameter) {
    auto srq = create_srq(pd_);
    ASSERT_NT_SUCCESS(srq.status);
    const call_result r = modify_srq(srq.object, info_.MaxSrqDepth + 1, 0);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, r.returned);
    drain();
    EXPECT_EQ(r.rec->calls(), 0);
    EXPECT_NT_SUCCESS(close(srq.object).status);
}

TEST_P(SrqClose, PendsUntilLastQpClosesThenCompletesOnce) {
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(cq.status);
    auto srq = create_srq(pd_);
    ASSERT_NT_SUCCESS(srq.status);
    auto qp = create_qp_with_srq(pd_, cq.object, cq.object, srq.object);
    ASSERT_NT_SUCCESS(qp.status);
    expect_close_waits_for(&srq.object->Header, {&qp.object->Header});
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(SrqClose, PendsUntilLastOfTwoQpsCloses) {
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(cq.status);
    auto srq = create_srq(pd_);
    ASSERT_NT_SUCCESS(srq.status);
    auto a = create_qp_with_srq(pd_, cq.object, cq.object, srq.object);
    auto b = create_qp_with_srq(pd_, cq.object, cq.object, srq.object);
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    expect_close_waits_for(&srq.object->Header, {&a.object->Header, &b.object->Header});
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(SrqCloseWithPendingRequest, CloseCompletionComesAfterModifyCompletion) {
    auto srq = create_srq(pd_);
    ASSERT_NT_SUCCESS(srq.status);
    log().clear();
    recorder& modify = make_recorder("srq.modify");
    const NTSTATUS r =
        srq.object->Dispatch->NdkModifySrq(srq.object, 128, 0, &recorder::on_request, &modify);
    ASSERT_NT_STATUS(STATUS_PENDING, r);
    modify.expect_calls(1);
    recorder& closing = make_recorder("srq.close");
    const call_result c = start_close(&srq.object->Header, closing);
    EXPECT_NT_STATUS(STATUS_PENDING, c.returned);
    ASSERT_TRUE(finish(c, "NdkCloseSrq"));
    drain();
    EXPECT_NT_SUCCESS(modify.status());
    const std::vector<std::string> expected{"srq.modify", "~srq.modify", "srq.close", "~srq.close"};
    EXPECT_EQ(log().entries(), expected) << "the close completion is the last callback";
}

NDKSIM_TEST_INSTANTIATE_STYLES(SrqCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(SrqModify);
NDKSIM_TEST_INSTANTIATE_STYLES(SrqClose);
NDKSIM_TEST_INSTANTIATE_PENDING_STYLES(SrqCloseWithPendingRequest);

}  // namespace
