// SPDX-License-Identifier: MIT
// NDK_PD conformance: create and close in every completion style, the object header, the
// query-extension entry, and parent-before-child close ordering (REFERENCE.md rules 1-7).

#include <string>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class PdCreate : public NdkStyleTest {};
class PdClose : public NdkStyleTest {};
class PdQueryExtension : public NdkStyleTest {};

TEST_P(PdCreate, DeliversPdWithTypeVersionZeroedReservedAndDispatch) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NE(pd.object, nullptr);
    EXPECT_EQ(pd.object->Header.ObjectType, NdkObjectTypePd);
    EXPECT_EQ(pd.object->Header.Version.Major, 2);
    EXPECT_EQ(pd.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(pd.object->Header));
    EXPECT_NE(pd.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(PdCreate, ReturnsSuccessInlineOrPendingAsTheStyleSays) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    switch (GetParam().style) {
        case NDKSIM_COMPLETE_INLINE:
            EXPECT_NT_SUCCESS(pd.returned);
            EXPECT_EQ(pd.rec->calls(), 0);
            break;
        case NDKSIM_COMPLETE_PENDING:
            EXPECT_NT_STATUS(STATUS_PENDING, pd.returned);
            EXPECT_EQ(pd.rec->calls(), 1);
            break;
        case NDKSIM_COMPLETE_RANDOM:
            EXPECT_TRUE(pd.returned == STATUS_SUCCESS || pd.returned == STATUS_PENDING)
                << status_text(pd.returned);
            EXPECT_EQ(pd.rec->calls(), pd.returned == STATUS_PENDING ? 1 : 0);
            break;
    }
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

TEST_P(PdCreate, SeveralPdsOnOneHandleAreDistinctObjects) {
    auto a = create_pd();
    auto b = create_pd();
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    EXPECT_NE(a.object, b.object);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 3u);  // the handle and two PDs
    EXPECT_NT_SUCCESS(close(a.object).status);
    EXPECT_NT_SUCCESS(close(b.object).status);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
}

TEST_P(PdClose, WithoutSuccessorsReturnsSuccessOrPendingAndCompletesOnce) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    const call_result c = close(pd.object);
    EXPECT_TRUE(c.returned == STATUS_SUCCESS || c.returned == STATUS_PENDING)
        << status_text(c.returned);
    if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
        EXPECT_NT_STATUS(STATUS_PENDING, c.returned);
    }
    if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
        EXPECT_NT_SUCCESS(c.returned);
    }
    drain();
    EXPECT_EQ(c.rec->calls(), c.returned == STATUS_PENDING ? 1 : 0);
}

TEST_P(PdClose, PendsUntilLastMrClosesThenCompletesOnce) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    auto mr = create_mr(pd.object);
    ASSERT_NT_SUCCESS(mr.status);
    expect_close_waits_for(&pd.object->Header, {&mr.object->Header});
}

TEST_P(PdClose, PendsUntilLastOfTwoMrsCloses) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    auto normal = create_mr(pd.object, FALSE);
    auto fast = create_mr(pd.object, TRUE);
    ASSERT_NT_SUCCESS(normal.status);
    ASSERT_NT_SUCCESS(fast.status);
    expect_close_waits_for(&pd.object->Header, {&fast.object->Header, &normal.object->Header});
}

TEST_P(PdClose, PendsUntilLastMwClosesThenCompletesOnce) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    auto mw = create_mw(pd.object);
    ASSERT_NT_SUCCESS(mw.status);
    expect_close_waits_for(&pd.object->Header, {&mw.object->Header});
}

TEST_P(PdClose, PendsUntilLastSrqClosesThenCompletesOnce) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    auto srq = create_srq(pd.object);
    ASSERT_NT_SUCCESS(srq.status);
    expect_close_waits_for(&pd.object->Header, {&srq.object->Header});
}

