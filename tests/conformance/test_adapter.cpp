// SPDX-License-Identifier: MIT
// NDK_ADAPTER conformance: version negotiation through ndksim_open_ndk_adapter (REFERENCE.md
// section 1), the handle's header, NdkQueryAdapterInfo size negotiation, NdkQueryExtension,
// several handles on one adapter, and closing a handle (blocking, leak reporting).

#include <cstring>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

// ---- version negotiation ----------------------------------------------------------------

struct version_case {
    NDK_VERSION requested;
    NDIS_STATUS expected;
    NDK_VERSION runs_at;  // meaningful when expected is NDIS_STATUS_SUCCESS
};

void PrintTo(const version_case& c, std::ostream* os) {
    *os << "{" << c.requested.Major << "," << c.requested.Minor << "}";
}

// Appended front to back: `"V" + std::to_string(...)` inserts at the front of a temporary,
// which GCC 12 at -O3 misreads as a memcpy of up to SIZE_MAX bytes (-Wstringop-overflow).
std::string version_name(const testing::TestParamInfo<version_case>& info) {
    std::string name = "V";
    name += std::to_string(info.param.requested.Major);
    name += '_';
    name += std::to_string(info.param.requested.Minor);
    return name;
}

class AdapterOpen : public NdkTest, public testing::WithParamInterface<version_case> {};

TEST_P(AdapterOpen, NegotiatesHighestMinorOfRequestedMajorOrRefusesWithBadVersion) {
    const version_case& c = GetParam();
    NDK_ADAPTER* h = nullptr;
    const NDIS_STATUS s = open_handle(c.requested, &h);
    ASSERT_NT_STATUS(c.expected, s);
    if (c.expected != NDIS_STATUS_SUCCESS) {
        EXPECT_EQ(h, nullptr) << "a refused open must not hand out a handle";
        EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u) << "only the fixture's handle";
        return;
    }
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->Header.Version.Major, c.runs_at.Major);
    EXPECT_EQ(h->Header.Version.Minor, c.runs_at.Minor);
    EXPECT_EQ(h->Header.ObjectType, NdkObjectTypeAdapter);
    EXPECT_TRUE(reserved_is_zero(h->Header));
    EXPECT_NE(h->Dispatch, nullptr);
    const NDK_ADAPTER_INFO info = query_info(h);
    EXPECT_EQ(info.Version.Major, c.runs_at.Major);
    EXPECT_EQ(info.Version.Minor, c.runs_at.Minor);
    close_handle(h);
}

TEST_P(AdapterOpen, ReportsNegotiatedVersionInEveryObjectHeader) {
    const version_case& c = GetParam();
    if (c.expected != NDIS_STATUS_SUCCESS) {
        NDK_ADAPTER* h = nullptr;
        EXPECT_NT_STATUS(NDIS_STATUS_BAD_VERSION, open_handle(c.requested, &h));
        return;
    }
    NDK_ADAPTER* h = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle(c.requested, &h));
    const object_tree tree = create_tree(h);
    const std::vector<NDK_OBJECT_HEADER*> all = tree.all();
    ASSERT_EQ(all.size(), 10u) << "one object of every kind";
    for (NDK_OBJECT_HEADER* o : all) {
        EXPECT_EQ(o->Version.Major, c.runs_at.Major) << kind_name(o->ObjectType);
        EXPECT_EQ(o->Version.Minor, c.runs_at.Minor) << kind_name(o->ObjectType);
    }
    close_tree(tree);
    close_handle(h);
}

INSTANTIATE_TEST_SUITE_P(Versions, AdapterOpen,
                         testing::Values(version_case{{1, 0}, NDIS_STATUS_SUCCESS, {1, 2}},
                                         version_case{{1, 1}, NDIS_STATUS_SUCCESS, {1, 2}},
                                         version_case{{1, 2}, NDIS_STATUS_SUCCESS, {1, 2}},
                                         version_case{{2, 0}, NDIS_STATUS_SUCCESS, {2, 1}},
                                         version_case{{2, 1}, NDIS_STATUS_SUCCESS, {2, 1}},
                                         version_case{{1, 3}, NDIS_STATUS_BAD_VERSION, {0, 0}},
                                         version_case{{2, 2}, NDIS_STATUS_BAD_VERSION, {0, 0}},
                                         version_case{{3, 0}, NDIS_STATUS_BAD_VERSION, {0, 0}},
                                         version_case{{0, 1}, NDIS_STATUS_BAD_VERSION, {0, 0}}),
                         version_name);

TEST(AdapterVersion, HighestVersionIsTwoOne) {
    const NDK_VERSION v = ndksim_highest_version();
    EXPECT_EQ(v.Major, 2);
    EXPECT_EQ(v.Minor, 1);
}

