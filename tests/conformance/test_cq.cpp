// SPDX-License-Identifier: MIT
// NDK_CQ conformance: create/close in every completion style, CqDepth limits of NdkCreateCq
// and NdkResizeCq (read from NdkQueryAdapterInfo), NdkControlCqInterruptModeration statuses,
// NdkQueryExtension, and the close rules: a CQ close pends until every QP using it has closed,
// and comes after the completion of a pending request (REFERENCE.md rules 1, 4, 6).

#include <string>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class CqCreate : public NdkStyleTest {};
class CqResize : public NdkStyleTest {};
class CqModeration : public NdkStyleTest {};
class CqClose : public NdkStyleTest {};
class CqCloseWithPendingRequest : public NdkStyleTest {};

TEST_P(CqCreate, DeliversCqWithTypeVersionAndZeroedReserved) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    EXPECT_EQ(cq.object->Header.ObjectType, NdkObjectTypeCq);
    EXPECT_EQ(cq.object->Header.Version.Major, 2);
    EXPECT_EQ(cq.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(cq.object->Header));
    ASSERT_NE(cq.object->Dispatch, nullptr);
    EXPECT_NE(cq.object->Dispatch->NdkGetCqResultsEx, nullptr) << "1.2+ entry";
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqCreate, AcceptsDepthEqualToMaxCqDepth) {
    const NDK_ADAPTER_INFO info = query_info();
    auto cq = create_cq(info.MaxCqDepth);
    ASSERT_NT_SUCCESS(cq.status);
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqCreate, RejectsDepthAboveMaxCqDepthWithInvalidParameter) {
    const NDK_ADAPTER_INFO info = query_info();
    auto cq = create_cq(info.MaxCqDepth + 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, cq.returned);
    EXPECT_EQ(cq.object, nullptr);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u) << "a refused create leaves no object";
}

TEST_P(CqCreate, RejectsZeroDepthWithInvalidParameter) {
    auto cq = create_cq(0);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, cq.returned);
    EXPECT_EQ(cq.object, nullptr);
}

TEST_P(CqCreate, RejectsMissingNotificationCallbackWithInvalidParameter) {
    NDK_ADAPTER* h = adapter();
    auto cq = create<NDK_CQ>("NdkCreateCq(CqNotification NULL)", [&](NDK_FN_CREATE_COMPLETION cb,
                                                                     PVOID ctx, NDK_CQ** out) {
        return h->Dispatch->NdkCreateCq(h, 16, nullptr, nullptr, nullptr, cb, ctx, out);
    });
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, cq.returned);
}

