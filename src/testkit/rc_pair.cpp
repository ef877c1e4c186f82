// SPDX-License-Identifier: MIT
#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

void on_cq(PVOID, NTSTATUS) {}

void on_connect_event(PVOID context, NDK_CONNECTOR* connector) {
    *static_cast<NDK_CONNECTOR**>(context) = connector;
}

}  // namespace

void RcPair::SetUp() {
    print_coverage_at_exit_if_asked();
    if (!synchronized_) {
        ASSERT_NT_SUCCESS(ndksim_loop_create(&loop_));
    }
    make_side(a_, "10.0.0.1");
    make_side(b_, "10.0.0.2");
    connect_pair();
}

void RcPair::TearDown() {
    // A connect event the test did not take: the consumer owns that connector too.
    settle();
    if (incoming_ != nullptr) {
        track(&incoming_->Header);
        incoming_ = nullptr;
    }
    while (!tracked_.empty()) {
        NDK_OBJECT_HEADER* o = tracked_.back();
        tracked_.pop_back();
        close(o);
    }
    while (!cleanups_.empty()) {
        std::function<void()> fn = std::move(cleanups_.back());
        cleanups_.pop_back();
        fn();
    }
    for (side* s : {&a_, &b_}) {
        if (s->connector != nullptr) {
            close(&s->connector->Header);
        }
        if (s->qp != nullptr) {
            close(&s->qp->Header);
        }
        release_buffer(*s, s->buf);
        close(&s->cq->Header);
        close(&s->pd->Header);
    }
    if (listener_ != nullptr) {
        close(&listener_->Header);
    }
    for (side* s : {&a_, &b_}) {
        ndksim_close_ndk_adapter(s->nic, s->adapter);
        EXPECT_EQ(0U, ndksim_adapter_leaked_objects(s->nic));
        ndksim_adapter_destroy(s->nic);
    }
    ndksim_loop_destroy(loop_);
}

NDK_RESULT_EX RcPair::next(NDK_CQ* cq) {
    NDK_RESULT_EX r{};
    drive([&] { return cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) == 1; }, "a completion");
    return r;
}

bool RcPair::cq_empty(NDK_CQ* cq) {
    settle();
    NDK_RESULT_EX r{};
    return cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) == 0;
}

void RcPair::close(NDK_OBJECT_HEADER* o) {
    slot s;
    // Every close is the first entry of its table; the QP table's type stands for all of them.
    const NTSTATUS r = reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, slot::on_close, &s);
    if (r == STATUS_PENDING) {
        drive([&] { return s.calls == 1; }, "a close completion");
    } else {
        EXPECT_NT_SUCCESS(r);
    }
}

void RcPair::make_side(side& s, const char* address) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.loop = loop_;
    if (synchronized_) {
        c.time_mode = NDKSIM_TIME_SYNCHRONIZED;
        // A test thread on a loaded (or sanitized) host never makes time move on without it.
        c.sync_consumer_grace_ms = k_sync_wait_ms;
    }
    c.address = address;
    c.rnr_retry_limit = rnr_retry_limit_.value_or(c.rnr_retry_limit);
    c.rotate_fast_register_tokens = rotate_fast_register_tokens_;
    c.verifier = verifier_;
    const std::string& faults = &s == &a_ ? a_faults_ : b_faults_;
    c.fault_script = faults.empty() ? nullptr : faults.c_str();
    c.coverage = coverage_;
    ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &s.nic));
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    ASSERT_NT_SUCCESS(ndksim_open_ndk_adapter(s.nic, &p, &s.adapter));
    slot ignored;
    ASSERT_NT_SUCCESS(
        s.adapter->Dispatch->NdkCreatePd(s.adapter, slot::on_create, &ignored, &s.pd));
    ASSERT_NT_SUCCESS(s.adapter->Dispatch->NdkCreateCq(s.adapter, 1024, on_cq, nullptr, nullptr,
                                                       slot::on_create, &ignored, &s.cq));
    ASSERT_NT_SUCCESS(s.pd->Dispatch->NdkCreateQp(s.pd, s.cq, s.cq, &s, 64, 64, 4, 4, 128,
                                                  slot::on_create, &ignored, &s.qp));
    s.buf = register_buffer(s, k_buffer,
                            NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
}

