// SPDX-License-Identifier: MIT
// NDK_CONNECTOR conformance: NdkCreateConnector in every completion style, the header (with
// the 13-entry NDKPI 2.1 dispatch table), NdkQueryExtension, and its close. Connection
// establishment is tested in tests/conformance/test_listener.cpp and
// tests/component/test_rc_connections.cpp.

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class ConnectorCreate : public NdkStyleTest {};
class ConnectorClose : public NdkStyleTest {};

TEST_P(ConnectorCreate, DeliversConnectorWithTypeVersionZeroedReservedAndDispatch) {
    auto c = create_connector();
    ASSERT_NT_SUCCESS(c.status);
    EXPECT_EQ(c.object->Header.ObjectType, NdkObjectTypeConnector);
    EXPECT_EQ(c.object->Header.Version.Major, 2);
    EXPECT_EQ(c.object->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(c.object->Header));
    ASSERT_NE(c.object->Dispatch, nullptr);
    EXPECT_NE(c.object->Dispatch->NdkCompleteConnectEx, nullptr) << "2.1 entry";
    EXPECT_NE(c.object->Dispatch->NdkAcceptEx, nullptr) << "2.1 entry";
    EXPECT_NT_SUCCESS(close(c.object).status);
}

TEST_P(ConnectorCreate, UnderA12HandleReportsVersion12) {
    NDK_ADAPTER* h = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({1, 1}, &h));
    auto c = create_connector(h);
    ASSERT_NT_SUCCESS(c.status);
    EXPECT_EQ(c.object->Header.Version.Major, 1);
    EXPECT_EQ(c.object->Header.Version.Minor, 2);
    EXPECT_NT_SUCCESS(close(c.object).status);
    close_handle(h);
}

TEST_P(ConnectorCreate, QueryExtensionReturnsNotSupported) {
    auto c = create_connector();
    ASSERT_NT_SUCCESS(c.status);
    GUID id{4, 4, 4, {4, 4, 4, 4, 4, 4, 4, 4}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, c.object->Dispatch->NdkQueryExtension(
                                               &c.object->Header, &id, NDK_VERSION{1, 0}, &ext));
    EXPECT_NT_SUCCESS(close(c.object).status);
}

TEST_P(ConnectorClose, ReturnsSuccessOrPendingAndCompletesAtMostOnce) {
    auto c = create_connector();
    ASSERT_NT_SUCCESS(c.status);
    const call_result r = close(c.object);
    EXPECT_NT_SUCCESS(r.status);
    if (GetParam().style == NDKSIM_COMPLETE_INLINE) {
        EXPECT_NT_SUCCESS(r.returned);
    }
    if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
        EXPECT_NT_STATUS(STATUS_PENDING, r.returned);
    }
    drain();
    EXPECT_EQ(r.rec->calls(), r.returned == STATUS_PENDING ? 1 : 0);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
}

TEST_P(ConnectorClose, SeveralConnectorsCloseInAnyOrder) {
    auto a = create_connector();
    auto b = create_connector();
    auto c = create_connector();
    ASSERT_NT_SUCCESS(a.status);
    ASSERT_NT_SUCCESS(b.status);
    ASSERT_NT_SUCCESS(c.status);
    EXPECT_NT_SUCCESS(close(b.object).status);
    EXPECT_NT_SUCCESS(close(a.object).status);
    EXPECT_NT_SUCCESS(close(c.object).status);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
}

NDKSIM_TEST_INSTANTIATE_STYLES(ConnectorCreate);
NDKSIM_TEST_INSTANTIATE_STYLES(ConnectorClose);

}  // namespace