TEST_P(CqCreate, QueryExtensionReturnsNotSupported) {
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(cq.status);
    GUID id{1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, cq.object->Dispatch->NdkQueryExtension(
                                               &cq.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqResize, ToDepthWithinLimitSucceedsInlineOrThroughOneCompletion) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    for (ULONG depth : {ULONG{128}, ULONG{16}, query_info().MaxCqDepth}) {
        const call_result r = resize_cq(cq.object, depth);
        EXPECT_NT_SUCCESS(r.status) << "resize to " << depth;
        if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
            EXPECT_NT_STATUS(STATUS_PENDING, r.returned);
        }
        if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
            EXPECT_NT_SUCCESS(r.returned);
        }
    }
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqResize, AboveMaxCqDepthFailsInlineWithInvalidParameter) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    const call_result r = resize_cq(cq.object, query_info().MaxCqDepth + 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, r.returned);
    drain();
    EXPECT_EQ(r.rec->calls(), 0);
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqModeration, MaxIntervalWithMaxCountIsInvalidParameterMix) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    ASSERT_NE(query_info().AdapterFlags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED, 0u);
    EXPECT_NT_STATUS(
        STATUS_INVALID_PARAMETER_MIX,
        cq.object->Dispatch->NdkControlCqInterruptModeration(cq.object, MAXULONG, MAXULONG));
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqModeration, MaxIntervalWithCountAboveCqDepthIsInvalidParameterMix) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER_MIX,
                     cq.object->Dispatch->NdkControlCqInterruptModeration(cq.object, MAXULONG, 65));
    EXPECT_NT_SUCCESS(cq.object->Dispatch->NdkControlCqInterruptModeration(cq.object, MAXULONG, 64))
        << "a count equal to the depth is allowed";
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqModeration, ValidSettingsSucceedAndNeverPend) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    const struct {
        ULONG interval;
        ULONG count;
    } cases[] = {{0, 0}, {100, 8}, {1, 1}, {MAXULONG - 1, MAXULONG}, {10, 0}};
    for (const auto& c : cases) {
        EXPECT_NT_SUCCESS(
            cq.object->Dispatch->NdkControlCqInterruptModeration(cq.object, c.interval, c.count))
            << "interval " << c.interval << " count " << c.count;
    }
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(CqClose, PendsUntilLastQpClosesThenCompletesOnce) {
    auto pd = create_pd();
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(cq.status);
    auto qp = create_qp(pd.object, cq.object, cq.object);
    ASSERT_NT_SUCCESS(qp.status);
    expect_close_waits_for(&cq.object->Header, {&qp.object->Header});
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(CqClose, PendsUntilLastOfSeveralQpsCloses) {
    auto pd = create_pd();
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(cq.status);
    auto a = create_qp(pd.object, cq.object, cq.object);
    auto b = create_qp(pd.object, cq.object, cq.object);
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    expect_close_waits_for(&cq.object->Header, {&b.object->Header, &a.object->Header});
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(CqClose, ReceiveAndInitiatorCqsBothWaitForTheirQp) {
    auto pd = create_pd();
    auto rcq = create_cq();
    auto icq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(rcq.status);
    ASSERT_NT_SUCCESS(icq.status);
    auto qp = create_qp(pd.object, rcq.object, icq.object);
    ASSERT_NT_SUCCESS(qp.status);
    log().clear();
    recorder& r_close = make_recorder("rcq.close");
    recorder& i_close = make_recorder("icq.close");
    const call_result rc = start_close(&rcq.object->Header, r_close);
    const call_result ic = start_close(&icq.object->Header, i_close);
    EXPECT_NT_STATUS(STATUS_PENDING, rc.returned);
    EXPECT_NT_STATUS(STATUS_PENDING, ic.returned);
    drain();
    EXPECT_EQ(r_close.calls(), 0);
    EXPECT_EQ(i_close.calls(), 0);
    recorder& q_close = make_recorder("qp.close");
    const call_result qc = close(qp.object, &q_close);
    ASSERT_TRUE(finish(rc, "NdkCloseCq(receive)"));
    ASSERT_TRUE(finish(ic, "NdkCloseCq(initiator)"));
    drain();
    EXPECT_EQ(r_close.calls(), 1);
    EXPECT_EQ(i_close.calls(), 1);
    const std::vector<std::string> entered = log().entered();
    ASSERT_EQ(entered.size(), qc.returned == STATUS_PENDING ? 3u : 2u);
    if (qc.returned == STATUS_PENDING) {
        EXPECT_EQ(entered.front(), "qp.close") << "the QP's close completion comes first";
    }
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(CqClose, FromInsideLastQpCloseCompletionCompletesAfterIt) {
    auto pd = create_pd();
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(cq.status);
    auto qp = create_qp(pd.object, cq.object, cq.object);
    ASSERT_NT_SUCCESS(qp.status);
    // Close the QP, and close the CQ from inside the QP's close completion (when the QP's
    // close pends) or right after it (when it completed inline).
    log().clear();
    recorder& cq_close = make_recorder("cq.close");
    call_result cc;
    recorder& qp_close = make_recorder("qp.close");
    qp_close.set_hook([&](recorder&) { cc = start_close(&cq.object->Header, cq_close); });
    const call_result qc = start_close(&qp.object->Header, qp_close);
    if (qc.returned != STATUS_PENDING) {
        cc = start_close(&cq.object->Header, cq_close);
    } else {
        ASSERT_TRUE(finish(qc, "NdkCloseQp"));
        EXPECT_NT_STATUS(STATUS_PENDING, cc.returned)
            << "closed from inside its QP's close completion, the QP still counts (rule 6)";
    }
    ASSERT_TRUE(finish(cc, "NdkCloseCq"));
    drain();
    const std::vector<std::string> entered = log().entered();
    if (qc.returned == STATUS_PENDING) {
        ASSERT_EQ(entered.size(), 2u);
        EXPECT_EQ(entered[0], "qp.close");
        EXPECT_EQ(entered[1], "cq.close");
        EXPECT_EQ(cq_close.calls(), 1);
    }
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(CqCloseWithPendingRequest, CloseCompletionComesAfterResizeCompletion) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    log().clear();
    recorder& resize = make_recorder("cq.resize");
    const NTSTATUS r =
        cq.object->Dispatch->NdkResizeCq(cq.object, 256, &recorder::on_request, &resize);
    ASSERT_NT_STATUS(STATUS_PENDING, r);
    resize.expect_calls(1);
    recorder& closing = make_recorder("cq.close");
    const call_result c = start_close(&cq.object->Header, closing);
    EXPECT_NT_STATUS(STATUS_PENDING, c.returned) << "a request is outstanding (rule 4)";
    ASSERT_TRUE(finish(c, "NdkCloseCq"));
    drain();
    EXPECT_EQ(resize.calls(), 1);
    EXPECT_NT_SUCCESS(resize.status());
    EXPECT_EQ(closing.calls(), 1);
    const std::vector<std::string> expected{"cq.resize", "~cq.resize", "cq.close", "~cq.close"};
    EXPECT_EQ(log().entries(), expected) << "the close completion is the last callback";
}

TEST_P(CqCloseWithPendingRequest, CloseFromInsideResizeCompletionCompletesAfterIt) {
    auto cq = create_cq(64);
    ASSERT_NT_SUCCESS(cq.status);
    log().clear();
    recorder& resize = make_recorder("cq.resize");
    recorder& closing = make_recorder("cq.close");
    call_result c;
    resize.set_hook([&](recorder&) { c = start_close(&cq.object->Header, closing); });
    const call_result r = resize_cq(cq.object, 256, &resize);
    ASSERT_NT_STATUS(STATUS_PENDING, r.returned);
    EXPECT_NT_SUCCESS(r.status);
    EXPECT_NT_STATUS(STATUS_PENDING, c.returned) << "the resize completion is still running";
    ASSERT_TRUE(finish(c, "NdkCloseCq"));
    drain();
    const std::vector<std::string> expected{"cq.resize", "~cq.resize", "cq.close", "~cq.close"};
    EXPECT_EQ(log().entries(), expected);
}

NDKSIM_TEST_INSTANTIATE_STYLES(CqCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(CqResize);
NDKSIM_TEST_INSTANTIATE_STYLES(CqModeration);
NDKSIM_TEST_INSTANTIATE_STYLES(CqClose);
NDKSIM_TEST_INSTANTIATE_PENDING_STYLES(CqCloseWithPendingRequest);

}  // namespace
