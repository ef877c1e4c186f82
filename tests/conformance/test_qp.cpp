// SPDX-License-Identifier: MIT
// NDK_QP conformance: NdkCreateQp and NdkCreateQpWithSrq in every completion style, the limits
// each must enforce against NdkQueryAdapterInfo (one above each limit is
// STATUS_INVALID_PARAMETER, the limit itself succeeds), the header, NdkQueryExtension, and the
// close of a QP's antecedents after a refused create.

#include <string>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class QpTest : public NdkStyleTest {
  protected:
    void SetUp() override {
        NdkStyleTest::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        info_ = query_info();
        auto pd = create_pd();
        auto cq = create_cq();
        ASSERT_NT_SUCCESS(pd.status);
        ASSERT_NT_SUCCESS(cq.status);
        pd_ = pd.object;
        cq_ = cq.object;
    }
    void TearDown() override {
        if (srq_ != nullptr) {
            EXPECT_NT_SUCCESS(close(srq_).status);
        }
        if (cq_ != nullptr) {
            EXPECT_NT_SUCCESS(close(cq_).status);
        }
        if (pd_ != nullptr) {
            EXPECT_NT_SUCCESS(close(pd_).status);
        }
        NdkStyleTest::TearDown();
    }
    NDK_SRQ* srq() {
        if (srq_ == nullptr) {
            auto s = create_srq(pd_);
            EXPECT_NT_SUCCESS(s.status);
            srq_ = s.object;
        }
        return srq_;
    }
    // Creates a QP with `p`, expects `expected`, and closes it when it was created.
    void expect_create_qp(const qp_params& p, NTSTATUS expected, const std::string& what) {
        auto qp = create_qp(pd_, cq_, cq_, p);
        EXPECT_NT_STATUS(expected, qp.status) << what;
        if (expected != STATUS_SUCCESS) {
            EXPECT_NT_STATUS(expected, qp.returned) << what << ": validation fails inline";
            EXPECT_EQ(qp.object, nullptr) << what;
        }
        if (qp.object != nullptr) {
            EXPECT_NT_SUCCESS(close(qp.object).status);
        }
    }
    void expect_create_qp_with_srq(const qp_params& p, NTSTATUS expected, const std::string& what) {
        auto qp = create_qp_with_srq(pd_, cq_, cq_, srq(), p);
        EXPECT_NT_STATUS(expected, qp.status) << what;
        if (expected != STATUS_SUCCESS) {
            EXPECT_NT_STATUS(expected, qp.returned) << what << ": validation fails inline";
            EXPECT_EQ(qp.object, nullptr) << what;
        }
        if (qp.object != nullptr) {
            EXPECT_NT_SUCCESS(close(qp.object).status);
        }
    }

    NDK_ADAPTER_INFO info_{};
    NDK_PD* pd_ = nullptr;
    NDK_CQ* cq_ = nullptr;
    NDK_SRQ* srq_ = nullptr;
};

class QpCreate : public QpTest {};
class QpCreateWithSrq : public QpTest {};

TEST_P(QpCreate, DeliversQpWithTypeVersionZeroedReservedAndFullDispatch) {
    int context = 0;
    qp_params p;
    p.qp_context = &context;
    auto qp = create_qp(pd_, cq_, cq_, p);
    ASSERT_NT_SUCCESS(qp.status);
    EXPECT_EQ(qp.object->Header.ObjectType, NdkObjectTypeQp);
    EXPECT_EQ(qp.object->Header.Version.Major, 2);
    EXPECT_EQ(qp.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(qp.object->Header));
    ASSERT_NE(qp.object->Dispatch, nullptr);
    EXPECT_NE(qp.object->Dispatch->NdkSendAndInvalidate, nullptr) << "1.2+ entry";
    EXPECT_NT_SUCCESS(close(qp.object).status);
}

TEST_P(QpCreate, AcceptsEveryLimitExactly) {
    qp_params p;
    p.receive_queue_depth = info_.MaxReceiveQueueDepth;
    p.initiator_queue_depth = info_.MaxInitiatorQueueDepth;
    p.max_receive_request_sge = info_.MaxReceiveRequestSge;
    p.max_initiator_request_sge = info_.MaxInitiatorRequestSge;
    p.inline_data_size = info_.MaxInlineDataSize;
    expect_create_qp(p, STATUS_SUCCESS, "every parameter at its limit");
}

TEST_P(QpCreate, RejectsReceiveQueueDepthAboveLimitWithInvalidParameter) {
    qp_params p;
    p.receive_queue_depth = info_.MaxReceiveQueueDepth + 1;
    expect_create_qp(p, STATUS_INVALID_PARAMETER, "ReceiveQueueDepth = MaxReceiveQueueDepth + 1");
}

TEST_P(QpCreate, RejectsInitiatorQueueDepthAboveLimitWithInvalidParameter) {
    qp_params p;
    p.initiator_queue_depth = info_.MaxInitiatorQueueDepth + 1;
    expect_create_qp(p, STATUS_INVALID_PARAMETER,
                     "InitiatorQueueDepth = MaxInitiatorQueueDepth + 1");
}

TEST_P(QpCreate, RejectsReceiveSgeAboveLimitWithInvalidParameter) {
    qp_params p;
    p.max_receive_request_sge = info_.MaxReceiveRequestSge + 1;
    expect_create_qp(p, STATUS_INVALID_PARAMETER,
                     "MaxReceiveRequestSge = adapter MaxReceiveRequestSge + 1");
}

