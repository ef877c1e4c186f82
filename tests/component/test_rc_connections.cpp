// SPDX-License-Identifier: MIT
// Connection management between two adapters, in deterministic mode: the documented failures of
// NdkConnect / NdkAccept / NdkCompleteConnect / NdkListen, connection data and addresses, and the
// disconnect scheme (REFERENCE.md rules 25-28, networkdirect-disconnect-scheme.md).

#include <ndkinfo.h>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

class RcConnections : public RcPair {
  protected:
    /// Starts NdkConnect of `c` over `qp` to 10.0.0.x:port; returns what NdkConnect returned.
    NTSTATUS start_connect(NDK_CONNECTOR* c, NDK_QP* qp, const char* to, USHORT port, slot& done,
                           const void* data = nullptr, ULONG length = 0) {
        SOCKADDR_IN src = ipv4("10.0.0.1", 0);
        SOCKADDR_IN dst = ipv4(to, port);
        return c->Dispatch->NdkConnect(c, qp, reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                                       reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8, 8,
                                       const_cast<void*>(data), length, slot::on_request, &done);
    }

    /// Drives the loop until the listener's connect event; the connector is tracked.
    NDK_CONNECTOR* take_incoming() {
        if (!drive([&] { return incoming_ != nullptr; }, "the connect event")) {
            return nullptr;
        }
        NDK_CONNECTOR* c = incoming_;
        incoming_ = nullptr;
        track(&c->Header);
        return c;
    }

    /// Starts a connection from a new connector of a over `aqp` (returned in `c`, completion
    /// in `connected`) and returns the passive connector from b's listener, or nullptr.
    NDK_CONNECTOR* request_from_a(NDK_QP* aqp, NDK_CONNECTOR*& c, slot& connected) {
        c = make_connector(a_);
        EXPECT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
        return take_incoming();
    }

    /// A shared endpoint on a at 10.0.0.1 with an ephemeral port (tracked), or nullptr.
    NDK_SHARED_ENDPOINT* make_shared_endpoint() {
        NDK_SHARED_ENDPOINT* sep = nullptr;
        SOCKADDR_IN local = ipv4("10.0.0.1", 0);
        slot created;
        EXPECT_NT_SUCCESS(a_.adapter->Dispatch->NdkCreateSharedEndpoint(
            a_.adapter, reinterpret_cast<PSOCKADDR>(&local), sizeof local, slot::on_create,
            &created, &sep));
        if (sep != nullptr) {
            track(&sep->Header);
        }
        return sep;
    }

    /// Takes the next connect event and accepts it over `bqp` (STATUS_PENDING, completion in
    /// `accepted`); returns the passive connector, or nullptr when no event came.
    NDK_CONNECTOR* accept_incoming(NDK_QP* bqp, slot& accepted) {
        NDK_CONNECTOR* passive = take_incoming();
        if (passive != nullptr) {
            EXPECT_NT_STATUS(STATUS_PENDING,
                             passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr,
                                                          nullptr, slot::on_request, &accepted));
        }
        return passive;
    }

    /// Calls NdkCompleteConnect on the active `c` once the passive side accepted (`accepted`)
    /// and drives until both completed, each with STATUS_SUCCESS.
    void complete_handshake(NDK_CONNECTOR* c, const slot& accepted) {
        slot completed;
        ASSERT_NT_STATUS(STATUS_PENDING, c->Dispatch->NdkCompleteConnect(
                                             c, nullptr, nullptr, slot::on_request, &completed));
        ASSERT_TRUE(drive([&] { return completed.calls == 1 && accepted.calls == 1; },
                          "CompleteConnect and Accept"));
        EXPECT_NT_SUCCESS(completed.status);
        EXPECT_NT_SUCCESS(accepted.status);
    }

    NDK_ADAPTER_INFO info(side& s) {
        NDK_ADAPTER_INFO i{};
        ULONG size = sizeof i;
        EXPECT_NT_SUCCESS(s.adapter->Dispatch->NdkQueryAdapterInfo(s.adapter, &i, &size));
        return i;
    }

    static SOCKADDR_IN address(NTSTATUS (*fn)(NDK_CONNECTOR*, PSOCKADDR, ULONG*),
                               NDK_CONNECTOR* c) {
        SOCKADDR_IN a{};
        ULONG size = sizeof a;
        EXPECT_NT_SUCCESS(fn(c, reinterpret_cast<PSOCKADDR>(&a), &size));
        EXPECT_EQ(sizeof a, size);
        return a;
    }
};

