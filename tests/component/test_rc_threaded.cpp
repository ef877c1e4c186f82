// The connected pair in threaded mode: each adapter has its own engine thread, every callback
// comes from one of them (as from a real provider), and the test waits on a condition variable
// with a timeout that fails loudly. Built and run under TSan as well.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

using namespace std::chrono_literals;

constexpr auto k_timeout = 30s;  // wall clock; generous for sanitizer builds

/// Everything the callbacks record, under one mutex, with the condition variable the test
/// waits on.
struct board {
    std::mutex m;
    std::condition_variable cv;
    std::thread::id test_thread = std::this_thread::get_id();
    int foreign_callbacks = 0;  // callbacks that ran on the test thread (must stay 0)

    void touched() {
        if (std::this_thread::get_id() == test_thread) {
            ++foreign_callbacks;
        }
    }

    /// Waits until pred() (evaluated under the mutex) holds; fails naming `what` on timeout.
    template <class Pred>
    bool wait(Pred pred, const char* what) {
        std::unique_lock lock(m);
        if (!cv.wait_for(lock, k_timeout, pred)) {
            ADD_FAILURE() << "timed out after " << k_timeout.count() << " s waiting for: " << what;
            return false;
        }
        return true;
    }
};

board* g_board = nullptr;

/// A request or close completion.
struct tslot {
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    static void on_request(PVOID c, NTSTATUS s) {
        std::lock_guard lock(g_board->m);
        g_board->touched();
        auto* self = static_cast<tslot*>(c);
        ++self->calls;
        self->status = s;
        g_board->cv.notify_all();
    }
    static void on_close(PVOID c) { on_request(c, STATUS_SUCCESS); }
};

/// One side: its CQ is armed and drained from the notification callback, which re-arms it.
struct tside {
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* adapter = nullptr;
    NDK_PD* pd = nullptr;
    NDK_CQ* cq = nullptr;
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    buffer buf;
    std::vector<NDK_RESULT_EX> results;  // under g_board->m
    int notifications = 0;
    int disconnect_events = 0;

    static void on_cq(PVOID c, NTSTATUS s) {
        auto* self = static_cast<tside*>(c);
        NDK_RESULT_EX batch[16];
        std::vector<NDK_RESULT_EX> got;
        ULONG n = 0;
        while ((n = self->cq->Dispatch->NdkGetCqResultsEx(self->cq, batch, 16)) > 0) {
            got.insert(got.end(), batch, batch + n);
        }
        self->cq->Dispatch->NdkArmCq(self->cq, NDK_CQ_NOTIFY_ANY);
        std::lock_guard lock(g_board->m);
        g_board->touched();
        EXPECT_STATUS(STATUS_SUCCESS, s);
        ++self->notifications;
        self->results.insert(self->results.end(), got.begin(), got.end());
        g_board->cv.notify_all();
    }
    static void on_disconnect(PVOID c) {
        std::lock_guard lock(g_board->m);
        g_board->touched();
        ++static_cast<tside*>(c)->disconnect_events;
        g_board->cv.notify_all();
    }
    std::size_t count() {
        std::lock_guard lock(g_board->m);
        return results.size();
    }
};

struct incoming_event {
    NDK_CONNECTOR* connector = nullptr;
    static void on_connect(PVOID c, NDK_CONNECTOR* connector) {
        std::lock_guard lock(g_board->m);
        g_board->touched();
        static_cast<incoming_event*>(c)->connector = connector;
        g_board->cv.notify_all();
    }
};

void fill(std::byte* p, std::size_t n, unsigned seed) {
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
    }
}

class RcThreaded : public ::testing::Test {
  protected:
    static constexpr std::size_t k_buffer = 256 * 1024;

    void SetUp() override {
        g_board = &board_;
        make_side(a_, "10.0.0.1");
        make_side(b_, "10.0.0.2");
        connect();
    }