buffer RcPair::register_buffer(side& s, std::size_t size, ULONG flags) {
    buffer b;
    b.size = size;
    b.bytes = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, size));
    std::memset(b.bytes, 0, size);
    b.mdl = IoAllocateMdl(b.bytes, static_cast<ULONG>(size), FALSE, FALSE, nullptr);
    EXPECT_NE(nullptr, b.mdl);
    MmBuildMdlForNonPagedPool(b.mdl);
    slot created;
    EXPECT_NT_SUCCESS(s.pd->Dispatch->NdkCreateMr(s.pd, FALSE, slot::on_create, &created, &b.mr));
    slot registered;
    EXPECT_NT_SUCCESS(
        b.mr->Dispatch->NdkRegisterMr(b.mr, b.mdl, size, flags, slot::on_request, &registered));
    b.local_token = b.mr->Dispatch->NdkGetLocalTokenFromMr(b.mr);
    b.remote_token = b.mr->Dispatch->NdkGetRemoteTokenFromMr(b.mr);
    return b;
}

void RcPair::release_buffer(side&, buffer& b) {
    if (b.mr != nullptr) {
        slot deregistered;
        const NTSTATUS d = b.mr->Dispatch->NdkDeregisterMr(b.mr, slot::on_request, &deregistered);
        if (d == STATUS_PENDING) {
            drive([&] { return deregistered.calls == 1; }, "deregistration");
        }
        close(&b.mr->Header);
    }
    if (b.mdl != nullptr) {
        IoFreeMdl(b.mdl);
    }
    std::free(b.bytes);
    b = buffer{};
}

void RcPair::connect_pair() {
    slot created;
    ASSERT_NT_SUCCESS(b_.adapter->Dispatch->NdkCreateListener(
        b_.adapter, on_connect_event, &incoming_, slot::on_create, &created, &listener_));
    SOCKADDR_IN any = ipv4("0.0.0.0", 0);
    slot listened;
    ASSERT_NT_SUCCESS(listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&any),
                                                     sizeof any, slot::on_request, &listened));
    SOCKADDR_IN bound{};
    ULONG bound_size = sizeof bound;
    ASSERT_NT_SUCCESS(listener_->Dispatch->NdkGetLocalAddress(
        listener_, reinterpret_cast<PSOCKADDR>(&bound), &bound_size));
    port_ = static_cast<USHORT>((bound.sin_port >> 8) | (bound.sin_port << 8));

    ASSERT_NT_SUCCESS(a_.adapter->Dispatch->NdkCreateConnector(a_.adapter, slot::on_create,
                                                               &created, &a_.connector));
    SOCKADDR_IN src = ipv4("10.0.0.1", 0);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_);
    char hello[] = "hello from a";
    slot connected;
    ASSERT_NT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkConnect(
                                         a_.connector, a_.qp, reinterpret_cast<PSOCKADDR>(&src),
                                         sizeof src, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst,
                                         8, 8, hello, sizeof hello, slot::on_request, &connected));
    ASSERT_TRUE(drive([&] { return incoming_ != nullptr; }, "the connect event"));
    b_.connector = incoming_;
    incoming_ = nullptr;
    char data[64] = {};
    ULONG length = sizeof data;
    ULONG ird = 0;
    ULONG ord = 0;
    ASSERT_NT_SUCCESS(
        b_.connector->Dispatch->NdkGetConnectionData(b_.connector, &ird, &ord, data, &length));
    accepted_private_.assign(data, length - 1);
    char world[] = "hello from b";
    slot accepted;
    ASSERT_NT_STATUS(STATUS_PENDING, b_.connector->Dispatch->NdkAccept(
                                         b_.connector, b_.qp, 8, 8, world, sizeof world,
                                         side::on_disconnect, &b_, slot::on_request, &accepted));
    ASSERT_TRUE(drive([&] { return connected.calls == 1; }, "Connect's completion"));
    ASSERT_NT_SUCCESS(connected.status);
    length = sizeof data;
    ASSERT_NT_SUCCESS(
        a_.connector->Dispatch->NdkGetConnectionData(a_.connector, &ird, &ord, data, &length));
    connected_private_.assign(data, length - 1);
    slot completed;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     a_.connector->Dispatch->NdkCompleteConnect(a_.connector, side::on_disconnect,
                                                                &a_, slot::on_request, &completed));
    ASSERT_TRUE(drive([&] { return completed.calls == 1 && accepted.calls == 1; },
                      "CompleteConnect and Accept"));
    ASSERT_NT_SUCCESS(completed.status);
    ASSERT_NT_SUCCESS(accepted.status);
}

