// SPDX-License-Identifier: MIT
#include "threaded_pair/adapter_pair.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

namespace ndksim::threaded {

using testkit::ipv4;
using testkit::port_of;

adapter_pair::adapter_pair(pair_shape shape) : shape_(shape) {
    a_.b = &board_;
    b_.b = &board_;
}

void adapter_pair::open_and_connect() {
    make_objects(a_);
    if (::testing::Test::HasFatalFailure()) {
        return;
    }
    make_objects(b_);
    if (::testing::Test::HasFatalFailure()) {
        return;
    }
    connect();
}

NTSTATUS adapter_pair::finish(NTSTATUS returned, completion_slot& s, const char* what) {
    if (returned != STATUS_PENDING) {
        return returned;
    }
    board_.wait([&] { return s.calls == 1; }, what);
    std::lock_guard lock(board_.m);
    return s.status;
}

void adapter_pair::close(NDK_OBJECT_HEADER* o) {
    completion_slot s{&board_};
    // Every dispatch table starts with its close function; the QP's serves for all kinds.
    const NTSTATUS r =
        reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, completion_slot::on_close, &s);
    EXPECT_NT_SUCCESS(finish(r, s, "a close completion"));
}

void adapter_pair::make_objects(pair_side& s) {
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    ASSERT_NT_SUCCESS(ndksim_open_ndk_adapter(s.nic, &p, &s.adapter));
    NDK_ADAPTER* ad = s.adapter;
    s.pd = create<NDK_PD>("NdkCreatePd", [&](auto done, auto ctx, NDK_PD** out) {
        return ad->Dispatch->NdkCreatePd(ad, done, ctx, out);
    });
    ASSERT_NE(nullptr, s.pd);
    s.cq = create<NDK_CQ>("NdkCreateCq", [&](auto done, auto ctx, NDK_CQ** out) {
        return ad->Dispatch->NdkCreateCq(ad, 1024, pair_side::on_cq, &s, nullptr, done, ctx, out);
    });
    ASSERT_NE(nullptr, s.cq);
    s.cq->Dispatch->NdkArmCq(s.cq, NDK_CQ_NOTIFY_ANY);
    NDK_PD* pd = s.pd;
    const ULONG depth = shape_.queue_depth;
    s.qp = create<NDK_QP>("NdkCreateQp", [&](auto done, auto ctx, NDK_QP** out) {
        return pd->Dispatch->NdkCreateQp(pd, s.cq, s.cq, &s, depth, depth, 4, 4, 128, done, ctx,
                                         out);
    });
    ASSERT_NE(nullptr, s.qp);
    const std::size_t size = shape_.buffer_bytes;
    s.buf.size = size;
    s.buf.bytes = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, size));
    std::memset(s.buf.bytes, 0, size);
    s.buf.mdl = IoAllocateMdl(s.buf.bytes, static_cast<ULONG>(size), FALSE, FALSE, nullptr);
    MmBuildMdlForNonPagedPool(s.buf.mdl);
    s.buf.mr = create<NDK_MR>("NdkCreateMr", [&](auto done, auto ctx, NDK_MR** out) {
        return pd->Dispatch->NdkCreateMr(pd, FALSE, done, ctx, out);
    });
    ASSERT_NE(nullptr, s.buf.mr);
    completion_slot registered{&board_};
    ASSERT_NT_SUCCESS(finish(s.buf.mr->Dispatch->NdkRegisterMr(
                                 s.buf.mr, s.buf.mdl, size,
                                 NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                     NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                 completion_slot::on_request, &registered),
                             registered, "NdkRegisterMr"));
    s.buf.local_token = s.buf.mr->Dispatch->NdkGetLocalTokenFromMr(s.buf.mr);
    s.buf.remote_token = s.buf.mr->Dispatch->NdkGetRemoteTokenFromMr(s.buf.mr);
}

void adapter_pair::on_connect(PVOID c, NDK_CONNECTOR* connector) {
    auto* self = static_cast<adapter_pair*>(c);
    std::lock_guard lock(self->board_.m);
    self->board_.touched();
    self->incoming_ = connector;
    self->board_.cv.notify_all();
}