TEST_F(RcConnections, ConnectToAPortWithoutListenerCompletesWithConnectionRefused) {
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     start_connect(c, qp, "10.0.0.2", static_cast<USHORT>(port_ + 1), done));
    ASSERT_TRUE(wait(done, "Connect's completion"));
    EXPECT_EQ(1, done.calls);
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, done.status);
    settle();
    EXPECT_EQ(nullptr, incoming_);
    EXPECT_EQ(1, done.calls);
}

TEST_F(RcConnections, PausedListenerRefusesAndResumedListenerAccepts) {
    listener_->Dispatch->NdkControlConnectEvents(listener_, TRUE);
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot refused;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, qp, "10.0.0.2", port_, refused));
    ASSERT_TRUE(wait(refused, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, refused.status);
    settle();
    EXPECT_EQ(nullptr, incoming_) << "a paused listener delivered a connect event";

    listener_->Dispatch->NdkControlConnectEvents(listener_, FALSE);
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    link& l = connect_qps(aqp, bqp);
    ASSERT_NE(nullptr, l.passive);
    // The new connection carries data.
    NDK_SGE r = b_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(bqp->Dispatch->NdkReceive(bqp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(aqp->Dispatch->NdkSend(aqp, nullptr, &s, 1, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
}

TEST_F(RcConnections, PassiveRejectRefusesTheActiveConnectAndReturnsSuccess) {
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, qp, "10.0.0.2", port_, done));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    char why[] = "go away";
    EXPECT_NT_SUCCESS(passive->Dispatch->NdkReject(passive, why, sizeof why));
    ASSERT_TRUE(wait(done, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, done.status);
    settle();
    EXPECT_EQ(1, done.calls);
}

TEST_F(RcConnections, ConnectToAnAddressNoAdapterOwnsIsHostUnreachable) {
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, qp, "10.0.0.9", port_, done));
    ASSERT_TRUE(wait(done, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_HOST_UNREACHABLE, done.status);
}

TEST_F(RcConnections, AcceptTimesOutInSimulatedTimeWhenTheActiveSideNeverCompletes) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    slot accepted;
    const ULONG64 accepted_at = ndksim_loop_now(loop_);
    ASSERT_NT_STATUS(STATUS_PENDING,
                     passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr, nullptr,
                                                  slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    // The active side never calls NdkCompleteConnect. Well before the CM timeout (1 s of
    // simulated time) the accept is still pending...
    ndksim_loop_run_for(loop_, 500ULL * 1000 * 1000 * 1000);  // 500 ms
    EXPECT_EQ(0, accepted.calls);
    // ...and once the simulation runs dry the timeout has fired.
    settle();
    ASSERT_EQ(1, accepted.calls);
    EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, accepted.status);
    EXPECT_GE(ndksim_loop_now(loop_) - accepted_at, 1000ULL * 1000 * 1000 * 1000);
    // The QP was never connected: posts on it still fail inline.
    NDK_SGE s = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, bqp->Dispatch->NdkSend(bqp, nullptr, &s, 1, 0));
}

TEST_F(RcConnections, AcceptIsAbortedWhenTheActiveSideClosesBeforeCompleteConnect) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    slot accepted;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr, nullptr,
                                                  slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    close_tracked(&c->Header);
    ASSERT_TRUE(wait(accepted, "Accept's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, accepted.status);
    settle();
    EXPECT_EQ(1, accepted.calls);
    EXPECT_EQ(1, connected.calls);
}

TEST_F(RcConnections, CompleteConnectBeforeConnectCompletedIsConnectionInvalid) {
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, qp, "10.0.0.2", port_, connected));
    slot completed;
    EXPECT_NT_STATUS(
        STATUS_CONNECTION_INVALID,
        c->Dispatch->NdkCompleteConnect(c, nullptr, nullptr, slot::on_request, &completed));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    EXPECT_NT_SUCCESS(passive->Dispatch->NdkReject(passive, nullptr, 0));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, connected.status);
    settle();
    EXPECT_EQ(0, completed.calls) << "an inline failure called the completion";
}