    void TearDown() override {
        for (tside* s : {&a_, &b_}) {
            if (s->connector != nullptr) {
                close(&s->connector->Header);
            }
            if (s->qp != nullptr) {
                close(&s->qp->Header);
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
        for (tside* s : {&a_, &b_}) {
            if (s->nic == nullptr) {
                continue;
            }
            if (s->adapter != nullptr) {
                ndksim_close_ndk_adapter(s->nic, s->adapter);
            }
            EXPECT_EQ(0U, ndksim_adapter_leaked_objects(s->nic));
            EXPECT_EQ(0U, ndksim_adapter_live_objects(s->nic));
            ndksim_adapter_destroy(s->nic);
            if (s->buf.mdl != nullptr) {
                IoFreeMdl(s->buf.mdl);
            }
            std::free(s->buf.bytes);
        }
        EXPECT_EQ(0, board_.foreign_callbacks) << "a callback ran on the consumer's thread";
        g_board = nullptr;
    }

    /// Calls the result of a function that may pend: waits for its completion when it did.
    NTSTATUS finish(NTSTATUS returned, tslot& s, const char* what) {
        if (returned != STATUS_PENDING) {
            return returned;
        }
        board_.wait([&] { return s.calls == 1; }, what);
        std::lock_guard lock(board_.m);
        return s.status;
    }

    void close(NDK_OBJECT_HEADER* o) {
        tslot s;
        const NTSTATUS r =
            reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, tslot::on_close, &s);
        EXPECT_STATUS(STATUS_SUCCESS, finish(r, s, "a close completion"));
    }

    template <class T, class Create>
    T* create(const char* what, Create&& fn) {
        T* out = nullptr;
        struct sink {
            int calls = 0;
            NTSTATUS status = STATUS_PENDING;
            NDK_OBJECT_HEADER* object = nullptr;
            static void done(PVOID c, NTSTATUS st, NDK_OBJECT_HEADER* o) {
                std::lock_guard lock(g_board->m);
                auto* self = static_cast<sink*>(c);
                ++self->calls;
                self->status = st;
                self->object = o;
                g_board->cv.notify_all();
            }
        } s;
        const NTSTATUS r = fn(sink::done, &s, &out);
        if (r == STATUS_PENDING) {
            board_.wait([&] { return s.calls == 1; }, what);
            std::lock_guard lock(board_.m);
            EXPECT_STATUS(STATUS_SUCCESS, s.status);
            out = reinterpret_cast<T*>(s.object);
        } else {
            EXPECT_STATUS(STATUS_SUCCESS, r);
        }
        return out;
    }

    void make_side(tside& s, const char* address) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.address = address;  // no loop: threaded mode
        ASSERT_STATUS(STATUS_SUCCESS, ndksim_adapter_create(&c, &s.nic));
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        ASSERT_STATUS(STATUS_SUCCESS, ndksim_open_ndk_adapter(s.nic, &p, &s.adapter));
        NDK_ADAPTER* ad = s.adapter;
        s.pd = create<NDK_PD>("PD", [&](auto done, auto ctx, NDK_PD** out) {
            return ad->Dispatch->NdkCreatePd(ad, done, ctx, out);
        });
        s.cq = create<NDK_CQ>("CQ", [&](auto done, auto ctx, NDK_CQ** out) {
            return ad->Dispatch->NdkCreateCq(ad, 1024, tside::on_cq, &s, nullptr, done, ctx, out);
        });
        ASSERT_TRUE(s.pd != nullptr && s.cq != nullptr);
        s.cq->Dispatch->NdkArmCq(s.cq, NDK_CQ_NOTIFY_ANY);
        NDK_PD* pd = s.pd;
        s.qp = create<NDK_QP>("QP", [&](auto done, auto ctx, NDK_QP** out) {
            return pd->Dispatch->NdkCreateQp(pd, s.cq, s.cq, &s, 64, 64, 4, 4, 128, done, ctx, out);
        });
        ASSERT_NE(nullptr, s.qp);
        s.buf.size = k_buffer;
        s.buf.bytes = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, k_buffer));
        std::memset(s.buf.bytes, 0, k_buffer);
        s.buf.mdl = IoAllocateMdl(s.buf.bytes, static_cast<ULONG>(k_buffer), FALSE, FALSE, nullptr);
        MmBuildMdlForNonPagedPool(s.buf.mdl);
        s.buf.mr = create<NDK_MR>("MR", [&](auto done, auto ctx, NDK_MR** out) {
            return pd->Dispatch->NdkCreateMr(pd, FALSE, done, ctx, out);
        });
        ASSERT_NE(nullptr, s.buf.mr);
        tslot registered;
        ASSERT_STATUS(STATUS_SUCCESS,
                      finish(s.buf.mr->Dispatch->NdkRegisterMr(s.buf.mr, s.buf.mdl, k_buffer,
                                                               NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                                                   NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                                                   NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                                               tslot::on_request, &registered),
                             registered, "NdkRegisterMr"));
        s.buf.local_token = s.buf.mr->Dispatch->NdkGetLocalTokenFromMr(s.buf.mr);
        s.buf.remote_token = s.buf.mr->Dispatch->NdkGetRemoteTokenFromMr(s.buf.mr);
    }

    void connect() {
        NDK_ADAPTER* bad = b_.adapter;
        listener_ = create<NDK_LISTENER>("listener", [&](auto done, auto ctx, NDK_LISTENER** out) {
            return bad->Dispatch->NdkCreateListener(bad, incoming_event::on_connect, &incoming_,
                                                    done, ctx, out);
        });
        ASSERT_NE(nullptr, listener_);
        SOCKADDR_IN any = ipv4("0.0.0.0", 0);
        tslot listened;
        ASSERT_STATUS(STATUS_SUCCESS, finish(listener_->Dispatch->NdkListen(
                                                 listener_, reinterpret_cast<PSOCKADDR>(&any),
                                                 sizeof any, tslot::on_request, &listened),
                                             listened, "NdkListen"));
        SOCKADDR_IN bound{};
        ULONG size = sizeof bound;
        ASSERT_STATUS(STATUS_SUCCESS, listener_->Dispatch->NdkGetLocalAddress(
                                          listener_, reinterpret_cast<PSOCKADDR>(&bound), &size));
        NDK_ADAPTER* aad = a_.adapter;
        a_.connector =
            create<NDK_CONNECTOR>("connector", [&](auto done, auto ctx, NDK_CONNECTOR** out) {
                return aad->Dispatch->NdkCreateConnector(aad, done, ctx, out);
            });
        ASSERT_NE(nullptr, a_.connector);
        SOCKADDR_IN src = ipv4("10.0.0.1", 0);
        SOCKADDR_IN dst = ipv4("10.0.0.2", port_of(bound));
        char hello[] = "hello from a";
        tslot connected;
        ASSERT_STATUS(STATUS_PENDING,
                      a_.connector->Dispatch->NdkConnect(
                          a_.connector, a_.qp, reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                          reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8, 8, hello, sizeof hello,
                          tslot::on_request, &connected));
        ASSERT_TRUE(
            board_.wait([&] { return incoming_.connector != nullptr; }, "the connect event"));
        {
            std::lock_guard lock(board_.m);
            b_.connector = incoming_.connector;
        }
        char data[64] = {};
        ULONG length = sizeof data;
        ASSERT_STATUS(STATUS_SUCCESS, b_.connector->Dispatch->NdkGetConnectionData(
                                          b_.connector, nullptr, nullptr, data, &length));
        EXPECT_STREQ(hello, data);
        char world[] = "hello from b";
        tslot accepted;
        ASSERT_STATUS(STATUS_PENDING, b_.connector->Dispatch->NdkAccept(
                                          b_.connector, b_.qp, 8, 8, world, sizeof world,
                                          tside::on_disconnect, &b_, tslot::on_request, &accepted));
        ASSERT_STATUS(STATUS_SUCCESS, finish(STATUS_PENDING, connected, "Connect's completion"));
        length = sizeof data;
        ASSERT_STATUS(STATUS_SUCCESS, a_.connector->Dispatch->NdkGetConnectionData(
                                          a_.connector, nullptr, nullptr, data, &length));
        EXPECT_STREQ(world, data);
        tslot completed;
        ASSERT_STATUS(STATUS_SUCCESS, finish(a_.connector->Dispatch->NdkCompleteConnect(
                                                 a_.connector, tside::on_disconnect, &a_,
                                                 tslot::on_request, &completed),
                                             completed, "CompleteConnect's completion"));
        ASSERT_STATUS(STATUS_SUCCESS, finish(STATUS_PENDING, accepted, "Accept's completion"));
    }

    /// Waits until side `s` has at least `n` completions and returns a copy of them.
    std::vector<NDK_RESULT_EX> results(tside& s, std::size_t n, const char* what) {
        board_.wait([&] { return s.results.size() >= n; }, what);
        std::lock_guard lock(board_.m);
        return s.results;
    }

    board board_;
    tside a_;
    tside b_;
    NDK_LISTENER* listener_ = nullptr;
    incoming_event incoming_;
};