// ---- the handle ---------------------------------------------------------------------------

class AdapterHandle : public NdkStyleTest {};

TEST_P(AdapterHandle, HeaderCarriesAdapterTypeNegotiatedVersionAndZeroedReserved) {
    NDK_ADAPTER* h = adapter();
    EXPECT_EQ(h->Header.ObjectType, NdkObjectTypeAdapter);
    EXPECT_EQ(h->Header.Version.Major, 2);
    EXPECT_EQ(h->Header.Version.Minor, 1);
    EXPECT_TRUE(reserved_is_zero(h->Header));
    ASSERT_NE(h->Dispatch, nullptr);
    EXPECT_NE(h->Dispatch->NdkQueryAdapterInfo, nullptr);
    EXPECT_NE(h->Dispatch->NdkCreateCq, nullptr);
    EXPECT_NE(h->Dispatch->NdkCreatePd, nullptr);
    EXPECT_NE(h->Dispatch->NdkCreateSharedEndpoint, nullptr);
    EXPECT_NE(h->Dispatch->NdkCreateConnector, nullptr);
    EXPECT_NE(h->Dispatch->NdkCreateListener, nullptr);
    EXPECT_NE(h->Dispatch->NdkBuildLAM, nullptr);
    EXPECT_NE(h->Dispatch->NdkReleaseLAM, nullptr);
}

TEST_P(AdapterHandle, QueryExtensionReturnsNotSupported) {
    GUID id{0xAABBCCDD, 1, 2, {3, 4, 5, 6, 7, 8, 9, 10}};
    NDK_EXTENSION_INTERFACE ext{};
    EXPECT_NT_STATUS(STATUS_NOT_SUPPORTED, adapter()->Dispatch->NdkQueryExtension(
                                               &adapter()->Header, &id, NDK_VERSION{1, 0}, &ext));
}

TEST_P(AdapterHandle, SeveralHandlesOpenAtOnceEachRunAtItsOwnVersion) {
    NDK_ADAPTER* v12 = nullptr;
    NDK_ADAPTER* v20 = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({1, 2}, &v12));
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({2, 0}, &v20));
    EXPECT_NE(v12, v20);
    EXPECT_NE(v12, adapter());
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 3u);
    auto pd12 = create_pd(v12);
    auto pd20 = create_pd(v20);
    auto pd21 = create_pd();
    ASSERT_NT_SUCCESS(pd12.status);
    ASSERT_NT_SUCCESS(pd20.status);
    ASSERT_NT_SUCCESS(pd21.status);
    EXPECT_EQ(pd12.object->Header.Version.Minor, 2);
    EXPECT_EQ(pd12.object->Header.Version.Major, 1);
    EXPECT_EQ(pd20.object->Header.Version.Major, 2);
    EXPECT_EQ(pd20.object->Header.Version.Minor, 1);
    EXPECT_EQ(query_info(v12).Version.Minor, 2);
    EXPECT_EQ(query_info(v20).Version.Minor, 1);
    // Handles close independently, in an order other than the one they were opened in.
    EXPECT_NT_SUCCESS(close(pd20.object).status);
    close_handle(v20);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 4u);  // 2 handles, 2 PDs
    EXPECT_NT_SUCCESS(close(pd12.object).status);
    close_handle(v12);
    EXPECT_NT_SUCCESS(close(pd21.object).status);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 0u);
}

// ---- NdkQueryAdapterInfo ------------------------------------------------------------------

static_assert(sizeof(NDK_ADAPTER_INFO) == 0x68, "x64 NDK_ADAPTER_INFO with RdmaTechnology");
constexpr ULONG k_info_size_without_rdma_technology = 0x60;

class AdapterQueryInfo : public NdkStyleTest {};

TEST_P(AdapterQueryInfo, NullBufferReturnsBufferTooSmallWithRequiredSize) {
    ULONG size = 0;
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     adapter()->Dispatch->NdkQueryAdapterInfo(adapter(), nullptr, &size));
    EXPECT_EQ(size, sizeof(NDK_ADAPTER_INFO));
    size = sizeof(NDK_ADAPTER_INFO);
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     adapter()->Dispatch->NdkQueryAdapterInfo(adapter(), nullptr, &size))
        << "a NULL buffer is too small whatever size is claimed";
    EXPECT_EQ(size, sizeof(NDK_ADAPTER_INFO));
}