TEST_F(RcConnections, PostsOnAnUnconnectedQpFailInlineWithConnectionInvalid) {
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_MW* mw = nullptr;
    slot ignored;
    ASSERT_NT_SUCCESS(a_.pd->Dispatch->NdkCreateMw(a_.pd, slot::on_create, &ignored, &mw));
    track(&mw->Header);
    NDK_SGE s = a_.buf.sge(0, 64);
    const UINT64 ra = b_.buf.address();
    const UINT32 rt = b_.buf.remote_token;
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, qp->Dispatch->NdkSend(qp, nullptr, &s, 1, 0));
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     qp->Dispatch->NdkSendAndInvalidate(qp, nullptr, &s, 1, 0, rt));
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     qp->Dispatch->NdkWrite(qp, nullptr, &s, 1, ra, rt, 0));
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     qp->Dispatch->NdkRead(qp, nullptr, &s, 1, ra, rt, 0));
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     qp->Dispatch->NdkBind(qp, nullptr, a_.buf.mr, mw, a_.buf.bytes, 4096,
                                           NDK_OP_FLAG_ALLOW_REMOTE_READ));
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     qp->Dispatch->NdkInvalidate(qp, nullptr, &mw->Header, 0));
    EXPECT_TRUE(cq_empty(a_.cq)) << "an inline failure produced a completion";
    // A QP whose connection attempt failed is not connected either.
    NDK_CONNECTOR* c = make_connector(a_);
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     start_connect(c, qp, "10.0.0.2", static_cast<USHORT>(port_ + 1), done));
    ASSERT_TRUE(wait(done, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, done.status);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, qp->Dispatch->NdkSend(qp, nullptr, &s, 1, 0));
    EXPECT_TRUE(cq_empty(a_.cq));
}

TEST_F(RcConnections, SecondListenerOnTheSamePortIsASharingViolation) {
    NDK_LISTENER* second = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.adapter->Dispatch->NdkCreateListener(
        b_.adapter, [](PVOID, NDK_CONNECTOR*) {}, nullptr, slot::on_create, &created, &second));
    track(&second->Header);
    SOCKADDR_IN same = ipv4("0.0.0.0", port_);
    slot listened;
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     second->Dispatch->NdkListen(second, reinterpret_cast<PSOCKADDR>(&same),
                                                 sizeof same, slot::on_request, &listened));
    SOCKADDR_IN exact = ipv4("10.0.0.2", port_);
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     second->Dispatch->NdkListen(second, reinterpret_cast<PSOCKADDR>(&exact),
                                                 sizeof exact, slot::on_request, &listened));
    settle();
    EXPECT_EQ(0, listened.calls);
}

TEST_F(RcConnections, SameFourTupleThroughASharedEndpointIsAddressAlreadyExists) {
    NDK_SHARED_ENDPOINT* sep = make_shared_endpoint();
    ASSERT_NE(nullptr, sep);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_);
    NDK_QP* qp1 = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c1 = make_connector(a_);
    slot first;
    ASSERT_NT_STATUS(STATUS_PENDING, c1->Dispatch->NdkConnectWithSharedEndpoint(
                                         c1, qp1, sep, reinterpret_cast<PSOCKADDR>(&dst),
                                         sizeof dst, 8, 8, nullptr, 0, slot::on_request, &first));
    NDK_QP* qp2 = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c2 = make_connector(a_);
    slot second;
    EXPECT_NT_STATUS(STATUS_ADDRESS_ALREADY_EXISTS,
                     c2->Dispatch->NdkConnectWithSharedEndpoint(
                         c2, qp2, sep, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8, 8, nullptr,
                         0, slot::on_request, &second));
    // The first connection proceeds and uses the endpoint's port.
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    SOCKADDR_IN bound{};
    ULONG size = sizeof bound;
    ASSERT_NT_SUCCESS(
        sep->Dispatch->NdkGetLocalAddress(sep, reinterpret_cast<PSOCKADDR>(&bound), &size));
    EXPECT_EQ(text_of(bound), text_of(address(passive->Dispatch->NdkGetPeerAddress, passive)));
    EXPECT_NT_SUCCESS(passive->Dispatch->NdkReject(passive, nullptr, 0));
    ASSERT_TRUE(wait(first, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, first.status);
    settle();
    EXPECT_EQ(0, second.calls);
}