TEST_P(QpCreate, RejectsInitiatorSgeAboveLimitWithInvalidParameter) {
    qp_params p;
    p.max_initiator_request_sge = info_.MaxInitiatorRequestSge + 1;
    expect_create_qp(p, STATUS_INVALID_PARAMETER,
                     "MaxInitiatorRequestSge = adapter MaxInitiatorRequestSge + 1");
}

TEST_P(QpCreate, RejectsInlineDataSizeAboveLimitWithInvalidParameter) {
    qp_params p;
    p.inline_data_size = info_.MaxInlineDataSize + 1;
    expect_create_qp(p, STATUS_INVALID_PARAMETER, "InlineDataSize = MaxInlineDataSize + 1");
}

TEST_P(QpCreate, AcceptsCqOfAnotherHandleOfTheSameAdapter) {
    // Objects belong to the NIC, not to the handle they came through (docs/object-model.md).
    NDK_ADAPTER* other = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({2, 1}, &other));
    auto second = create_cq(16, other);
    ASSERT_NT_SUCCESS(second.status);
    auto qp = create_qp(pd_, second.object, cq_);
    EXPECT_NT_SUCCESS(qp.status);
    if (qp.object != nullptr) {
        EXPECT_NT_SUCCESS(close(qp.object).status);
    }
    EXPECT_NT_SUCCESS(close(second.object).status);
    close_handle(other);
}

TEST_P(QpCreate, RefusedCreateLeavesItsAntecedentsFreeToCloseAtOnce) {
    qp_params p;
    p.inline_data_size = info_.MaxInlineDataSize + 1;
    auto qp = create_qp(pd_, cq_, cq_, p);
    ASSERT_NT_STATUS(STATUS_INVALID_PARAMETER, qp.returned);
    // Nothing depends on the CQ and PD: under INLINE style their closes complete inline.
    const call_result c = close(cq_);
    cq_ = nullptr;
    const call_result d = close(pd_);
    pd_ = nullptr;
    EXPECT_NT_SUCCESS(c.status);
    EXPECT_NT_SUCCESS(d.status);
    if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
        EXPECT_NT_SUCCESS(c.returned);
        EXPECT_NT_SUCCESS(d.returned);
    }
}

TEST_P(QpCreate, QueryExtensionReturnsNotSupported) {
    auto qp = create_qp(pd_, cq_, cq_);
    ASSERT_NT_SUCCESS(qp.status);
    GUID id{7, 7, 7, {7, 7, 7, 7, 7, 7, 7, 7}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, qp.object->Dispatch->NdkQueryExtension(
                                               &qp.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(qp.object).status);
}

TEST_P(QpCreateWithSrq, DeliversQpWithTypeAndVersion) {
    auto qp = create_qp_with_srq(pd_, cq_, cq_, srq());
    ASSERT_NT_SUCCESS(qp.status);
    EXPECT_EQ(qp.object->Header.ObjectType, NdkObjectTypeQp);
    EXPECT_EQ(qp.object->Header.Version.Major, 2);
    EXPECT_EQ(qp.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(qp.object->Header));
    EXPECT_NT_SUCCESS(close(qp.object).status);
}

TEST_P(QpCreateWithSrq, AcceptsEveryLimitExactly) {
    qp_params p;
    p.initiator_queue_depth = info_.MaxInitiatorQueueDepth;
    p.max_initiator_request_sge = info_.MaxInitiatorRequestSge;
    p.inline_data_size = info_.MaxInlineDataSize;
    expect_create_qp_with_srq(p, STATUS_SUCCESS, "every parameter at its limit");
}

TEST_P(QpCreateWithSrq, RejectsInitiatorQueueDepthAboveLimitWithInvalidParameter) {
    qp_params p;
    p.initiator_queue_depth = info_.MaxInitiatorQueueDepth + 1;
    expect_create_qp_with_srq(p, STATUS_INVALID_PARAMETER,
                              "InitiatorQueueDepth = MaxInitiatorQueueDepth + 1");
}

TEST_P(QpCreateWithSrq, RejectsInitiatorSgeAboveLimitWithInvalidParameter) {
    qp_params p;
    p.max_initiator_request_sge = info_.MaxInitiatorRequestSge + 1;
    expect_create_qp_with_srq(p, STATUS_INVALID_PARAMETER,
                              "MaxInitiatorRequestSge = adapter MaxInitiatorRequestSge + 1");
}

TEST_P(QpCreateWithSrq, RejectsInlineDataSizeAboveLimitWithInvalidParameter) {
    qp_params p;
    p.inline_data_size = info_.MaxInlineDataSize + 1;
    expect_create_qp_with_srq(p, STATUS_INVALID_PARAMETER,
                              "InlineDataSize = MaxInlineDataSize + 1");
}

TEST_P(QpCreateWithSrq, SrqClosePendsUntilItsQpCloses) {
    auto qp = create_qp_with_srq(pd_, cq_, cq_, srq());
    ASSERT_NT_SUCCESS(qp.status);
    expect_close_waits_for(&srq_->Header, {&qp.object->Header});
    srq_ = nullptr;
}

NDKSIM_TEST_INSTANTIATE_STYLES(QpCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(QpCreateWithSrq);

}  // namespace
