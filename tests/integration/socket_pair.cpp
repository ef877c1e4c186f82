#include "integration/socket_pair.hpp"

#include <unistd.h>

namespace ndksim::integration {

using testkit::ipv4;
using testkit::port_of;
using testkit::status_string;

void done_slot::on_request(PVOID c, NTSTATUS s) {
    auto* self = static_cast<done_slot*>(c);
    std::lock_guard lock(self->b->m);
    ++self->calls;
    self->status = s;
    self->b->cv.notify_all();
}

void done_slot::on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    auto* self = static_cast<done_slot*>(c);
    std::lock_guard lock(self->b->m);
    ++self->calls;
    self->status = s;
    self->object = o;
    self->b->cv.notify_all();
}

void pair_side::on_cq(PVOID c, NTSTATUS s) {
    auto* self = static_cast<pair_side*>(c);
    NDK_RESULT_EX batch[16];
    std::vector<NDK_RESULT_EX> got;
    ULONG n = 0;
    while ((n = self->cq->Dispatch->NdkGetCqResultsEx(self->cq, batch, 16)) > 0) {
        got.insert(got.end(), batch, batch + n);
    }
    self->cq->Dispatch->NdkArmCq(self->cq, NDK_CQ_NOTIFY_ANY);
    std::lock_guard lock(self->b->m);
    EXPECT_STATUS(STATUS_SUCCESS, s);
    self->results.insert(self->results.end(), got.begin(), got.end());
    self->b->cv.notify_all();
}

void pair_side::on_disconnect(PVOID c) {
    auto* self = static_cast<pair_side*>(c);
    std::lock_guard lock(self->b->m);
    ++self->disconnect_events;
    self->b->cv.notify_all();
}

std::string wire_name(const ::testing::TestParamInfo<ndksim_wire>& info) {
    return info.param == NDKSIM_WIRE_UDP ? "Udp" : "Tcp";
}

void fill(std::byte* p, std::size_t n, unsigned seed) {
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
    }
}

void SocketPair::SetUp() {
    a_.b = &board_;
    b_.b = &board_;
    ASSERT_TRUE(create_adapters());
    make_objects(a_);
    ASSERT_FALSE(HasFatalFailure());
    make_objects(b_);
    ASSERT_FALSE(HasFatalFailure());
    connect();
}

bool SocketPair::create_adapters() {
    constexpr int k_attempts = 200;
    // A per-process start spreads parallel test processes over the range.
    USHORT port = static_cast<USHORT>(20000 + (static_cast<unsigned>(getpid()) * 7) % 30000);
    for (int attempt = 0; attempt < k_attempts; ++attempt, ++port) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.wire = GetParam();
        c.port = port;
        c.address = "127.0.0.1";
        c.name = "a";
        NTSTATUS s = ndksim_adapter_create(&c, &a_.nic);
        if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
            continue;
        }
        if (s != STATUS_SUCCESS) {
            ADD_FAILURE() << "creating a: " << status_string(s);
            return false;
        }
        c.address = "127.0.0.2";
        c.name = "b";
        s = ndksim_adapter_create(&c, &b_.nic);
        if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
            ndksim_adapter_destroy(a_.nic);
            a_.nic = nullptr;
            continue;
        }
        if (s != STATUS_SUCCESS) {
            ADD_FAILURE() << "creating b: " << status_string(s);
            return false;
        }
        port_ = port;
        return true;
    }
    ADD_FAILURE() << "no free port in " << k_attempts << " attempts";
    return false;
}

NTSTATUS SocketPair::finish(NTSTATUS returned, done_slot& s, const char* what) {
    if (returned != STATUS_PENDING) {
        return returned;
    }
    board_.wait([&] { return s.calls == 1; }, what);
    std::lock_guard lock(board_.m);
    return s.status;
}

void SocketPair::close(NDK_OBJECT_HEADER* o) {
    done_slot s{&board_};
    const NTSTATUS r =
        reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, done_slot::on_close, &s);
    EXPECT_STATUS(STATUS_SUCCESS, finish(r, s, "a close completion"));
}