TEST_F(RcConnections, AFourTupleOfASharedEndpointStaysTakenAfterDisconnectUntilTheConnectorCloses) {
    // Rule 25 and the shared endpoint's reference counting: a connector keeps its four-tuple
    // until it closes, so a second connect over the same endpoint to the same peer fails inline.
    NDK_SHARED_ENDPOINT* sep = make_shared_endpoint();
    ASSERT_NE(nullptr, sep);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_);
    auto connect_over_sep = [&](NDK_CONNECTOR* c, NDK_QP* qp, slot& done) {
        return c->Dispatch->NdkConnectWithSharedEndpoint(
            c, qp, sep, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8, 8, nullptr, 0,
            slot::on_request, &done);
    };
    NDK_QP* qp1 = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_QP* qp2 = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c1 = make_connector(a_);
    slot first;
    ASSERT_NT_STATUS(STATUS_PENDING, connect_over_sep(c1, qp1, first));
    slot accepted;
    ASSERT_NE(nullptr, accept_incoming(bqp, accepted));
    ASSERT_TRUE(wait(first, "Connect's completion"));
    complete_handshake(c1, accepted);
    slot disconnected;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     c1->Dispatch->NdkDisconnect(c1, slot::on_request, &disconnected));
    ASSERT_TRUE(wait(disconnected, "Disconnect's completion"));
    ASSERT_NT_SUCCESS(disconnected.status);

    NDK_CONNECTOR* c2 = make_connector(a_);
    slot second;
    EXPECT_NT_STATUS(STATUS_ADDRESS_ALREADY_EXISTS, connect_over_sep(c2, qp2, second));
    settle();
    EXPECT_EQ(0, second.calls);
    EXPECT_EQ(nullptr, incoming_) << "the refused connect reached the listener";
    // Once the first connector closed, the four-tuple is free.
    close_tracked(&c1->Header);
    ASSERT_NT_STATUS(STATUS_PENDING, connect_over_sep(c2, qp2, second));
    NDK_CONNECTOR* again = take_incoming();
    ASSERT_NE(nullptr, again);
    EXPECT_NT_SUCCESS(again->Dispatch->NdkReject(again, nullptr, 0));
    ASSERT_TRUE(wait(second, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, second.status);
}

