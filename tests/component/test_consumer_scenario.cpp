// SPDX-License-Identifier: MIT
// One test in the shape of a real NDK consumer (an SMB-Direct-like transport), against the public
// surface only: two adapters in one deterministic loop, a listener/connector handshake with
// private data, buffers mapped with NdkBuildLAM and used through the privileged token, a data
// buffer fast-registered for the peer, deferred posts, a remote invalidate, CQs armed and drained
// from their notification callbacks, then an orderly disconnect, flush and a close of everything
// in dependency-violating order. At the end nothing leaked and no callback came after its
// object's close completion.

#include <map>
#include <string>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

#include "memory_pattern.hpp"

namespace ndksim::testkit {
namespace {

/// Which objects have finished closing, and every callback that arrived after that.
struct lifetime {
    std::map<const void*, std::string> closed;  // object -> name, once its close completed
    std::vector<std::string> late;              // callbacks after their object's close
    std::vector<std::string> close_order;
    void check(const void* object, const char* what) {
        auto it = closed.find(object);
        if (it != closed.end()) {
            late.push_back(std::string(what) + " on " + it->second + " after its close");
        }
    }
};

lifetime* g_life = nullptr;

/// A request completion bound to the object it belongs to.
struct request {
    const void* object = nullptr;
    const char* what = "";
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    static void done(PVOID c, NTSTATUS s) {
        auto* self = static_cast<request*>(c);
        g_life->check(self->object, self->what);
        ++self->calls;
        self->status = s;
    }
};

/// A close completion that records the order of closes.
struct closing {
    const void* object = nullptr;
    std::string name;
    int calls = 0;
    static void done(PVOID c) {
        auto* self = static_cast<closing*>(c);
        g_life->check(self->object, "a second close completion");
        ++self->calls;
        g_life->closed[self->object] = self->name;
        g_life->close_order.push_back(self->name);
    }
};

/// The transport's end of one connection: its CQ is armed for ANY and drained by its
/// notification callback, which re-arms it, as a DPC-driven consumer does.
struct endpoint {
    const char* name = "";
    NDK_CQ* cq = nullptr;
    std::vector<NDK_RESULT_EX> results;
    std::vector<NTSTATUS> notifications;
    int disconnect_events = 0;
    bool in_notification = false;
    bool nested = false;
    NDK_CONNECTOR* connector = nullptr;

    static void on_cq(PVOID c, NTSTATUS s) {
        auto* self = static_cast<endpoint*>(c);
        g_life->check(self->cq, "a CQ notification");
        self->nested = self->nested || self->in_notification;
        self->in_notification = true;
        self->notifications.push_back(s);
        NDK_RESULT_EX batch[8];
        ULONG n = 0;
        while ((n = self->cq->Dispatch->NdkGetCqResultsEx(self->cq, batch, 8)) > 0) {
            self->results.insert(self->results.end(), batch, batch + n);
        }
        self->cq->Dispatch->NdkArmCq(self->cq, NDK_CQ_NOTIFY_ANY);
        self->in_notification = false;
    }
    static void on_disconnect(PVOID c) {
        auto* self = static_cast<endpoint*>(c);
        g_life->check(self->connector, "a disconnect event");
        ++self->disconnect_events;
    }
};

/// A buffer mapped through a LAM (no MR): reached with the privileged token or fast-registered.
struct mapped {
    std::byte* block = nullptr;
    MDL* mdl = nullptr;
    NDK_LOGICAL_ADDRESS_MAPPING* lam = nullptr;
    ULONG fbo = 0;
    ULONG size = 0;
    NDK_SGE sge(ULONG page, ULONG length, UINT32 privileged) const {
        NDK_SGE s{};
        s.LogicalAddress = lam->AdapterPageArray[page];
        s.Length = length;
        s.MemoryRegionToken = privileged;
        return s;
    }
};

/// What the client's request carries: where the server may write the data.
struct read_request {
    UINT64 address;
    UINT32 token;
    UINT32 length;
};

struct read_response {
    UINT32 status;
    UINT32 length;
};

class ConsumerScenario : public ::testing::Test {
  protected:
    void SetUp() override {
        g_life = &life_;
        ASSERT_NT_SUCCESS(ndksim_loop_create(&loop_));
    }
    void TearDown() override {
        ndksim_loop_destroy(loop_);
        g_life = nullptr;
    }

