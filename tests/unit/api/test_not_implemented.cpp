// Every dispatch entry exists (REFERENCE.md section 4); the ones whose behaviour belongs to a
// later part of the simulator say so. This test pins the exact list, so it can only shrink:
// implementing an entry means removing it here and from api/not_implemented.cpp.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/not_implemented.hpp"
#include "ndksim.h"

namespace {

const std::vector<std::string> k_expected{
    "NDK_ADAPTER_DISPATCH.NdkBuildLAM",
    "NDK_ADAPTER_DISPATCH.NdkReleaseLAM",
    "NDK_CQ_DISPATCH.NdkArmCq",
    "NDK_CQ_DISPATCH.NdkGetCqResults",
    "NDK_CQ_DISPATCH.NdkGetCqResultsEx",
    "NDK_PD_DISPATCH.NdkGetPrivilegedMemoryRegionToken",
    "NDK_MR_DISPATCH.NdkRegisterMr",
    "NDK_MR_DISPATCH.NdkDeregisterMr",
    "NDK_MR_DISPATCH.NdkInitializeFastRegisterMr",
    "NDK_MR_DISPATCH.NdkGetRemoteTokenFromMr",
    "NDK_MR_DISPATCH.NdkGetLocalTokenFromMr",
    "NDK_MW_DISPATCH.NdkGetRemoteTokenFromMw",
    "NDK_SRQ_DISPATCH.NdkSrqReceive",
    "NDK_QP_DISPATCH.NdkFlush",
    "NDK_QP_DISPATCH.NdkSend",
    "NDK_QP_DISPATCH.NdkReceive",
    "NDK_QP_DISPATCH.NdkBind",
    "NDK_QP_DISPATCH.NdkFastRegister",
    "NDK_QP_DISPATCH.NdkInvalidate",
    "NDK_QP_DISPATCH.NdkRead",
    "NDK_QP_DISPATCH.NdkWrite",
    "NDK_QP_DISPATCH.NdkSendAndInvalidate",
    "NDK_CONNECTOR_DISPATCH.NdkConnect",
    "NDK_CONNECTOR_DISPATCH.NdkConnectWithSharedEndpoint",
    "NDK_CONNECTOR_DISPATCH.NdkCompleteConnect",
    "NDK_CONNECTOR_DISPATCH.NdkAccept",
    "NDK_CONNECTOR_DISPATCH.NdkReject",
    "NDK_CONNECTOR_DISPATCH.NdkGetConnectionData",
    "NDK_CONNECTOR_DISPATCH.NdkGetLocalAddress",
    "NDK_CONNECTOR_DISPATCH.NdkGetPeerAddress",
    "NDK_CONNECTOR_DISPATCH.NdkDisconnect",
    "NDK_CONNECTOR_DISPATCH.NdkCompleteConnectEx",
    "NDK_CONNECTOR_DISPATCH.NdkAcceptEx",
};

void on_create(PVOID, NTSTATUS, NDK_OBJECT_HEADER*) {}
void on_close(PVOID) {}
void on_request(PVOID, NTSTATUS) {}
void on_cq(PVOID, NTSTATUS) {}

// An inline-style adapter with one object of each kind whose entries are listed above.
class NotImplemented : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(ndksim_loop_create(&loop_), STATUS_SUCCESS);
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.loop = loop_;
        c.address = "127.0.0.77";
        ASSERT_EQ(ndksim_adapter_create(&c, &nic_), STATUS_SUCCESS);
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        ASSERT_EQ(ndksim_open_ndk_adapter(nic_, &p, &a_), NDIS_STATUS_SUCCESS);
        ASSERT_EQ(a_->Dispatch->NdkCreatePd(a_, on_create, nullptr, &pd_), STATUS_SUCCESS);
        ASSERT_EQ(a_->Dispatch->NdkCreateCq(a_, 16, on_cq, nullptr, nullptr, on_create, nullptr,
                                            &cq_),
                  STATUS_SUCCESS);
        ASSERT_EQ(pd_->Dispatch->NdkCreateQp(pd_, cq_, cq_, nullptr, 4, 4, 1, 1, 0, on_create,
                                             nullptr, &qp_),
                  STATUS_SUCCESS);
        ASSERT_EQ(pd_->Dispatch->NdkCreateSrq(pd_, 4, 1, 0, nullptr, nullptr, nullptr, on_create,
                                              nullptr, &srq_),
                  STATUS_SUCCESS);
        ASSERT_EQ(pd_->Dispatch->NdkCreateMr(pd_, FALSE, on_create, nullptr, &mr_),
                  STATUS_SUCCESS);
        ASSERT_EQ(pd_->Dispatch->NdkCreateMw(pd_, on_create, nullptr, &mw_), STATUS_SUCCESS);
        ASSERT_EQ(a_->Dispatch->NdkCreateConnector(a_, on_create, nullptr, &conn_),
                  STATUS_SUCCESS);
    }

    void TearDown() override {
        NDK_OBJECT_HEADER* objs[] = {&conn_->Header, &qp_->Header, &srq_->Header, &mr_->Header,
                                     &mw_->Header,   &cq_->Header, &pd_->Header};
        for (NDK_OBJECT_HEADER* o : objs) {
            // Each kind's close is the first entry of its table; the QP table stands for all.
            reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, on_close, nullptr);
        }
        ndksim_close_ndk_adapter(nic_, a_);
        EXPECT_EQ(ndksim_adapter_leaked_objects(nic_), 0U);
        ndksim_adapter_destroy(nic_);
        ndksim_loop_destroy(loop_);
    }

    ndksim_loop* loop_ = nullptr;
    ndksim_adapter* nic_ = nullptr;
    NDK_ADAPTER* a_ = nullptr;
    NDK_PD* pd_ = nullptr;
    NDK_CQ* cq_ = nullptr;
    NDK_QP* qp_ = nullptr;
    NDK_SRQ* srq_ = nullptr;
    NDK_MR* mr_ = nullptr;
    NDK_MW* mw_ = nullptr;
    NDK_CONNECTOR* conn_ = nullptr;
};