TEST_P(AdapterQueryInfo, ShortBufferReturnsBufferTooSmallAndIsNotWritten) {
    for (ULONG given : {ULONG{0}, ULONG{4}, ULONG{0x10}, k_info_size_without_rdma_technology - 1}) {
        unsigned char buffer[sizeof(NDK_ADAPTER_INFO)];
        std::memset(buffer, 0xAB, sizeof buffer);
        ULONG size = given;
        EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                         adapter()->Dispatch->NdkQueryAdapterInfo(
                             adapter(), reinterpret_cast<NDK_ADAPTER_INFO*>(buffer), &size))
            << "buffer of " << given << " bytes";
        EXPECT_EQ(size, sizeof(NDK_ADAPTER_INFO)) << "buffer of " << given << " bytes";
        for (unsigned char b : buffer) {
            ASSERT_EQ(b, 0xAB) << "a too-small buffer was written (" << given << " bytes)";
        }
    }
}

TEST_P(AdapterQueryInfo, FullSizeSucceedsAndFillsEveryField) {
    NDK_ADAPTER_INFO info;
    std::memset(&info, 0xAB, sizeof info);
    ULONG size = sizeof info;
    ASSERT_NT_SUCCESS(adapter()->Dispatch->NdkQueryAdapterInfo(adapter(), &info, &size));
    EXPECT_EQ(size, sizeof info);
    EXPECT_EQ(info.Version.Major, 2);
    EXPECT_EQ(info.Version.Minor, 1);
    EXPECT_NE(info.VendorId, 0u);
    EXPECT_NE(info.DeviceId, 0u);
    EXPECT_GT(info.MaxRegistrationSize, 0u);
    EXPECT_GT(info.MaxWindowSize, 0u);
    EXPECT_GE(info.FRMRPageCount, 16u) << "providers must support at least 16 pages";
    EXPECT_GT(info.MaxInitiatorRequestSge, 0u);
    EXPECT_GT(info.MaxReceiveRequestSge, 0u);
    EXPECT_GT(info.MaxReadRequestSge, 0u);
    EXPECT_GT(info.MaxTransferLength, 0u);
    EXPECT_GT(info.MaxInboundReadLimit, 0u);
    EXPECT_GT(info.MaxOutboundReadLimit, 0u);
    EXPECT_GT(info.MaxReceiveQueueDepth, 0u);
    EXPECT_GT(info.MaxInitiatorQueueDepth, 0u);
    EXPECT_GT(info.MaxSrqDepth, 0u);
    EXPECT_GT(info.MaxCqDepth, 0u);
    EXPECT_NE(info.MaxCqDepth, 0xABABABABu) << "field left unwritten";
    EXPECT_NE(info.AdapterFlags, 0xABABABABu) << "field left unwritten";
    EXPECT_NE(static_cast<ULONG>(info.RdmaTechnology), 0xABABABABu) << "field left unwritten";
}

TEST_P(AdapterQueryInfo, LargerBufferSucceedsAndReportsTheStructureSize) {
    unsigned char buffer[sizeof(NDK_ADAPTER_INFO) + 32];
    std::memset(buffer, 0xAB, sizeof buffer);
    ULONG size = sizeof buffer;
    ASSERT_NT_SUCCESS(adapter()->Dispatch->NdkQueryAdapterInfo(
        adapter(), reinterpret_cast<NDK_ADAPTER_INFO*>(buffer), &size));
    EXPECT_EQ(size, sizeof(NDK_ADAPTER_INFO));
    for (std::size_t i = sizeof(NDK_ADAPTER_INFO); i < sizeof buffer; ++i) {
        ASSERT_EQ(buffer[i], 0xAB) << "byte " << i << " beyond NDK_ADAPTER_INFO was written";
    }
}

TEST_P(AdapterQueryInfo, PreRdmaTechnologySizeSucceedsReportsItAndWritesNoFurther) {
    unsigned char buffer[sizeof(NDK_ADAPTER_INFO)];
    std::memset(buffer, 0xAB, sizeof buffer);
    ULONG size = k_info_size_without_rdma_technology;
    ASSERT_NT_SUCCESS(adapter()->Dispatch->NdkQueryAdapterInfo(
        adapter(), reinterpret_cast<NDK_ADAPTER_INFO*>(buffer), &size));
    EXPECT_EQ(size, k_info_size_without_rdma_technology);
    for (std::size_t i = k_info_size_without_rdma_technology; i < sizeof buffer; ++i) {
        ASSERT_EQ(buffer[i], 0xAB) << "byte " << i << " (RdmaTechnology) was written";
    }
    NDK_ADAPTER_INFO older;
    std::memcpy(&older, buffer, sizeof older);
    const NDK_ADAPTER_INFO full = query_info();
    EXPECT_EQ(std::memcmp(&older, &full, k_info_size_without_rdma_technology), 0)
        << "the older fields must match a full query";
}

