// SPDX-License-Identifier: MIT
// Connect and disconnect cycles in threaded mode, with the two ends of each connection ended
// from two consumer threads at the same moment: the orders that tests/component/
// test_disconnect_orders.cpp forces one by one, here met by chance thousands of times (and
// checked by ThreadSanitizer in the TSan build). Each cycle uses new QPs and connectors, as a
// consumer must (a QP that was connected is not connected again).

#include <cstdint>
#include <latch>
#include <thread>

#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/adapter_pair.hpp"

namespace ndksim::testkit {
namespace {

#ifndef NDKSIM_DISCONNECT_CYCLES
#define NDKSIM_DISCONNECT_CYCLES 2000
#endif

using threaded::completion_slot;

/// How one cycle ends its connection: what a's thread and b's thread do at the same moment.
enum class ending : std::uint8_t {
    both_disconnect,       ///< a: Disconnect; b: Disconnect
    disconnect_and_close,  ///< a: Disconnect; b: close its connector
    close_and_disconnect,  ///< a: close its connector; b: Disconnect
    flush_and_disconnect,  ///< a: Disconnect; b's thread: flush a's QP, then b's Disconnect
    count,
};

/// One side's connection in a cycle.
struct end_point {
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    completion_slot disconnected;
    NTSTATUS disconnect_returned = STATUS_PENDING;
    bool closed_early = false;
    int events = 0;  ///< disconnect events (under the board's mutex)
    threaded::board* b = nullptr;
    static void on_disconnect(PVOID c) {
        auto* self = static_cast<end_point*>(c);
        std::lock_guard lock(self->b->m);
        self->b->touched();
        ++self->events;
        self->b->cv.notify_all();
    }
};

class DisconnectStress : public ::testing::Test, protected threaded::adapter_pair {
  protected:
    DisconnectStress()
        : adapter_pair({"10.0.0.1", "10.0.0.2", 64 * 1024, 16, "stress a", "stress b"}) {}

    void SetUp() override {
        for (ndksim_adapter** nic : {&a_.nic, &b_.nic}) {
            ndksim_adapter_config c;
            ndksim_adapter_config_init(&c);
            c.address = nic == &a_.nic ? shape().a_address : shape().b_address;
            c.cm_timeout_ms = threaded::board::k_cm_timeout_ms;
            ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, nic));
        }
        open_and_connect();
        ASSERT_FALSE(HasFatalFailure());
        {
            // The pair's own connection came through the listener too; each cycle waits for
            // its own connect event.
            std::lock_guard lock(board_.m);
            incoming_ = nullptr;
        }
        SOCKADDR_IN bound{};
        ULONG size = sizeof bound;
        ASSERT_NT_SUCCESS(listener_->Dispatch->NdkGetLocalAddress(
            listener_, reinterpret_cast<PSOCKADDR>(&bound), &size));
        port_ = port_of(bound);
    }

    void TearDown() override {
        close_all();
        EXPECT_EQ(0, board_.foreign_callbacks) << "a callback ran on a consumer's thread";
    }

    NDK_QP* make_qp(threaded::pair_side& s) {
        NDK_PD* pd = s.pd;
        NDK_CQ* cq = s.cq;
        return create<NDK_QP>("NdkCreateQp", [&](auto done, auto ctx, NDK_QP** out) {
            return pd->Dispatch->NdkCreateQp(pd, cq, cq, &s, 4, 4, 1, 1, 0, done, ctx, out);
        });
    }