void RcPair::close_tracked(NDK_OBJECT_HEADER* o) {
    for (auto it = tracked_.begin(); it != tracked_.end(); ++it) {
        if (*it == o) {
            tracked_.erase(it);
            break;
        }
    }
    close(o);
}

NDK_CQ* RcPair::make_cq(side& s, ULONG depth, NDK_FN_CQ_NOTIFICATION_CALLBACK cb, PVOID ctx) {
    NDK_CQ* cq = nullptr;
    slot ignored;
    EXPECT_NT_SUCCESS(s.adapter->Dispatch->NdkCreateCq(s.adapter, depth, cb, ctx, nullptr,
                                                       slot::on_create, &ignored, &cq));
    if (cq != nullptr) {
        track(&cq->Header);
    }
    return cq;
}

NDK_QP* RcPair::make_qp(side& s, NDK_CQ* cq, NDK_SRQ* srq, PVOID context) {
    NDK_QP* qp = nullptr;
    slot ignored;
    const NTSTATUS r =
        srq == nullptr ? s.pd->Dispatch->NdkCreateQp(s.pd, cq, cq, context, 64, 64, 4, 4, 128,
                                                     slot::on_create, &ignored, &qp)
                       : s.pd->Dispatch->NdkCreateQpWithSrq(s.pd, cq, cq, srq, context, 64, 4, 128,
                                                            slot::on_create, &ignored, &qp);
    EXPECT_NT_SUCCESS(r);
    if (qp != nullptr) {
        track(&qp->Header);
    }
    return qp;
}

NDK_CONNECTOR* RcPair::make_connector(side& s) {
    NDK_CONNECTOR* c = nullptr;
    slot ignored;
    EXPECT_NT_SUCCESS(
        s.adapter->Dispatch->NdkCreateConnector(s.adapter, slot::on_create, &ignored, &c));
    if (c != nullptr) {
        track(&c->Header);
    }
    return c;
}

link* RcPair::start_connection(NDK_QP* aqp, NDK_QP* bqp, slot& accepted, ULONG a_ird, ULONG a_ord,
                               ULONG b_ird, ULONG b_ord) {
    link& l = links_.emplace_back();
    l.active = make_connector(a_);
    SOCKADDR_IN src = ipv4("10.0.0.1", 0);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_);
    incoming_ = nullptr;
    slot connected;
    EXPECT_NT_STATUS(STATUS_PENDING, l.active->Dispatch->NdkConnect(
                                         l.active, aqp, reinterpret_cast<PSOCKADDR>(&src),
                                         sizeof src, reinterpret_cast<PSOCKADDR>(&dst), sizeof dst,
                                         a_ird, a_ord, nullptr, 0, slot::on_request, &connected));
    if (!drive([&] { return incoming_ != nullptr; }, "the connect event")) {
        return nullptr;
    }
    l.passive = incoming_;
    incoming_ = nullptr;
    track(&l.passive->Header);
    EXPECT_NT_STATUS(STATUS_PENDING, l.passive->Dispatch->NdkAccept(
                                         l.passive, bqp, b_ird, b_ord, nullptr, 0,
                                         link::on_passive_event, &l, slot::on_request, &accepted));
    if (!wait(connected, "Connect's completion")) {
        return nullptr;
    }
    EXPECT_NT_SUCCESS(connected.status);
    return &l;
}

link& RcPair::connect_qps(NDK_QP* aqp, NDK_QP* bqp, ULONG a_ird, ULONG a_ord, ULONG b_ird,
                          ULONG b_ord) {
    slot accepted;
    link* started = start_connection(aqp, bqp, accepted, a_ird, a_ord, b_ird, b_ord);
    if (started == nullptr) {
        return links_.back();
    }
    link& l = *started;
    slot completed;
    EXPECT_NT_STATUS(STATUS_PENDING,
                     l.active->Dispatch->NdkCompleteConnect(l.active, link::on_active_event, &l,
                                                            slot::on_request, &completed));
    drive([&] { return completed.calls == 1 && accepted.calls == 1; },
          "CompleteConnect and Accept");
    EXPECT_NT_SUCCESS(completed.status);
    EXPECT_NT_SUCCESS(accepted.status);
    return l;
}

}  // namespace ndksim::testkit