TEST_P(AdapterQueryInfo, NullBufferThenRequiredSizeSucceeds) {
    ULONG size = 0;
    ASSERT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     adapter()->Dispatch->NdkQueryAdapterInfo(adapter(), nullptr, &size));
    std::vector<unsigned char> buffer(size);
    ASSERT_NT_SUCCESS(adapter()->Dispatch->NdkQueryAdapterInfo(
        adapter(), reinterpret_cast<NDK_ADAPTER_INFO*>(buffer.data()), &size));
    EXPECT_EQ(size, sizeof(NDK_ADAPTER_INFO));
}

// ---- closing a handle ---------------------------------------------------------------------

class AdapterClose : public NdkStyleTest {
  protected:
    env_options options() const override {
        env_options o = NdkStyleTest::options();
        // Threaded mode: how long a handle close waits for its children's closes before
        // reporting them as leaked. These closes do complete, but an engine thread on a loaded
        // host may take seconds to run them.
        o.close_timeout_ms = 30'000;
        return o;
    }
};

// A handle closed over a leaked object: the close waits its whole timeout, so it is short.
class AdapterCloseLeak : public NdkStyleTest {
  protected:
    env_options options() const override {
        env_options o = NdkStyleTest::options();
        o.close_timeout_ms = 2000;
        return o;
    }
};

TEST_P(AdapterClose, BlocksUntilPendingChildClosesHaveCompleted) {
    NDK_ADAPTER* h = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({2, 1}, &h));
    const object_tree tree = create_tree(h);
    const std::vector<NDK_OBJECT_HEADER*> all = tree.all();
    ASSERT_EQ(all.size(), 10u);
    std::vector<call_result> closes;
    for (NDK_OBJECT_HEADER* o : all) {
        closes.push_back(start_close(o, make_recorder(std::string(kind_name(o->ObjectType)))));
    }
    // Without driving the loop: the handle close itself must wait for every close completion.
    close_handle(h);
    for (const call_result& c : closes) {
        EXPECT_EQ(c.rec->calls(), c.returned == STATUS_PENDING ? 1 : 0)
            << c.rec->name() << " close completion after the handle closed";
    }
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 0u);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u) << "only the fixture's handle";
}

TEST_P(AdapterClose, WithParentClosedBeforeChildrenStillWaitsForAllOfThem) {
    NDK_ADAPTER* h = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({2, 1}, &h));
    auto pd = create_pd(h);
    ASSERT_NT_SUCCESS(pd.status);
    auto mr = create_mr(pd.object);
    ASSERT_NT_SUCCESS(mr.status);
    recorder& pd_close = make_recorder("pd.close");
    recorder& mr_close = make_recorder("mr.close");
    EXPECT_NT_STATUS(STATUS_PENDING, start_close(&pd.object->Header, pd_close).returned);
    const call_result mc = start_close(&mr.object->Header, mr_close);
    close_handle(h);
    EXPECT_EQ(pd_close.calls(), 1);
    EXPECT_EQ(mr_close.calls(), mc.returned == STATUS_PENDING ? 1 : 0);
    EXPECT_EQ(log().entered().back(), "pd.close") << "the PD completes last";
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 0u);
}

TEST_P(AdapterCloseLeak, WithAnOpenPdReportsOneLeakAndThePdCanStillBeClosed) {
    NDK_ADAPTER* h = nullptr;
    ASSERT_NT_STATUS(NDIS_STATUS_SUCCESS, open_handle({2, 1}, &h));
    auto pd = create_pd(h);
    ASSERT_NT_SUCCESS(pd.status);
    expect_leaked_objects(1);
    close_handle(h);
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 1u);
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 2u) << "the fixture's handle and the PD";
    EXPECT_NT_SUCCESS(close(pd.object).status);
    drain();
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 1u);
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 1u) << "the count is a history";
}

TEST_P(AdapterClose, ClosingAllHandlesLeavesNoLiveObjects) {
    const object_tree tree = create_tree();
    close_tree(tree);
    close_handle(adapter());
    drain();
    EXPECT_EQ(ndksim_adapter_live_objects(sim()), 0u);
    EXPECT_EQ(ndksim_adapter_leaked_objects(sim()), 0u);
}

NDKSIM_TEST_INSTANTIATE_STYLES(AdapterHandle);
NDKSIM_TEST_INSTANTIATE_STYLES(AdapterQueryInfo);
NDKSIM_TEST_INSTANTIATE_STYLES(AdapterClose);
NDKSIM_TEST_INSTANTIATE_THREADED_STYLES(AdapterClose);
NDKSIM_TEST_INSTANTIATE_STYLES(AdapterCloseLeak);
NDKSIM_TEST_INSTANTIATE_THREADED_STYLES(AdapterCloseLeak);

}  // namespace