TEST_F(RcConnections, PrivateDataAboveTheAdapterLimitsIsInvalidBufferSize) {
    const NDK_ADAPTER_INFO ai = info(a_);
    const NDK_ADAPTER_INFO bi = info(b_);
    ASSERT_GT(ai.MaxCallerData, 0U);
    std::vector<char> data(std::max(ai.MaxCallerData, bi.MaxCalleeData) + 1, 'p');
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    EXPECT_NT_STATUS(STATUS_INVALID_BUFFER_SIZE, start_connect(c, aqp, "10.0.0.2", port_, connected,
                                                               data.data(), ai.MaxCallerData + 1));
    // Exactly MaxCallerData is fine and arrives whole.
    for (ULONG i = 0; i < ai.MaxCallerData; ++i) {
        data[i] = static_cast<char>('a' + i % 26);
    }
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected,
                                                   data.data(), ai.MaxCallerData));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    std::vector<char> got(ai.MaxCallerData);
    ULONG length = ai.MaxCallerData;
    ASSERT_NT_SUCCESS(
        passive->Dispatch->NdkGetConnectionData(passive, nullptr, nullptr, got.data(), &length));
    EXPECT_EQ(ai.MaxCallerData, length);
    EXPECT_EQ(0, std::memcmp(data.data(), got.data(), ai.MaxCallerData));
    // The passive side's limit is MaxCalleeData.
    slot accepted;
    EXPECT_NT_STATUS(
        STATUS_INVALID_BUFFER_SIZE,
        passive->Dispatch->NdkAccept(passive, bqp, 8, 8, data.data(), bi.MaxCalleeData + 1, nullptr,
                                     nullptr, slot::on_request, &accepted));
    EXPECT_NT_STATUS(STATUS_INVALID_BUFFER_SIZE,
                     passive->Dispatch->NdkReject(passive, data.data(), bi.MaxCalleeData + 1));
    ASSERT_NT_STATUS(STATUS_PENDING,
                     passive->Dispatch->NdkAccept(passive, bqp, 8, 8, data.data(), bi.MaxCalleeData,
                                                  nullptr, nullptr, slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    length = 0;
    ASSERT_NT_SUCCESS(c->Dispatch->NdkGetConnectionData(c, nullptr, nullptr, nullptr, &length));
    EXPECT_EQ(bi.MaxCalleeData, length);
    complete_handshake(c, accepted);
    EXPECT_EQ(1, connected.calls);
}

TEST_F(RcConnections, AQpOfAnotherHandleOfTheSameNicServesTheConnectionButNotOneOfAnotherNic) {
    // Objects belong to the NIC, whatever NDK_ADAPTER handle created them
    // (docs/object-model.md): a QP built on a second handle, over a CQ of the first, serves a
    // connector that the first handle's listener created.
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    side second;
    second.nic = b_.nic;
    ASSERT_NT_SUCCESS(ndksim_open_ndk_adapter(b_.nic, &p, &second.adapter));
    at_teardown([nic = b_.nic, h = second.adapter] { ndksim_close_ndk_adapter(nic, h); });
    slot ignored;
    ASSERT_NT_SUCCESS(second.adapter->Dispatch->NdkCreatePd(second.adapter, slot::on_create,
                                                            &ignored, &second.pd));
    track(&second.pd->Header);
    NDK_QP* bqp = make_qp(second, b_.cq);
    ASSERT_NE(nullptr, bqp);
    // A CQ of another NIC is refused.
    NDK_QP* refused = nullptr;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     second.pd->Dispatch->NdkCreateQp(second.pd, a_.cq, b_.cq, nullptr, 64, 64, 4,
                                                      4, 128, slot::on_create, &ignored, &refused));
    EXPECT_EQ(nullptr, refused);
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = nullptr;
    slot connected;
    NDK_CONNECTOR* passive = request_from_a(aqp, c, connected);
    ASSERT_NE(nullptr, passive);
    // A QP of another NIC is still refused.
    NDK_QP* foreign = make_qp(a_, a_.cq);
    slot accepted;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     passive->Dispatch->NdkAccept(passive, foreign, 8, 8, nullptr, 0, nullptr,
                                                  nullptr, slot::on_request, &accepted));
    ASSERT_NT_STATUS(STATUS_PENDING,
                     passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr, nullptr,
                                                  slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    complete_handshake(c, accepted);
    // The connection carries data into memory registered in the second handle's PD.
    buffer landing = register_buffer(second, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
    NDK_SGE r = landing.sge(0, 64);
    EXPECT_NT_SUCCESS(bqp->Dispatch->NdkReceive(bqp, nullptr, &r, 1));
    NDK_SGE sg = a_.buf.sge(0, 64);
    EXPECT_NT_SUCCESS(aqp->Dispatch->NdkSend(aqp, nullptr, &sg, 1, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
    release_buffer(second, landing);
}

TEST_F(RcConnections, GetConnectionDataReportsTheSizeAndRefusesAShortBuffer) {
    const char hello[] = "twenty bytes of data";  // 20 characters and the terminator
    const char reply[] = "a thirty byte reply from b...";
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     start_connect(c, aqp, "10.0.0.2", port_, connected, hello, sizeof hello));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    // Passive side: a size query, then a buffer that is too short.
    ULONG length = 0;
    ULONG ird = 0;
    ULONG ord = 0;
    ASSERT_NT_SUCCESS(
        passive->Dispatch->NdkGetConnectionData(passive, &ird, &ord, nullptr, &length));
    EXPECT_EQ(sizeof hello, length);
    EXPECT_EQ(8U, ird);
    EXPECT_EQ(8U, ord);
    char small[5] = {};
    length = sizeof small;
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL, passive->Dispatch->NdkGetConnectionData(
                                                  passive, nullptr, nullptr, small, &length));
    EXPECT_EQ(sizeof hello, length);
    EXPECT_EQ(0, std::memcmp(hello, small, sizeof small));
    slot accepted;
    ASSERT_NT_STATUS(STATUS_PENDING, passive->Dispatch->NdkAccept(
                                         passive, bqp, 8, 8, const_cast<char*>(reply), sizeof reply,
                                         nullptr, nullptr, slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    // Active side: the same.
    length = 0;
    ASSERT_NT_SUCCESS(c->Dispatch->NdkGetConnectionData(c, nullptr, nullptr, nullptr, &length));
    EXPECT_EQ(sizeof reply, length);
    length = sizeof small;
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     c->Dispatch->NdkGetConnectionData(c, nullptr, nullptr, small, &length));
    EXPECT_EQ(sizeof reply, length);
    EXPECT_EQ(0, std::memcmp(reply, small, sizeof small));
    char whole[64] = {};
    length = sizeof whole;
    EXPECT_NT_SUCCESS(c->Dispatch->NdkGetConnectionData(c, nullptr, nullptr, whole, &length));
    EXPECT_EQ(sizeof reply, length);
    EXPECT_STREQ(reply, whole);
    // Finish the handshake, so no completion is left for after the test.
    complete_handshake(c, accepted);
}

TEST_F(RcConnections, GetConnectionDataStillAnswersAfterCompleteConnectAndAccept) {
    // The fixture's pair finished its handshake: the peer's data stays readable until the
    // connector closes (docs/rules-beyond-reference.md).
    for (NDK_CONNECTOR* c : {a_.connector, b_.connector}) {
        char data[64] = {};
        ULONG length = sizeof data;
        ULONG ird = 0;
        ULONG ord = 0;
        ASSERT_NT_SUCCESS(c->Dispatch->NdkGetConnectionData(c, &ird, &ord, data, &length));
        ASSERT_EQ(sizeof "hello from a", length);
        EXPECT_STREQ(c == a_.connector ? "hello from b" : "hello from a", data);
        EXPECT_EQ(8U, ird);
        EXPECT_EQ(8U, ord);
    }
    // A connector that never connected has no data.
    NDK_CONNECTOR* idle = make_connector(a_);
    ULONG length = 0;
    EXPECT_NT_STATUS(STATUS_INVALID_DEVICE_STATE, idle->Dispatch->NdkGetConnectionData(
                                                      idle, nullptr, nullptr, nullptr, &length));
}

TEST_F(RcConnections, LocalAndPeerAddressesMirrorEachOther) {
    const SOCKADDR_IN a_local = address(a_.connector->Dispatch->NdkGetLocalAddress, a_.connector);
    const SOCKADDR_IN a_peer = address(a_.connector->Dispatch->NdkGetPeerAddress, a_.connector);
    const SOCKADDR_IN b_local = address(b_.connector->Dispatch->NdkGetLocalAddress, b_.connector);
    const SOCKADDR_IN b_peer = address(b_.connector->Dispatch->NdkGetPeerAddress, b_.connector);
    EXPECT_EQ(WS_AF_INET, a_local.sin_family);
    EXPECT_EQ(WS_AF_INET, b_peer.sin_family);
    EXPECT_EQ("10.0.0.2:" + std::to_string(port_), text_of(a_peer));
    EXPECT_EQ("10.0.0.2:" + std::to_string(port_), text_of(b_local));
    EXPECT_EQ(text_of(a_local), text_of(b_peer));
    EXPECT_EQ(0U, text_of(a_local).find("10.0.0.1:"));
    EXPECT_GE(port_of(a_local), 49152);
    // A buffer that is too short gets the required size.
    SOCKADDR_IN out{};
    ULONG size = 4;
    EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                     a_.connector->Dispatch->NdkGetLocalAddress(
                         a_.connector, reinterpret_cast<PSOCKADDR>(&out), &size));
    EXPECT_EQ(sizeof(SOCKADDR_IN), size);
}

TEST_F(RcConnections, ClosingAConnectedConnectorGivesThePeerOneDisconnectEvent) {
    close(&a_.connector->Header);
    a_.connector = nullptr;
    settle();
    EXPECT_EQ(1, b_.disconnect_events);
    EXPECT_EQ(0, a_.disconnect_events);
    // The peer's QP is no longer usable; its own Disconnect completes at once.
    NDK_SGE s = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, b_.qp->Dispatch->NdkSend(b_.qp, nullptr, &s, 1, 0));
    slot done;
    const NTSTATUS r = b_.connector->Dispatch->NdkDisconnect(b_.connector, slot::on_request, &done);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(done, "the peer's Disconnect"));
        EXPECT_NT_SUCCESS(done.status);
    } else {
        EXPECT_NT_SUCCESS(r);
    }
    settle();
    EXPECT_EQ(1, b_.disconnect_events);
}