void SocketPair::make_objects(pair_side& s) {
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    ASSERT_STATUS(STATUS_SUCCESS, ndksim_open_ndk_adapter(s.nic, &p, &s.adapter));
    NDK_ADAPTER* ad = s.adapter;
    done_slot pd{&board_};
    ASSERT_STATUS(
        STATUS_SUCCESS,
        finish(ad->Dispatch->NdkCreatePd(ad, done_slot::on_create, &pd, &s.pd), pd, "NdkCreatePd"));
    if (s.pd == nullptr) {
        s.pd = reinterpret_cast<NDK_PD*>(pd.object);
    }
    done_slot cq{&board_};
    ASSERT_STATUS(STATUS_SUCCESS,
                  finish(ad->Dispatch->NdkCreateCq(ad, 1024, pair_side::on_cq, &s, nullptr,
                                                   done_slot::on_create, &cq, &s.cq),
                         cq, "NdkCreateCq"));
    if (s.cq == nullptr) {
        s.cq = reinterpret_cast<NDK_CQ*>(cq.object);
    }
    s.cq->Dispatch->NdkArmCq(s.cq, NDK_CQ_NOTIFY_ANY);
    done_slot qp{&board_};
    ASSERT_STATUS(STATUS_SUCCESS,
                  finish(s.pd->Dispatch->NdkCreateQp(s.pd, s.cq, s.cq, &s, 256, 256, 4, 4, 128,
                                                     done_slot::on_create, &qp, &s.qp),
                         qp, "NdkCreateQp"));
    if (s.qp == nullptr) {
        s.qp = reinterpret_cast<NDK_QP*>(qp.object);
    }
    s.buf.size = k_buffer;
    s.buf.bytes = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, k_buffer));
    std::memset(s.buf.bytes, 0, k_buffer);
    s.buf.mdl = IoAllocateMdl(s.buf.bytes, static_cast<ULONG>(k_buffer), FALSE, FALSE, nullptr);
    MmBuildMdlForNonPagedPool(s.buf.mdl);
    done_slot mr{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(s.pd->Dispatch->NdkCreateMr(
                                             s.pd, FALSE, done_slot::on_create, &mr, &s.buf.mr),
                                         mr, "NdkCreateMr"));
    if (s.buf.mr == nullptr) {
        s.buf.mr = reinterpret_cast<NDK_MR*>(mr.object);
    }
    done_slot registered{&board_};
    ASSERT_STATUS(STATUS_SUCCESS,
                  finish(s.buf.mr->Dispatch->NdkRegisterMr(s.buf.mr, s.buf.mdl, k_buffer,
                                                           NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                                               NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                                               NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                                           done_slot::on_request, &registered),
                         registered, "NdkRegisterMr"));
    s.buf.local_token = s.buf.mr->Dispatch->NdkGetLocalTokenFromMr(s.buf.mr);
    s.buf.remote_token = s.buf.mr->Dispatch->NdkGetRemoteTokenFromMr(s.buf.mr);
}

void SocketPair::connect() {
    struct incoming {
        static void on_connect(PVOID c, NDK_CONNECTOR* connector) {
            auto* self = static_cast<SocketPair*>(c);
            std::lock_guard lock(self->board_.m);
            self->incoming_ = connector;
            self->board_.cv.notify_all();
        }
    };
    NDK_ADAPTER* bad = b_.adapter;
    done_slot created{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(bad->Dispatch->NdkCreateListener(
                                             bad, incoming::on_connect, this, done_slot::on_create,
                                             &created, &listener_),
                                         created, "NdkCreateListener"));
    if (listener_ == nullptr) {
        listener_ = reinterpret_cast<NDK_LISTENER*>(created.object);
    }
    SOCKADDR_IN any = ipv4("0.0.0.0", 0);
    done_slot listened{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(listener_->Dispatch->NdkListen(
                                             listener_, reinterpret_cast<PSOCKADDR>(&any),
                                             sizeof any, done_slot::on_request, &listened),
                                         listened, "NdkListen"));
    SOCKADDR_IN bound{};
    ULONG size = sizeof bound;
    ASSERT_STATUS(STATUS_SUCCESS, listener_->Dispatch->NdkGetLocalAddress(
                                      listener_, reinterpret_cast<PSOCKADDR>(&bound), &size));
    NDK_ADAPTER* aad = a_.adapter;
    done_slot connector{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(aad->Dispatch->NdkCreateConnector(
                                             aad, done_slot::on_create, &connector, &a_.connector),
                                         connector, "NdkCreateConnector"));
    if (a_.connector == nullptr) {
        a_.connector = reinterpret_cast<NDK_CONNECTOR*>(connector.object);
    }
    SOCKADDR_IN src = ipv4("127.0.0.1", 0);
    SOCKADDR_IN dst = ipv4("127.0.0.2", port_of(bound));
    char hello[] = "hello from a over a socket";
    done_slot connected{&board_};
    ASSERT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkConnect(
                                      a_.connector, a_.qp, reinterpret_cast<PSOCKADDR>(&src),
                                      sizeof src, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8,
                                      8, hello, sizeof hello, done_slot::on_request, &connected));
    ASSERT_TRUE(board_.wait([&] { return incoming_ != nullptr; }, "the connect event"));
    {
        std::lock_guard lock(board_.m);
        b_.connector = incoming_;
    }
    char data[64] = {};
    ULONG length = sizeof data;
    ASSERT_STATUS(STATUS_SUCCESS, b_.connector->Dispatch->NdkGetConnectionData(
                                      b_.connector, nullptr, nullptr, data, &length));
    EXPECT_STREQ(hello, data);
    char world[] = "and hello from b";
    done_slot accepted{&board_};
    ASSERT_STATUS(STATUS_PENDING,
                  b_.connector->Dispatch->NdkAccept(b_.connector, b_.qp, 8, 8, world, sizeof world,
                                                    pair_side::on_disconnect, &b_,
                                                    done_slot::on_request, &accepted));
    ASSERT_STATUS(STATUS_SUCCESS, finish(STATUS_PENDING, connected, "Connect's completion"));
    length = sizeof data;
    ASSERT_STATUS(STATUS_SUCCESS, a_.connector->Dispatch->NdkGetConnectionData(
                                      a_.connector, nullptr, nullptr, data, &length));
    EXPECT_STREQ(world, data);
    done_slot completed{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(a_.connector->Dispatch->NdkCompleteConnect(
                                             a_.connector, pair_side::on_disconnect, &a_,
                                             done_slot::on_request, &completed),
                                         completed, "CompleteConnect's completion"));
    ASSERT_STATUS(STATUS_SUCCESS, finish(STATUS_PENDING, accepted, "Accept's completion"));
}