    /// Connects a fresh QP pair through b's listener; false after a reported failure.
    bool connect(end_point& a, end_point& b) {
        a.b = &board_;
        b.b = &board_;
        a.qp = make_qp(a_);
        b.qp = make_qp(b_);
        NDK_ADAPTER* aad = a_.adapter;
        a.connector = create<NDK_CONNECTOR>(
            "NdkCreateConnector", [&](auto done, auto ctx, NDK_CONNECTOR** out) {
                return aad->Dispatch->NdkCreateConnector(aad, done, ctx, out);
            });
        if (a.qp == nullptr || b.qp == nullptr || a.connector == nullptr) {
            return false;
        }
        SOCKADDR_IN src = ipv4(shape().a_address, 0);
        SOCKADDR_IN dst = ipv4(shape().b_address, port_);
        completion_slot connected{&board_};
        EXPECT_NT_STATUS(STATUS_PENDING,
                         a.connector->Dispatch->NdkConnect(
                             a.connector, a.qp, reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                             reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 1, 1, nullptr, 0,
                             completion_slot::on_request, &connected));
        if (!board_.wait([&] { return incoming_ != nullptr; }, "the connect event")) {
            return false;
        }
        {
            std::lock_guard lock(board_.m);
            b.connector = incoming_;
            incoming_ = nullptr;
        }
        completion_slot accepted{&board_};
        EXPECT_NT_STATUS(STATUS_PENDING,
                         b.connector->Dispatch->NdkAccept(b.connector, b.qp, 1, 1, nullptr, 0,
                                                          end_point::on_disconnect, &b,
                                                          completion_slot::on_request, &accepted));
        EXPECT_NT_SUCCESS(finish(STATUS_PENDING, connected, "Connect"));
        completion_slot completed{&board_};
        EXPECT_NT_SUCCESS(finish(
            a.connector->Dispatch->NdkCompleteConnect(a.connector, end_point::on_disconnect, &a,
                                                      completion_slot::on_request, &completed),
            completed, "CompleteConnect"));
        EXPECT_NT_SUCCESS(finish(STATUS_PENDING, accepted, "Accept"));
        return !HasFailure();
    }

    void start_disconnect(end_point& e) {
        e.disconnected.b = &board_;
        e.disconnect_returned = e.connector->Dispatch->NdkDisconnect(
            e.connector, completion_slot::on_request, &e.disconnected);
    }

    void close_connector(end_point& e) {
        close(&e.connector->Header);
        e.connector = nullptr;
        e.closed_early = true;
    }

    /// The checks every ending shares: each Disconnect completed once with STATUS_SUCCESS, each
    /// side saw at most one disconnect event, and none on a side whose connector closed first.
    void check(const end_point& e, const char* who) {
        if (!e.closed_early) {
            EXPECT_NT_SUCCESS(finish(e.disconnect_returned,
                                     const_cast<completion_slot&>(e.disconnected), "a Disconnect"))
                << who;
        }
        std::lock_guard lock(board_.m);
        EXPECT_LE(e.disconnected.calls, 1) << who << "'s Disconnect completed twice";
        EXPECT_LE(e.events, 1) << who << " heard two disconnect events";
    }

    USHORT port_ = 0;
};

TEST_F(DisconnectStress, CrossingEndingsCompleteOnceAndLeakNothing) {
    for (int cycle = 0; cycle < NDKSIM_DISCONNECT_CYCLES; ++cycle) {
        end_point a;
        end_point b;
        ASSERT_TRUE(connect(a, b)) << "cycle " << cycle;
        const auto how = static_cast<ending>(cycle % static_cast<int>(ending::count));
        std::latch go(2);
        std::thread peer([&] {
            go.arrive_and_wait();
            switch (how) {
                case ending::both_disconnect:
                case ending::close_and_disconnect:
                    start_disconnect(b);
                    break;
                case ending::disconnect_and_close:
                    close_connector(b);
                    break;
                case ending::flush_and_disconnect:
                    a.qp->Dispatch->NdkFlush(a.qp);
                    start_disconnect(b);
                    break;
                case ending::count:
                    break;
            }
        });
        go.arrive_and_wait();
        if (how == ending::close_and_disconnect) {
            close_connector(a);
        } else {
            start_disconnect(a);
        }
        peer.join();
        check(a, "a");
        check(b, "b");
        for (end_point* e : {&a, &b}) {
            if (e->connector != nullptr) {
                close(&e->connector->Header);
            }
            close(&e->qp->Header);
        }
        std::lock_guard lock(board_.m);
        // After the close completions no callback may come (rule 4): the counts are final.
        ASSERT_LE(a.disconnected.calls, 1) << "cycle " << cycle;
        ASSERT_LE(b.disconnected.calls, 1) << "cycle " << cycle;
    }
    EXPECT_EQ(0U, result_count(a_)) << "a QP without requests completed something";
}

}  // namespace
}  // namespace ndksim::testkit