// Sends wait for ever for a receive, as with rnr_retry_limit 0xFFFFFFFF.
class RcConnectionsRnrForever : public RcConnections {
  protected:
    RcConnectionsRnrForever() { rnr_retry_limit_ = 0xFFFFFFFF; }
};

TEST_F(RcConnectionsRnrForever, DisconnectCompletesOutstandingRequestsWithCancelled) {
    // Two sends with no receive at b (retried for ever), a read, and a receive at a.
    NDK_SGE s = a_.buf.sge(0, 256);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, reinterpret_cast<PVOID>(1), &s, 1, 0));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, reinterpret_cast<PVOID>(2), &s, 1, 0));
    NDK_SGE rs = a_.buf.sge(4096, 4096);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, reinterpret_cast<PVOID>(3), &rs, 1,
                                               b_.buf.address(), b_.buf.remote_token, 0));
    NDK_SGE r = a_.buf.sge(8192, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, reinterpret_cast<PVOID>(4), &r, 1));
    ndksim_loop_run_for(loop_, 100ULL * 1000 * 1000);  // 100 us: a few RNR back-offs
    NDK_RESULT_EX none{};
    ASSERT_EQ(0U, a_.cq->Dispatch->NdkGetCqResultsEx(a_.cq, &none, 1));
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     a_.connector->Dispatch->NdkDisconnect(a_.connector, slot::on_request, &done));
    const NDK_OPERATION_TYPE types[] = {NdkOperationTypeSend, NdkOperationTypeSend,
                                        NdkOperationTypeRead};
    for (std::uintptr_t i = 1; i <= 3; ++i) {
        const NDK_RESULT_EX c = next(a_.cq);
        EXPECT_NT_STATUS(STATUS_CANCELLED, c.Status) << "request " << i;
        EXPECT_EQ(reinterpret_cast<PVOID>(i), c.RequestContext);
        EXPECT_EQ(types[i - 1], c.Type);
    }
    const NDK_RESULT_EX rc = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_CANCELLED, rc.Status);
    EXPECT_EQ(reinterpret_cast<PVOID>(4), rc.RequestContext);
    EXPECT_EQ(NdkOperationTypeReceive, rc.Type);
    ASSERT_TRUE(wait(done, "Disconnect's completion"));
    EXPECT_NT_SUCCESS(done.status);
    EXPECT_TRUE(cq_empty(a_.cq)) << "more than one completion per request";
    EXPECT_TRUE(cq_empty(b_.cq)) << "a cancelled send reached the peer";
    EXPECT_EQ(1, b_.disconnect_events);
    EXPECT_EQ(0, a_.disconnect_events);
}