TEST_F(RcThreaded, ThousandSendsArriveIntactAndInOrder) {
    constexpr int k_total = 1000;
    constexpr int k_batch = 50;
    constexpr std::size_t k_slot = 4096;
    int sent = 0;
    while (sent < k_total) {
        for (int i = 0; i < k_batch; ++i) {
            NDK_SGE r = b_.buf.sge(static_cast<std::size_t>(i) * k_slot, k_slot);
            ASSERT_STATUS(
                STATUS_SUCCESS,
                b_.qp->Dispatch->NdkReceive(
                    b_.qp, reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(sent + i)), &r, 1));
        }
        for (int i = 0; i < k_batch; ++i) {
            const int n = sent + i;
            const ULONG length = 100 + static_cast<ULONG>(n % 900) * 4;
            fill(a_.buf.bytes + static_cast<std::size_t>(i) * k_slot, length,
                 static_cast<unsigned>(n));
            NDK_SGE s = a_.buf.sge(static_cast<std::size_t>(i) * k_slot, length);
            ASSERT_STATUS(
                STATUS_SUCCESS,
                a_.qp->Dispatch->NdkSend(
                    a_.qp, reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), &s, 1, 0));
        }
        sent += k_batch;
        const std::vector<NDK_RESULT_EX> got =
            results(b_, static_cast<std::size_t>(sent), "a batch of receives");
        const std::vector<NDK_RESULT_EX> done =
            results(a_, static_cast<std::size_t>(sent), "a batch of send completions");
        ASSERT_EQ(static_cast<std::size_t>(sent), got.size());
        ASSERT_EQ(static_cast<std::size_t>(sent), done.size());
        for (int i = 0; i < k_batch; ++i) {
            const int n = sent - k_batch + i;
            const NDK_RESULT_EX& r = got[static_cast<std::size_t>(n)];
            const NDK_RESULT_EX& d = done[static_cast<std::size_t>(n)];
            ASSERT_STATUS(STATUS_SUCCESS, r.Status) << "receive " << n;
            ASSERT_STATUS(STATUS_SUCCESS, d.Status) << "send " << n;
            EXPECT_EQ(NdkOperationTypeReceive, r.Type);
            EXPECT_EQ(NdkOperationTypeSend, d.Type);
            EXPECT_EQ(reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), r.RequestContext);
            EXPECT_EQ(reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), d.RequestContext);
            EXPECT_EQ(&b_, r.QPContext);
            const ULONG length = 100 + static_cast<ULONG>(n % 900) * 4;
            ASSERT_EQ(length, r.BytesTransferred) << "receive " << n;
            ASSERT_EQ(0, std::memcmp(a_.buf.bytes + static_cast<std::size_t>(i) * k_slot,
                                     b_.buf.bytes + static_cast<std::size_t>(i) * k_slot, length))
                << "payload of message " << n;
        }
    }
}

