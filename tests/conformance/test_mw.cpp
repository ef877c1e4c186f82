// SPDX-License-Identifier: MIT
// NDK_MW conformance: NdkCreateMw in every completion style, the header, NdkQueryExtension,
// and closing an MW alone and under a PD whose close is pending. Binding is tested with the
// memory unit (tests/unit/mem) and on the data path (tests/component/test_rc_memory.cpp).

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class MwTest : public NdkStyleTest {
  protected:
    void SetUp() override {
        NdkStyleTest::SetUp();
        if (HasFatalFailure()) {
            return;
        }
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
    NDK_PD* pd_ = nullptr;
};

class MwCreate : public MwTest {};
class MwClose : public MwTest {};

TEST_P(MwCreate, DeliversMwWithTypeVersionZeroedReservedAndDispatch) {
    auto mw = create_mw(pd_);
    ASSERT_NT_SUCCESS(mw.status);
    EXPECT_EQ(mw.object->Header.ObjectType, NdkObjectTypeMw);
    EXPECT_EQ(mw.object->Header.Version.Major, 2);
    EXPECT_EQ(mw.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(mw.object->Header));
    EXPECT_NE(mw.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(mw.object).status);
}

TEST_P(MwCreate, QueryExtensionReturnsNotSupported) {
    auto mw = create_mw(pd_);
    ASSERT_NT_SUCCESS(mw.status);
    GUID id{5, 5, 5, {5, 5, 5, 5, 5, 5, 5, 5}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, mw.object->Dispatch->NdkQueryExtension(
                                               &mw.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(mw.object).status);
}

TEST_P(MwClose, ReturnsSuccessOrPendingAndCompletesAtMostOnce) {
    auto mw = create_mw(pd_);
    ASSERT_NT_SUCCESS(mw.status);
    const call_result c = close(mw.object);
    EXPECT_NT_SUCCESS(c.status);
    if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
        EXPECT_NT_SUCCESS(c.returned);
    }
    if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
        EXPECT_NT_STATUS(STATUS_PENDING, c.returned);
    }
    drain();
    EXPECT_EQ(c.rec->calls(), c.returned == STATUS_PENDING ? 1 : 0);
}

TEST_P(MwClose, LetsItsPdsPendingCloseCompleteAfterTheLastOfSeveralMws) {
    auto a = create_mw(pd_);
    auto b = create_mw(pd_);
    auto c = create_mw(pd_);
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    ASSERT_NT_SUCCESS(c.status);
    expect_close_waits_for(&pd_->Header, {&b.object->Header, &c.object->Header, &a.object->Header});
    pd_ = nullptr;
}

NDKSIM_TEST_INSTANTIATE_STYLES(MwCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(MwClose);

}  // namespace