void SocketPair::TearDown() {
    for (pair_side* s : {&a_, &b_}) {
        if (s->connector != nullptr) {
            close(&s->connector->Header);
        }
        if (s->qp != nullptr) {
            close(&s->qp->Header);
        }
        for (NDK_MW* mw : s->windows) {
            close(&mw->Header);
        }
        if (s->buf.mr != nullptr) {
            close(&s->buf.mr->Header);
        }
        if (s->cq != nullptr) {
            close(&s->cq->Header);
        }
        if (s->pd != nullptr) {
            close(&s->pd->Header);
        }
    }
    if (listener_ != nullptr) {
        close(&listener_->Header);
    }
    for (pair_side* s : {&a_, &b_}) {
        if (s->nic != nullptr) {
            if (s->adapter != nullptr) {
                ndksim_close_ndk_adapter(s->nic, s->adapter);
            }
            EXPECT_EQ(0U, ndksim_adapter_leaked_objects(s->nic));
            EXPECT_EQ(0U, ndksim_adapter_live_objects(s->nic));
            ndksim_adapter_destroy(s->nic);
        }
        if (s->buf.mdl != nullptr) {
            IoFreeMdl(s->buf.mdl);
        }
        std::free(s->buf.bytes);
    }
}

NDK_RESULT_EX SocketPair::result(pair_side& s, std::size_t n, const char* what) {
    if (!board_.wait([&] { return s.results.size() >= n; }, what)) {
        return NDK_RESULT_EX{};
    }
    std::lock_guard lock(board_.m);
    return s.results[n - 1];
}

std::size_t SocketPair::result_count(pair_side& s) {
    std::lock_guard lock(board_.m);
    return s.results.size();
}

NTSTATUS SocketPair::write_from_a(std::size_t src, ULONG length, UINT64 address, UINT32 token,
                                  ULONG flags) {
    const std::size_t n = result_count(a_) + 1;
    NDK_SGE s = a_.buf.sge(src, length);
    const NTSTATUS posted = a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, address, token, flags);
    if (posted != STATUS_SUCCESS) {
        return posted;
    }
    const NDK_RESULT_EX r = result(a_, n, "a write's completion");
    EXPECT_EQ(NdkOperationTypeWrite, r.Type);
    return r.Status;
}

UINT32 SocketPair::bind_window_on_b(std::size_t offset, SIZE_T length, NDK_MW*& mw) {
    mw = nullptr;
    done_slot created{&board_};
    EXPECT_STATUS(STATUS_SUCCESS,
                  finish(b_.pd->Dispatch->NdkCreateMw(b_.pd, done_slot::on_create, &created, &mw),
                         created, "NdkCreateMw"));
    if (mw == nullptr) {
        mw = reinterpret_cast<NDK_MW*>(created.object);
    }
    if (mw == nullptr) {
        return 0;
    }
    b_.windows.push_back(mw);
    const std::size_t n = result_count(b_) + 1;
    EXPECT_STATUS(
        STATUS_SUCCESS,
        b_.qp->Dispatch->NdkBind(b_.qp, mw, b_.buf.mr, mw, b_.buf.bytes + offset, length,
                                 NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    const UINT32 token = mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
    const NDK_RESULT_EX r = result(b_, n, "the bind's completion");
    EXPECT_STATUS(STATUS_SUCCESS, r.Status);
    EXPECT_EQ(NdkOperationTypeBind, r.Type);
    return token;
}

}  // namespace ndksim::integration