TEST_F(RcThreaded, WritesAndReadsMoveEveryByte) {
    constexpr ULONG size = 100 * 1024;
    fill(a_.buf.bytes, size, 7);
    NDK_SGE w = a_.buf.sge(0, size);
    ASSERT_STATUS(STATUS_SUCCESS, a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &w, 1, b_.buf.address(),
                                                            b_.buf.remote_token, 0));
    NDK_SGE r = a_.buf.sge(128 * 1024, size);
    ASSERT_STATUS(STATUS_SUCCESS,
                  a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &r, 1, b_.buf.address(),
                                           b_.buf.remote_token, NDK_OP_FLAG_READ_FENCE));
    const std::vector<NDK_RESULT_EX> got = results(a_, 2, "the write and the read");
    EXPECT_STATUS(STATUS_SUCCESS, got[0].Status);
    EXPECT_EQ(NdkOperationTypeWrite, got[0].Type);
    EXPECT_STATUS(STATUS_SUCCESS, got[1].Status);
    EXPECT_EQ(NdkOperationTypeRead, got[1].Type);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, size));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, a_.buf.bytes + 128 * 1024, size));
    // And from b to a, many in flight at once.
    fill(b_.buf.bytes + 128 * 1024, 64 * 1024, 9);
    for (std::uintptr_t i = 0; i < 16; ++i) {
        NDK_SGE s = b_.buf.sge(128 * 1024 + i * 4096, 4096);
        ASSERT_STATUS(STATUS_SUCCESS, b_.qp->Dispatch->NdkWrite(b_.qp, reinterpret_cast<PVOID>(i),
                                                                &s, 1, a_.buf.address() + i * 4096,
                                                                a_.buf.remote_token, 0));
    }
    const std::vector<NDK_RESULT_EX> writes = results(b_, 16, "b's writes");
    for (std::uintptr_t i = 0; i < 16; ++i) {
        EXPECT_STATUS(STATUS_SUCCESS, writes[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), writes[i].RequestContext);
    }
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 128 * 1024, 64 * 1024));
}