TEST_F(RcConnections, SimultaneousDisconnectsBothCompleteAndDeliverNoDuplicateEvent) {
    slot a_done;
    slot b_done;
    ASSERT_NT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkDisconnect(
                                         a_.connector, slot::on_request, &a_done));
    ASSERT_NT_STATUS(STATUS_PENDING, b_.connector->Dispatch->NdkDisconnect(
                                         b_.connector, slot::on_request, &b_done));
    ASSERT_TRUE(drive([&] { return a_done.calls == 1 && b_done.calls == 1; }, "both Disconnects"));
    EXPECT_NT_SUCCESS(a_done.status);
    EXPECT_NT_SUCCESS(b_done.status);
    settle();
    EXPECT_EQ(1, a_done.calls);
    EXPECT_EQ(1, b_done.calls);
    // Each side called Disconnect before the peer's request arrived: no indication is owed
    // (rule 27), and certainly not two.
    EXPECT_EQ(0, a_.disconnect_events);
    EXPECT_EQ(0, b_.disconnect_events);
}

TEST_F(RcConnections, PeerDisconnectRacingALocalDisconnectDeliversAtMostOneEvent) {
    // b disconnects while a's disconnect request is already on the wire.
    slot a_done;
    ASSERT_NT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkDisconnect(
                                         a_.connector, slot::on_request, &a_done));
    ndksim_loop_run_one(loop_);  // a's disconnect task: flush and the request leaves
    slot b_done;
    const NTSTATUS r =
        b_.connector->Dispatch->NdkDisconnect(b_.connector, slot::on_request, &b_done);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(b_done, "b's Disconnect"));
        EXPECT_NT_SUCCESS(b_done.status);
    } else {
        EXPECT_NT_SUCCESS(r);
    }
    ASSERT_TRUE(wait(a_done, "a's Disconnect"));
    EXPECT_NT_SUCCESS(a_done.status);
    settle();
    EXPECT_LE(b_.disconnect_events, 1);
    EXPECT_EQ(0, a_.disconnect_events);
}

