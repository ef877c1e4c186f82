// SPDX-License-Identifier: MIT
// NDK_MR conformance: NdkCreateMr (normal and fast-register) in every completion style, the
// header, NdkQueryExtension, and closing an MR alone and under a PD whose close is pending.
// Registration itself (NdkRegisterMr, ...) is tested with the memory unit (tests/unit/mem)
// and on the data path (tests/component/test_rc_memory.cpp).

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class MrTest : public NdkStyleTest {
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

class MrCreate : public MrTest {};
class MrClose : public MrTest {};

TEST_P(MrCreate, NormalRegistrationMrHasTypeVersionZeroedReservedAndDispatch) {
    auto mr = create_mr(pd_, FALSE);
    ASSERT_NT_SUCCESS(mr.status);
    EXPECT_EQ(mr.object->Header.ObjectType, NdkObjectTypeMr);
    EXPECT_EQ(mr.object->Header.Version.Major, 2);
    EXPECT_EQ(mr.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(mr.object->Header));
    EXPECT_NE(mr.object->Dispatch, nullptr);
    EXPECT_NT_SUCCESS(close(mr.object).status);
}

TEST_P(MrCreate, FastRegisterMrHasTypeVersionAndZeroedReserved) {
    auto mr = create_mr(pd_, TRUE);
    ASSERT_NT_SUCCESS(mr.status);
    EXPECT_EQ(mr.object->Header.ObjectType, NdkObjectTypeMr);
    EXPECT_EQ(mr.object->Header.Version.Major, 2);
    EXPECT_TRUE(reserved_is_zero(mr.object->Header));
    EXPECT_NT_SUCCESS(close(mr.object).status);
}

TEST_P(MrCreate, ManyMrsOnOnePdAreDistinctAndAllClose) {
    NDK_MR* mrs[8] = {};
    for (auto& m : mrs) {
        auto r = create_mr(pd_, (&m - mrs) % 2 == 0 ? FALSE : TRUE);
        ASSERT_NT_SUCCESS(r.status);
        m = r.object;
    }
    for (std::size_t i = 0; i < 8; ++i) {
        for (std::size_t j = i + 1; j < 8; ++j) {
            EXPECT_NE(mrs[i], mrs[j]);
        }
    }
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 10u);  // handle, PD, 8 MRs
    for (NDK_MR* m : mrs) {
        EXPECT_NT_SUCCESS(close(m).status);
    }
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 2u);
}

TEST_P(MrCreate, QueryExtensionReturnsNotSupported) {
    auto mr = create_mr(pd_);
    ASSERT_NT_SUCCESS(mr.status);
    GUID id{3, 3, 3, {3, 3, 3, 3, 3, 3, 3, 3}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, mr.object->Dispatch->NdkQueryExtension(
                                               &mr.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(mr.object).status);
}

TEST_P(MrClose, ReturnsSuccessOrPendingAndCompletesAtMostOnce) {
    auto mr = create_mr(pd_);
    ASSERT_NT_SUCCESS(mr.status);
    const call_result c = close(mr.object);
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

TEST_P(MrClose, LetsItsPdsPendingCloseComplete) {
    auto mr = create_mr(pd_);
    ASSERT_NT_SUCCESS(mr.status);
    expect_close_waits_for(&pd_->Header, {&mr.object->Header});
    pd_ = nullptr;
}

NDKSIM_TEST_INSTANTIATE_STYLES(MrCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(MrClose);

}  // namespace