void adapter_pair::connect() {
    NDK_ADAPTER* bad = b_.adapter;
    listener_ =
        create<NDK_LISTENER>("NdkCreateListener", [&](auto done, auto ctx, NDK_LISTENER** out) {
            return bad->Dispatch->NdkCreateListener(bad, on_connect, this, done, ctx, out);
        });
    ASSERT_NE(nullptr, listener_);
    SOCKADDR_IN any = ipv4("0.0.0.0", 0);
    completion_slot listened{&board_};
    ASSERT_NT_SUCCESS(
        finish(listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&any),
                                              sizeof any, completion_slot::on_request, &listened),
               listened, "NdkListen"));
    SOCKADDR_IN bound{};
    ULONG size = sizeof bound;
    ASSERT_NT_SUCCESS(listener_->Dispatch->NdkGetLocalAddress(
        listener_, reinterpret_cast<PSOCKADDR>(&bound), &size));
    NDK_ADAPTER* aad = a_.adapter;
    a_.connector =
        create<NDK_CONNECTOR>("NdkCreateConnector", [&](auto done, auto ctx, NDK_CONNECTOR** out) {
            return aad->Dispatch->NdkCreateConnector(aad, done, ctx, out);
        });
    ASSERT_NE(nullptr, a_.connector);
    SOCKADDR_IN src = ipv4(shape_.a_address, 0);
    SOCKADDR_IN dst = ipv4(shape_.b_address, port_of(bound));
    // The private data goes with its terminating NUL, so the peer reads it back as a string.
    std::string hello = shape_.hello;
    completion_slot connected{&board_};
    ASSERT_NT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkConnect(
                                         a_.connector, a_.qp, reinterpret_cast<PSOCKADDR>(&src),
                                         sizeof src, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst,
                                         8, 8, hello.data(), static_cast<ULONG>(hello.size() + 1),
                                         completion_slot::on_request, &connected));
    ASSERT_TRUE(board_.wait([&] { return incoming_ != nullptr; }, "the connect event"));
    {
        std::lock_guard lock(board_.m);
        b_.connector = incoming_;
    }
    char data[64] = {};
    ULONG length = sizeof data;
    ASSERT_NT_SUCCESS(b_.connector->Dispatch->NdkGetConnectionData(b_.connector, nullptr, nullptr,
                                                                   data, &length));
    EXPECT_STREQ(shape_.hello, data);
    std::string world = shape_.world;
    completion_slot accepted{&board_};
    ASSERT_NT_STATUS(STATUS_PENDING,
                     b_.connector->Dispatch->NdkAccept(b_.connector, b_.qp, 8, 8, world.data(),
                                                       static_cast<ULONG>(world.size() + 1),
                                                       pair_side::on_disconnect, &b_,
                                                       completion_slot::on_request, &accepted));
    ASSERT_NT_SUCCESS(finish(STATUS_PENDING, connected, "Connect's completion"));
    length = sizeof data;
    ASSERT_NT_SUCCESS(a_.connector->Dispatch->NdkGetConnectionData(a_.connector, nullptr, nullptr,
                                                                   data, &length));
    EXPECT_STREQ(shape_.world, data);
    completion_slot completed{&board_};
    ASSERT_NT_SUCCESS(finish(
        a_.connector->Dispatch->NdkCompleteConnect(a_.connector, pair_side::on_disconnect, &a_,
                                                   completion_slot::on_request, &completed),
        completed, "CompleteConnect's completion"));
    ASSERT_NT_SUCCESS(finish(STATUS_PENDING, accepted, "Accept's completion"));
}

void adapter_pair::disconnect_a_then_b() {
    completion_slot done{&board_};
    ASSERT_NT_SUCCESS(finish(
        a_.connector->Dispatch->NdkDisconnect(a_.connector, completion_slot::on_request, &done),
        done, "Disconnect's completion"));
    ASSERT_TRUE(board_.wait([&] { return b_.disconnect_events == 1; }, "the disconnect event"));
    completion_slot peer{&board_};
    EXPECT_NT_SUCCESS(finish(
        b_.connector->Dispatch->NdkDisconnect(b_.connector, completion_slot::on_request, &peer),
        peer, "the peer's Disconnect"));
}

void adapter_pair::close_all() {
    // Dependents before what they depend on (rule 6 would otherwise hold each close pending).
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

void adapter_pair::make_inproc_adapter(ndksim_adapter*& nic, const char* address,
                                       ndksim_poll_policy policy, ULONG ack_timeout_us) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = address;  // no loop: threaded mode
    c.poll_policy = policy;
    c.cm_timeout_ms = board::k_cm_timeout_ms;
    if (ack_timeout_us != 0) {
        c.ack_timeout_us = ack_timeout_us;
    }
    ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &nic));
}

void adapter_pair::write_queue_a_to_b(std::size_t writes, ULONG length) {
    const std::size_t before = result_count(a_);
    for (std::size_t i = 0; i < writes; ++i) {
        NDK_SGE s = a_.buf.sge(0, length);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, b_.buf.address(),
                                                    b_.buf.remote_token, 0));
    }
    for (std::size_t i = 1; i <= writes; ++i) {
        EXPECT_NT_SUCCESS(result(a_, before + i, "a write's completion").Status);
    }
}

std::vector<NDK_RESULT_EX> adapter_pair::results(pair_side& s, std::size_t n, const char* what) {
    board_.wait([&] { return s.results.size() >= n; }, what);
    std::lock_guard lock(board_.m);
    return s.results;
}

NDK_RESULT_EX adapter_pair::result(pair_side& s, std::size_t n, const char* what) {
    if (!board_.wait([&] { return s.results.size() >= n; }, what)) {
        return NDK_RESULT_EX{};
    }
    std::lock_guard lock(board_.m);
    return s.results[n - 1];
}

std::size_t adapter_pair::result_count(pair_side& s) {
    std::lock_guard lock(board_.m);
    return s.results.size();
}

}  // namespace ndksim::threaded