TEST_F(RcConnections, ConnectTimesOutWhenThePassiveSideNeverAnswersAndALateAcceptIsAborted) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    const ULONG64 started = ndksim_loop_now(loop_);
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    // The passive consumer sits on the request: the active side gives up after the CM timeout.
    settle();
    ASSERT_EQ(1, connected.calls);
    EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, connected.status);
    EXPECT_GE(ndksim_loop_now(loop_) - started, 1000ULL * 1000 * 1000 * 1000);
    // A late Accept learns that the connector was abandoned.
    slot accepted;
    const NTSTATUS r = passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr,
                                                    nullptr, slot::on_request, &accepted);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(accepted, "Accept's completion"));
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, accepted.status);
    } else {
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, r);
    }
    settle();
    EXPECT_EQ(1, connected.calls);
}

TEST_F(RcConnections, AcceptAfterTheActiveSideClosedIsConnectionAborted) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    close_tracked(&c->Header);
    EXPECT_EQ(1, connected.calls) << "the close did not complete the pending Connect";
    EXPECT_NT_STATUS(STATUS_CANCELLED, connected.status);
    settle();
    slot accepted;
    const NTSTATUS r = passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr,
                                                    nullptr, slot::on_request, &accepted);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(accepted, "Accept's completion"));
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, accepted.status);
    } else {
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, r);
    }
}

TEST_F(RcConnections, RejectAfterTheActiveSideClosedIsConnectionAborted) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    close_tracked(&c->Header);
    settle();
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, passive->Dispatch->NdkReject(passive, nullptr, 0));
}

TEST_F(RcConnections, CompleteConnectAfterThePassiveSideClosedIsConnectionAborted) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, aqp, "10.0.0.2", port_, connected));
    NDK_CONNECTOR* passive = take_incoming();
    ASSERT_NE(nullptr, passive);
    slot accepted;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     passive->Dispatch->NdkAccept(passive, bqp, 8, 8, nullptr, 0, nullptr, nullptr,
                                                  slot::on_request, &accepted));
    ASSERT_TRUE(wait(connected, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    close_tracked(&passive->Header);
    EXPECT_EQ(1, accepted.calls) << "the close did not complete the pending Accept";
    EXPECT_NT_STATUS(STATUS_CANCELLED, accepted.status);
    settle();
    slot completed;
    const NTSTATUS r =
        c->Dispatch->NdkCompleteConnect(c, nullptr, nullptr, slot::on_request, &completed);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(completed, "CompleteConnect's completion"));
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, completed.status);
    } else {
        EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, r);
    }
    NDK_SGE s = a_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, aqp->Dispatch->NdkSend(aqp, nullptr, &s, 1, 0));
}

TEST_F(RcConnections, ClosingTheListenerRefusesNewRequestsAndHoldsThePortUntilItsConnectorsClose) {
    slot listener_closed;
    ASSERT_NT_STATUS(STATUS_PENDING, listener_->Dispatch->NdkCloseListener(
                                         &listener_->Header, slot::on_close, &listener_closed));
    NDK_LISTENER* closing = listener_;
    listener_ = nullptr;
    // New requests are refused at once.
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* c = make_connector(a_);
    slot refused;
    ASSERT_NT_STATUS(STATUS_PENDING, start_connect(c, qp, "10.0.0.2", port_, refused));
    ASSERT_TRUE(wait(refused, "Connect's completion"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, refused.status);
    // The accepted connector still holds the port, and the listener's close waits for it.
    NDK_LISTENER* again = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.adapter->Dispatch->NdkCreateListener(
        b_.adapter, [](PVOID, NDK_CONNECTOR*) {}, nullptr, slot::on_create, &created, &again));
    track(&again->Header);
    SOCKADDR_IN same = ipv4("10.0.0.2", port_);
    slot listened;
    EXPECT_NT_STATUS(STATUS_SHARING_VIOLATION,
                     again->Dispatch->NdkListen(again, reinterpret_cast<PSOCKADDR>(&same),
                                                sizeof same, slot::on_request, &listened));
    settle();
    EXPECT_EQ(0, listener_closed.calls);
    (void)closing;
    close(&b_.connector->Header);
    b_.connector = nullptr;
    ASSERT_TRUE(wait(listener_closed, "the listener's close"));
    // Now the port is free again.
    const NTSTATUS l = again->Dispatch->NdkListen(again, reinterpret_cast<PSOCKADDR>(&same),
                                                  sizeof same, slot::on_request, &listened);
    if (l == STATUS_PENDING) {
        ASSERT_TRUE(wait(listened, "NdkListen's completion"));
        EXPECT_NT_SUCCESS(listened.status);
    } else {
        EXPECT_NT_SUCCESS(l);
    }
}

}  // namespace
}  // namespace ndksim::testkit