TEST_P(PdClose, PendsUntilLastQpClosesThenCompletesOnce) {
    auto pd = create_pd();
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(cq.status);
    auto qp = create_qp(pd.object, cq.object, cq.object);
    ASSERT_NT_SUCCESS(qp.status);
    expect_close_waits_for(&pd.object->Header, {&qp.object->Header});
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(PdClose, PendsUntilTheLastOfEveryKindOfSuccessorCloses) {
    auto pd = create_pd();
    auto cq = create_cq();
    ASSERT_NT_SUCCESS(pd.status);
    ASSERT_NT_SUCCESS(cq.status);
    auto mr = create_mr(pd.object);
    auto mw = create_mw(pd.object);
    auto srq = create_srq(pd.object);
    auto qp = create_qp(pd.object, cq.object, cq.object);
    auto qp_srq = create_qp_with_srq(pd.object, cq.object, cq.object, srq.object);
    ASSERT_NT_SUCCESS(mr.status);
    ASSERT_NT_SUCCESS(mw.status);
    ASSERT_NT_SUCCESS(srq.status);
    ASSERT_NT_SUCCESS(qp.status);
    ASSERT_NT_SUCCESS(qp_srq.status);
    // The PD and the SRQ are closed before everything that depends on them.
    log().clear();
    recorder& pd_close = make_recorder("pd.close");
    recorder& srq_close = make_recorder("srq.close");
    const call_result pc = start_close(&pd.object->Header, pd_close);
    const call_result sc = start_close(&srq.object->Header, srq_close);
    EXPECT_NT_STATUS(STATUS_PENDING, pc.returned);
    EXPECT_NT_STATUS(STATUS_PENDING, sc.returned);
    for (NDK_OBJECT_HEADER* o :
         {&mw.object->Header, &qp.object->Header, &mr.object->Header, &qp_srq.object->Header}) {
        drain();
        EXPECT_EQ(pd_close.calls(), 0) << "before closing the " << kind_name(o->ObjectType);
        EXPECT_EQ(srq_close.calls(), 0) << "before closing the " << kind_name(o->ObjectType);
        EXPECT_NT_SUCCESS(close(o).status);
    }
    ASSERT_TRUE(finish(sc, "NdkCloseSrq"));
    ASSERT_TRUE(finish(pc, "NdkClosePd"));
    drain();
    EXPECT_EQ(srq_close.calls(), 1);
    EXPECT_EQ(pd_close.calls(), 1);
    const std::vector<std::string> entered = log().entered();
    ASSERT_GE(entered.size(), 2u);
    EXPECT_EQ(entered[entered.size() - 2], "srq.close") << "the SRQ (a successor) completes first";
    EXPECT_EQ(entered.back(), "pd.close") << "the PD completes last";
    EXPECT_NT_SUCCESS(close(cq.object).status);
}

TEST_P(PdClose, OutOfOrderClosesLeaveNoLiveObjects) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    auto mr = create_mr(pd.object);
    auto mw = create_mw(pd.object);
    ASSERT_NT_SUCCESS(mr.status);
    ASSERT_NT_SUCCESS(mw.status);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 4u);
    recorder& pd_close = make_recorder("pd.close");
    const call_result pc = start_close(&pd.object->Header, pd_close);
    EXPECT_NT_STATUS(STATUS_PENDING, pc.returned);
    EXPECT_NT_SUCCESS(close(mr.object).status);
    EXPECT_NT_SUCCESS(close(mw.object).status);
    ASSERT_TRUE(finish(pc, "NdkClosePd"));
    drain();
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
}

TEST_P(PdQueryExtension, ReturnsNotSupported) {
    auto pd = create_pd();
    ASSERT_NT_SUCCESS(pd.status);
    GUID id{0x12345678, 0x1234, 0x5678, {1, 2, 3, 4, 5, 6, 7, 8}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, pd.object->Dispatch->NdkQueryExtension(
                                               &pd.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(pd.object).status);
}

NDKSIM_TEST_INSTANTIATE_STYLES(PdCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(PdClose);
NDKSIM_TEST_INSTANTIATE_STYLES(PdQueryExtension);

}  // namespace