TEST_F(RcThreaded, FlushAndDisconnectCompleteEverythingOnce) {
    for (std::uintptr_t i = 0; i < 4; ++i) {
        NDK_SGE r = a_.buf.sge(i * 64, 64);
        ASSERT_STATUS(STATUS_SUCCESS,
                      a_.qp->Dispatch->NdkReceive(a_.qp, reinterpret_cast<PVOID>(i), &r, 1));
    }
    a_.qp->Dispatch->NdkFlush(a_.qp);
    const std::vector<NDK_RESULT_EX> flushed = results(a_, 4, "the flushed receives");
    for (std::uintptr_t i = 0; i < 4; ++i) {
        EXPECT_STATUS(STATUS_CANCELLED, flushed[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), flushed[i].RequestContext);
    }
    tslot done;
    ASSERT_STATUS(STATUS_SUCCESS, finish(a_.connector->Dispatch->NdkDisconnect(
                                             a_.connector, tslot::on_request, &done),
                                         done, "Disconnect's completion"));
    ASSERT_TRUE(board_.wait([&] { return b_.disconnect_events == 1; }, "the disconnect event"));
    tslot peer;
    EXPECT_STATUS(STATUS_SUCCESS, finish(b_.connector->Dispatch->NdkDisconnect(
                                             b_.connector, tslot::on_request, &peer),
                                         peer, "the peer's Disconnect"));
    std::lock_guard lock(board_.m);
    EXPECT_EQ(4U, a_.results.size());
    EXPECT_EQ(0, a_.disconnect_events);
    EXPECT_EQ(1, b_.disconnect_events);
}

TEST_F(RcThreaded, ACutLinkTimesOutFlushesAndDisconnectsWithinTheRetryBudget) {
    // The defaults: ack_timeout_us 16000, retry_limit 7, the interval doubling up to 8x per
    // retry (docs/engine.md): 47 x 16 ms = 752 ms of simulated time, which threaded mode also
    // spends on the wall clock.
    ASSERT_STATUS(STATUS_SUCCESS, ndksim_adapter_cut_link(b_.nic, TRUE));
    const ULONG64 sim_started = ndksim_adapter_now(a_.nic);
    for (std::uintptr_t i = 1; i <= 3; ++i) {
        NDK_SGE w = a_.buf.sge(i * 64, 64);
        ASSERT_STATUS(STATUS_SUCCESS,
                      a_.qp->Dispatch->NdkWrite(a_.qp, reinterpret_cast<PVOID>(i), &w, 1,
                                                b_.buf.address(), b_.buf.remote_token, 0));
    }
    const std::vector<NDK_RESULT_EX> done = results(a_, 3, "the timed-out writes");
    ASSERT_TRUE(board_.wait([&] { return a_.disconnect_events == 1; }, "the disconnect event"));
    ASSERT_EQ(3U, done.size());
    EXPECT_STATUS(STATUS_IO_TIMEOUT, done[0].Status);
    EXPECT_EQ(reinterpret_cast<PVOID>(1), done[0].RequestContext);
    for (std::uintptr_t i = 1; i < 3; ++i) {
        EXPECT_STATUS(STATUS_CANCELLED, done[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i + 1), done[i].RequestContext);
    }
    // The retry budget passed on the simulated clock before the requests failed.
    EXPECT_GE(ndksim_adapter_now(a_.nic) - sim_started, 47 * 16'000'000'000ULL);
    ASSERT_STATUS(STATUS_SUCCESS, ndksim_adapter_cut_link(b_.nic, FALSE));
    std::lock_guard lock(board_.m);
    EXPECT_EQ(0, b_.disconnect_events) << "b heard nothing: its link was cut";
}

}  // namespace
}  // namespace ndksim::testkit