    template <class Pred>
    bool drive(Pred pred, const char* what) {
        while (!pred()) {
            if (ndksim_loop_run_one(loop_) == FALSE) {
                ADD_FAILURE() << "the simulation went idle waiting for: " << what;
                return false;
            }
        }
        return true;
    }

    /// Calls a function that may pend with request `r`, and waits for it.
    NTSTATUS finish(NTSTATUS returned, request& r) {
        if (returned != STATUS_PENDING) {
            return returned;
        }
        drive([&] { return r.calls == 1; }, r.what);
        return r.status;
    }

    ndksim_adapter* open(const char* address, NDK_ADAPTER** adapter) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.loop = loop_;
        c.address = address;
        ndksim_adapter* nic = nullptr;
        EXPECT_NT_SUCCESS(ndksim_adapter_create(&c, &nic));
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        EXPECT_NT_SUCCESS(ndksim_open_ndk_adapter(nic, &p, adapter));
        return nic;
    }

    /// Creates an object through a create function that may pend.
    template <class T, class Create>
    T* create(const char* what, Create&& fn) {
        T* out = nullptr;
        request r{nullptr, what};
        struct sink {
            request* r;
            NDK_OBJECT_HEADER* object = nullptr;
            static void done(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
                auto* self = static_cast<sink*>(c);
                self->object = o;
                request::done(self->r, s);
            }
        } s{&r};
        const NTSTATUS st = fn(sink::done, &s, &out);
        if (st == STATUS_PENDING) {
            drive([&] { return r.calls == 1; }, what);
            EXPECT_NT_SUCCESS(r.status);
            out = reinterpret_cast<T*>(s.object);
        } else {
            EXPECT_NT_SUCCESS(st);
        }
        return out;
    }

    mapped map(NDK_ADAPTER* adapter, ULONG size, ULONG offset) {
        mapped m;
        m.size = size;
        m.block = static_cast<std::byte*>(std::aligned_alloc(k_page, 4 * k_page + size));
        std::memset(m.block, 0, 4 * k_page + size);
        m.mdl = IoAllocateMdl(m.block + offset, size, FALSE, FALSE, nullptr);
        MmBuildMdlForNonPagedPool(m.mdl);
        ULONG lam_size = 0;
        request built{adapter, "NdkBuildLAM"};
        EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                         adapter->Dispatch->NdkBuildLAM(adapter, m.mdl, size, request::done, &built,
                                                        nullptr, &lam_size, &m.fbo));
        m.lam = static_cast<NDK_LOGICAL_ADDRESS_MAPPING*>(std::malloc(lam_size));
        EXPECT_NT_SUCCESS(finish(adapter->Dispatch->NdkBuildLAM(adapter, m.mdl, size, request::done,
                                                                &built, m.lam, &lam_size, &m.fbo),
                                 built));
        return m;
    }

    void unmap(NDK_ADAPTER* adapter, mapped& m) {
        adapter->Dispatch->NdkReleaseLAM(adapter, m.lam);
        std::free(m.lam);
        IoFreeMdl(m.mdl);
        std::free(m.block);
        m = mapped{};
    }

    /// Starts a close; the completion is recorded in `c`.
    void start_close(NDK_OBJECT_HEADER* o, closing& c, const char* name) {
        c.object = o;
        c.name = name;
        const NTSTATUS r = reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, closing::done, &c);
        if (r != STATUS_PENDING) {
            EXPECT_NT_SUCCESS(r);
            closing::done(&c);
        }
    }

    lifetime life_;
    ndksim_loop* loop_ = nullptr;
};

/// The listener's connect-event context.
struct listening {
    NDK_LISTENER* listener = nullptr;
    NDK_CONNECTOR* incoming = nullptr;
    static void on_connect(PVOID context, NDK_CONNECTOR* c) {
        auto* self = static_cast<listening*>(context);
        g_life->check(self->listener, "a connect event");
        self->incoming = c;
    }
};