TEST_F(NotImplemented, ListIsExactlyTheEntriesStillToCome) {
    std::vector<std::string> actual;
    for (std::string_view e : ndksim::api::not_implemented_entries()) {
        actual.emplace_back(e);
    }
    EXPECT_EQ(actual, k_expected);
}

TEST_F(NotImplemented, EveryListedStatusEntryReturnsStatusNotImplemented) {
    SOCKADDR_IN addr{};
    addr.sin_family = WS_AF_INET;
    ULONG len = sizeof addr;
    ULONG ird = 0;
    ULONG ord = 0;
    NDK_SGE sge{};
    ULONG lam_size = 0;
    ULONG fbo = 0;
    const std::vector<std::pair<std::string, std::function<NTSTATUS()>>> calls{
        {"NDK_ADAPTER_DISPATCH.NdkBuildLAM",
         [&] {
             return a_->Dispatch->NdkBuildLAM(a_, nullptr, 0, on_request, nullptr, nullptr,
                                              &lam_size, &fbo);
         }},
        {"NDK_MR_DISPATCH.NdkRegisterMr",
         [&] { return mr_->Dispatch->NdkRegisterMr(mr_, nullptr, 0, 0, on_request, nullptr); }},
        {"NDK_MR_DISPATCH.NdkDeregisterMr",
         [&] { return mr_->Dispatch->NdkDeregisterMr(mr_, on_request, nullptr); }},
        {"NDK_MR_DISPATCH.NdkInitializeFastRegisterMr",
         [&] {
             return mr_->Dispatch->NdkInitializeFastRegisterMr(mr_, 1, FALSE, on_request, nullptr);
         }},
        {"NDK_SRQ_DISPATCH.NdkSrqReceive",
         [&] { return srq_->Dispatch->NdkSrqReceive(srq_, nullptr, &sge, 1); }},
        {"NDK_QP_DISPATCH.NdkSend",
         [&] { return qp_->Dispatch->NdkSend(qp_, nullptr, &sge, 1, 0); }},
        {"NDK_QP_DISPATCH.NdkReceive",
         [&] { return qp_->Dispatch->NdkReceive(qp_, nullptr, &sge, 1); }},
        {"NDK_QP_DISPATCH.NdkBind",
         [&] { return qp_->Dispatch->NdkBind(qp_, nullptr, mr_, mw_, nullptr, 0, 0); }},
        {"NDK_QP_DISPATCH.NdkFastRegister",
         [&] {
             return qp_->Dispatch->NdkFastRegister(qp_, nullptr, mr_, 0, nullptr, 0, 0, nullptr,
                                                   0);
         }},
        {"NDK_QP_DISPATCH.NdkInvalidate",
         [&] { return qp_->Dispatch->NdkInvalidate(qp_, nullptr, &mw_->Header, 0); }},
        {"NDK_QP_DISPATCH.NdkRead",
         [&] { return qp_->Dispatch->NdkRead(qp_, nullptr, &sge, 1, 0, 0, 0); }},
        {"NDK_QP_DISPATCH.NdkWrite",
         [&] { return qp_->Dispatch->NdkWrite(qp_, nullptr, &sge, 1, 0, 0, 0); }},
        {"NDK_QP_DISPATCH.NdkSendAndInvalidate",
         [&] { return qp_->Dispatch->NdkSendAndInvalidate(qp_, nullptr, &sge, 1, 0, 0); }},
        {"NDK_CONNECTOR_DISPATCH.NdkConnect",
         [&] {
             return conn_->Dispatch->NdkConnect(conn_, qp_, reinterpret_cast<PSOCKADDR>(&addr),
                                                sizeof addr, reinterpret_cast<PSOCKADDR>(&addr),
                                                sizeof addr, 0, 0, nullptr, 0, on_request,
                                                nullptr);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkConnectWithSharedEndpoint",
         [&] {
             return conn_->Dispatch->NdkConnectWithSharedEndpoint(
                 conn_, qp_, nullptr, reinterpret_cast<PSOCKADDR>(&addr), sizeof addr, 0, 0,
                 nullptr, 0, on_request, nullptr);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkCompleteConnect",
         [&] {
             return conn_->Dispatch->NdkCompleteConnect(conn_, nullptr, nullptr, on_request,
                                                        nullptr);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkAccept",
         [&] {
             return conn_->Dispatch->NdkAccept(conn_, qp_, 0, 0, nullptr, 0, nullptr, nullptr,
                                               on_request, nullptr);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkReject",
         [&] { return conn_->Dispatch->NdkReject(conn_, nullptr, 0); }},
        {"NDK_CONNECTOR_DISPATCH.NdkGetConnectionData",
         [&] {
             return conn_->Dispatch->NdkGetConnectionData(conn_, &ird, &ord, nullptr, &len);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkGetLocalAddress",
         [&] {
             return conn_->Dispatch->NdkGetLocalAddress(conn_, reinterpret_cast<PSOCKADDR>(&addr),
                                                        &len);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkGetPeerAddress",
         [&] {
             return conn_->Dispatch->NdkGetPeerAddress(conn_, reinterpret_cast<PSOCKADDR>(&addr),
                                                       &len);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkDisconnect",
         [&] { return conn_->Dispatch->NdkDisconnect(conn_, on_request, nullptr); }},
        {"NDK_CONNECTOR_DISPATCH.NdkCompleteConnectEx",
         [&] {
             return conn_->Dispatch->NdkCompleteConnectEx(conn_, nullptr, nullptr, on_request,
                                                          nullptr);
         }},
        {"NDK_CONNECTOR_DISPATCH.NdkAcceptEx",
         [&] {
             return conn_->Dispatch->NdkAcceptEx(conn_, qp_, 0, 0, nullptr, 0, nullptr, nullptr,
                                                 on_request, nullptr);
         }},
    };
    for (const auto& [name, call] : calls) {
        const bool listed =
            std::find(k_expected.begin(), k_expected.end(), name) != k_expected.end();
        if (!listed) {
            continue;  // implemented since; its own tests cover it
        }
        const NTSTATUS s = call();
        EXPECT_EQ(s, STATUS_NOT_IMPLEMENTED) << name << " returned " << ndksim_status_name(s);
    }
}

}  // namespace