TEST_F(ConsumerScenario, SmbDirectLikeTransportRunsAndClosesEverythingCleanly) {
    endpoint client;
    client.name = "client";
    endpoint server;
    server.name = "server";

    // ---- adapters and resources -------------------------------------------------------------
    NDK_ADAPTER* ca = nullptr;
    NDK_ADAPTER* sa = nullptr;
    ndksim_adapter* cnic = open("10.0.0.1", &ca);
    ndksim_adapter* snic = open("10.0.0.2", &sa);
    ASSERT_NE(nullptr, ca);
    ASSERT_NE(nullptr, sa);
    NDK_ADAPTER_INFO info{};
    ULONG info_size = sizeof info;
    ASSERT_NT_SUCCESS(ca->Dispatch->NdkQueryAdapterInfo(ca, &info, &info_size));

    NDK_PD* cpd = create<NDK_PD>("client PD", [&](auto done, auto ctx, NDK_PD** out) {
        return ca->Dispatch->NdkCreatePd(ca, done, ctx, out);
    });
    NDK_PD* spd = create<NDK_PD>("server PD", [&](auto done, auto ctx, NDK_PD** out) {
        return sa->Dispatch->NdkCreatePd(sa, done, ctx, out);
    });
    client.cq = create<NDK_CQ>("client CQ", [&](auto done, auto ctx, NDK_CQ** out) {
        return ca->Dispatch->NdkCreateCq(ca, 64, endpoint::on_cq, &client, nullptr, done, ctx, out);
    });
    server.cq = create<NDK_CQ>("server CQ", [&](auto done, auto ctx, NDK_CQ** out) {
        return sa->Dispatch->NdkCreateCq(sa, 64, endpoint::on_cq, &server, nullptr, done, ctx, out);
    });
    NDK_QP* cqp = create<NDK_QP>("client QP", [&](auto done, auto ctx, NDK_QP** out) {
        return cpd->Dispatch->NdkCreateQp(cpd, client.cq, client.cq, &client, 16, 16, 2, 2, 64,
                                          done, ctx, out);
    });
    NDK_QP* sqp = create<NDK_QP>("server QP", [&](auto done, auto ctx, NDK_QP** out) {
        return spd->Dispatch->NdkCreateQp(spd, server.cq, server.cq, &server, 16, 16, 2, 2, 64,
                                          done, ctx, out);
    });
    NDK_MR* frmr = create<NDK_MR>("client FR MR", [&](auto done, auto ctx, NDK_MR** out) {
        return cpd->Dispatch->NdkCreateMr(cpd, TRUE, done, ctx, out);
    });
    ASSERT_TRUE(cpd && spd && client.cq && server.cq && cqp && sqp && frmr);
    request init{frmr, "NdkInitializeFastRegisterMr"};
    ASSERT_NT_SUCCESS(finish(
        frmr->Dispatch->NdkInitializeFastRegisterMr(frmr, 4, TRUE, request::done, &init), init));
    UINT32 cpriv = 0;
    UINT32 spriv = 0;
    cpd->Dispatch->NdkGetPrivilegedMemoryRegionToken(cpd, &cpriv);
    spd->Dispatch->NdkGetPrivilegedMemoryRegionToken(spd, &spriv);
    mapped cctl = map(ca, 2 * k_page, 0);     // client: [0] receive, [1] send
    mapped sctl = map(sa, 2 * k_page, 0);     // server: [0] receive, [1] send
    mapped cdata = map(ca, 2 * k_page, 512);  // client data buffer (fast-registered), FBO 512
    mapped sdata = map(sa, 2 * k_page, 0);    // server data to return
    ASSERT_EQ(512U, cdata.fbo);
    for (ULONG i = 0; i < 2 * k_page; ++i) {
        sdata.block[i] = static_cast<std::byte>(i * 13 + 5);
    }
    client.cq->Dispatch->NdkArmCq(client.cq, NDK_CQ_NOTIFY_ANY);
    server.cq->Dispatch->NdkArmCq(server.cq, NDK_CQ_NOTIFY_ANY);

    // ---- handshake with private data --------------------------------------------------------
    listening events;
    NDK_LISTENER* listener = create<NDK_LISTENER>("listener", [&](auto done, auto ctx,
                                                                  NDK_LISTENER** out) {
        return sa->Dispatch->NdkCreateListener(sa, listening::on_connect, &events, done, ctx, out);
    });
    ASSERT_NE(nullptr, listener);
    events.listener = listener;
    SOCKADDR_IN any = ipv4("0.0.0.0", 0);
    request listened{listener, "NdkListen"};
    ASSERT_NT_SUCCESS(
        finish(listener->Dispatch->NdkListen(listener, reinterpret_cast<PSOCKADDR>(&any),
                                             sizeof any, request::done, &listened),
               listened));
    SOCKADDR_IN bound{};
    ULONG bound_size = sizeof bound;
    ASSERT_NT_SUCCESS(listener->Dispatch->NdkGetLocalAddress(
        listener, reinterpret_cast<PSOCKADDR>(&bound), &bound_size));
    client.connector =
        create<NDK_CONNECTOR>("connector", [&](auto done, auto ctx, NDK_CONNECTOR** out) {
            return ca->Dispatch->NdkCreateConnector(ca, done, ctx, out);
        });
    ASSERT_NE(nullptr, client.connector);
    // Receives are posted before connecting, as SMB Direct does.
    NDK_SGE crecv = cctl.sge(0, k_page, cpriv);
    NDK_SGE srecv = sctl.sge(0, k_page, spriv);
    ASSERT_NT_SUCCESS(cqp->Dispatch->NdkReceive(cqp, &crecv, &crecv, 1));
    ASSERT_NT_SUCCESS(sqp->Dispatch->NdkReceive(sqp, &srecv, &srecv, 1));
    ASSERT_NT_SUCCESS(sqp->Dispatch->NdkReceive(sqp, nullptr, &srecv, 1));  // spare
    SOCKADDR_IN src = ipv4("10.0.0.1", 0);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_of(bound));
    char negotiate[] = "SMBD negotiate: credits 16, max 1364";
    ASSERT_LE(sizeof negotiate, info.MaxCallerData);
    request connected{client.connector, "NdkConnect"};
    ASSERT_NT_STATUS(STATUS_PENDING,
                     client.connector->Dispatch->NdkConnect(
                         client.connector, cqp, reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                         reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 4, 4, negotiate,
                         sizeof negotiate, request::done, &connected));
    ASSERT_TRUE(drive([&] { return events.incoming != nullptr; }, "the connect event"));
    server.connector = events.incoming;
    ULONG length = 0;
    ULONG ird = 0;
    ULONG ord = 0;
    ASSERT_NT_SUCCESS(server.connector->Dispatch->NdkGetConnectionData(server.connector, &ird, &ord,
                                                                       nullptr, &length));
    std::string got(length, '\0');
    ASSERT_NT_SUCCESS(server.connector->Dispatch->NdkGetConnectionData(
        server.connector, nullptr, nullptr, got.data(), &length));
    EXPECT_STREQ(negotiate, got.c_str());
    char accept_data[] = "SMBD negotiate response: credits 16";
    request accepted{server.connector, "NdkAccept"};
    ASSERT_NT_STATUS(STATUS_PENDING,
                     server.connector->Dispatch->NdkAccept(
                         server.connector, sqp, ird, ord, accept_data, sizeof accept_data,
                         endpoint::on_disconnect, &server, request::done, &accepted));
    ASSERT_TRUE(drive([&] { return connected.calls == 1; }, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    char reply[64] = {};
    length = sizeof reply;
    ASSERT_NT_SUCCESS(client.connector->Dispatch->NdkGetConnectionData(client.connector, nullptr,
                                                                       nullptr, reply, &length));
    EXPECT_STREQ(accept_data, reply);
    request completed{client.connector, "NdkCompleteConnect"};
    ASSERT_NT_STATUS(STATUS_PENDING, client.connector->Dispatch->NdkCompleteConnect(
                                         client.connector, endpoint::on_disconnect, &client,
                                         request::done, &completed));
    ASSERT_TRUE(drive([&] { return completed.calls == 1 && accepted.calls == 1; },
                      "CompleteConnect and Accept"));
    ASSERT_NT_SUCCESS(completed.status);
    ASSERT_NT_SUCCESS(accepted.status);

    // ---- client: fast-register the data buffer (deferred) and send the request ---------------
    const UINT64 data_va = 0x20000000ULL + cdata.fbo;
    ASSERT_NT_SUCCESS(cqp->Dispatch->NdkFastRegister(
        cqp, frmr, frmr, cdata.lam->AdapterPageCount, cdata.lam->AdapterPageArray, cdata.fbo,
        cdata.size, reinterpret_cast<PVOID>(data_va),
        NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_DEFER));
    const UINT32 data_token = frmr->Dispatch->NdkGetRemoteTokenFromMr(frmr);
    read_request rq{data_va, data_token, 2 * k_page - 512};
    std::memcpy(cctl.block + k_page, &rq, sizeof rq);
    NDK_SGE csend = cctl.sge(1, sizeof rq, cpriv);
    ASSERT_NT_SUCCESS(cqp->Dispatch->NdkSend(cqp, &rq, &csend, 1, 0));
    ASSERT_TRUE(drive([&] { return client.results.size() == 2 && server.results.size() == 1; },
                      "the fast-register, the send and its receive"));
    EXPECT_EQ(NdkOperationTypeFastRegister, client.results[0].Type);
    EXPECT_NT_SUCCESS(client.results[0].Status);
    EXPECT_EQ(NdkOperationTypeSend, client.results[1].Type);
    EXPECT_NT_SUCCESS(client.results[1].Status);
    const NDK_RESULT_EX& request_in = server.results[0];
    ASSERT_NT_SUCCESS(request_in.Status);
    EXPECT_EQ(&srecv, request_in.RequestContext);
    EXPECT_EQ(&server, request_in.QPContext);
    ASSERT_EQ(sizeof(read_request), request_in.BytesTransferred);

    // ---- server: RDMA-write the data (deferred), then SendAndInvalidate the response --------
    read_request seen{};
    std::memcpy(&seen, sctl.block, sizeof seen);
    EXPECT_EQ(rq.address, seen.address);
    NDK_SGE wsgl[2] = {sdata.sge(0, k_page, spriv), sdata.sge(1, seen.length - k_page, spriv)};
    ASSERT_NT_SUCCESS(
        sqp->Dispatch->NdkWrite(sqp, &seen, wsgl, 2, seen.address, seen.token, NDK_OP_FLAG_DEFER));
    read_response resp{0, seen.length};
    std::memcpy(sctl.block + k_page, &resp, sizeof resp);
    NDK_SGE ssend = sctl.sge(1, sizeof resp, spriv);
    ASSERT_NT_SUCCESS(sqp->Dispatch->NdkSendAndInvalidate(
        sqp, &resp, &ssend, 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, seen.token));
    ASSERT_TRUE(drive([&] { return client.results.size() == 3 && server.results.size() == 3; },
                      "the write, the response and its receive"));
    EXPECT_EQ(NdkOperationTypeWrite, server.results[1].Type);
    EXPECT_NT_SUCCESS(server.results[1].Status);
    EXPECT_EQ(NdkOperationTypeSend, server.results[2].Type);
    EXPECT_NT_SUCCESS(server.results[2].Status);
    const NDK_RESULT_EX& response_in = client.results[2];
    EXPECT_NT_SUCCESS(response_in.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, response_in.Type);
    EXPECT_EQ(static_cast<ULONG_PTR>(data_token), response_in.TypeSpecificCompletionOutput);
    EXPECT_EQ(sizeof(read_response), response_in.BytesTransferred);
    EXPECT_EQ(0, std::memcmp(cdata.block + 512, sdata.block, seen.length));

    // ---- orderly disconnect and flush ------------------------------------------------------
    request disconnected{client.connector, "NdkDisconnect"};
    ASSERT_NT_SUCCESS(finish(
        client.connector->Dispatch->NdkDisconnect(client.connector, request::done, &disconnected),
        disconnected));
    ASSERT_TRUE(drive([&] { return server.disconnect_events == 1; }, "the disconnect event"));
    request server_disconnected{server.connector, "NdkDisconnect"};
    ASSERT_NT_SUCCESS(finish(server.connector->Dispatch->NdkDisconnect(
                                 server.connector, request::done, &server_disconnected),
                             server_disconnected));
    cqp->Dispatch->NdkFlush(cqp);
    sqp->Dispatch->NdkFlush(sqp);
    ASSERT_TRUE(drive([&] { return server.results.size() == 4; }, "the spare receive's flush"));
    EXPECT_NT_STATUS(STATUS_CANCELLED, server.results[3].Status);
    EXPECT_EQ(NdkOperationTypeReceive, server.results[3].Type);
    ndksim_loop_run_until_idle(loop_);
    EXPECT_EQ(3U, client.results.size());
    EXPECT_EQ(0, client.disconnect_events);
    EXPECT_EQ(1, server.disconnect_events);
    EXPECT_FALSE(client.nested || server.nested) << "a CQ notification was re-entered";

    // ---- close everything, antecedents first -----------------------------------------------
    closing c_pd, s_pd, c_cq, s_cq, c_qp, s_qp, c_mr, c_conn, s_conn, l_close;
    start_close(&cpd->Header, c_pd, "client PD");
    start_close(&spd->Header, s_pd, "server PD");
    start_close(&client.cq->Header, c_cq, "client CQ");
    start_close(&server.cq->Header, s_cq, "server CQ");
    start_close(&listener->Header, l_close, "listener");
    start_close(&cqp->Header, c_qp, "client QP");
    start_close(&sqp->Header, s_qp, "server QP");
    start_close(&frmr->Header, c_mr, "client FR MR");
    start_close(&client.connector->Header, c_conn, "client connector");
    start_close(&server.connector->Header, s_conn, "server connector");
    ndksim_loop_run_until_idle(loop_);
    for (const closing* c :
         {&c_pd, &s_pd, &c_cq, &s_cq, &c_qp, &s_qp, &c_mr, &c_conn, &s_conn, &l_close}) {
        EXPECT_EQ(1, c->calls) << c->name;
    }
    // Every antecedent finished closing after its successors.
    auto position = [&](const std::string& n) {
        for (std::size_t i = 0; i < life_.close_order.size(); ++i) {
            if (life_.close_order[i] == n) {
                return i;
            }
        }
        ADD_FAILURE() << n << " never closed";
        return std::size_t{0};
    };
    EXPECT_LT(position("client connector"), position("client QP"));
    EXPECT_LT(position("server connector"), position("server QP"));
    EXPECT_LT(position("server connector"), position("listener"));
    EXPECT_LT(position("client QP"), position("client CQ"));
    EXPECT_LT(position("server QP"), position("server CQ"));
    EXPECT_LT(position("client QP"), position("client PD"));
    EXPECT_LT(position("client FR MR"), position("client PD"));
    EXPECT_LT(position("server QP"), position("server PD"));
    unmap(ca, cctl);
    unmap(ca, cdata);
    unmap(sa, sctl);
    unmap(sa, sdata);
    EXPECT_EQ(1U, ndksim_adapter_live_objects(cnic)) << "only the adapter handle is left";
    EXPECT_EQ(1U, ndksim_adapter_live_objects(snic));
    ndksim_close_ndk_adapter(cnic, ca);
    ndksim_close_ndk_adapter(snic, sa);
    ndksim_loop_run_until_idle(loop_);
    EXPECT_EQ(0U, ndksim_adapter_leaked_objects(cnic));
    EXPECT_EQ(0U, ndksim_adapter_leaked_objects(snic));
    EXPECT_EQ(0U, ndksim_adapter_live_objects(cnic));
    EXPECT_EQ(0U, ndksim_adapter_live_objects(snic));
    ndksim_adapter_destroy(cnic);
    ndksim_adapter_destroy(snic);
    std::string late;
    for (const std::string& l : life_.late) {
        late += l + "; ";
    }
    EXPECT_TRUE(life_.late.empty()) << late;
    EXPECT_FALSE(client.notifications.empty());
    EXPECT_FALSE(server.notifications.empty());
    for (NTSTATUS s : client.notifications) {
        EXPECT_NT_SUCCESS(s);
    }
    for (NTSTATUS s : server.notifications) {
        EXPECT_NT_SUCCESS(s);
    }
}

}  // namespace
}  // namespace ndksim::testkit
