// SPDX-License-Identifier: MIT
// Every order of the four things that end a connection on one side, driven explicitly in the
// deterministic mode: a's own NdkDisconnect, the peer's disconnect request arriving at a, the
// close of a's connector, and a flush of a's QP (networkdirect-disconnect-scheme.md; REFERENCE.md
// rules 4, 12 and 27). A threaded consumer meets these orders by chance; here each one is
// forced, and each outcome is exact: every request completes once with its documented status,
// the disconnect event comes at most once and never after the consumer's own Disconnect, the
// flush completes what was outstanding once, and nothing leaks.

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

/// One step of an order. Calls return at once; their effects run as engine tasks that only
/// run_one / settle execute, so the position of a call among the steps fixes which of the
/// engine's tasks it precedes.
enum class action : char {
    a_disconnect = 'D',  ///< NdkDisconnect on a's connector
    b_disconnect = 'P',  ///< NdkDisconnect on b's: its request arrives at a as the peer's
    a_close = 'C',       ///< close of a's connector (completion awaited at the end)
    a_flush = 'F',       ///< NdkFlush of a's QP
    run_one = '1',       ///< one engine task
    run_many = '4',      ///< four engine tasks (a request reaching the peer and its answer)
};

struct order {
    const char* name;
    const char* steps;  ///< a string of step characters
    /// Expected outcome. NTSTATUS 0 (success) for a Disconnect that completes inline and
    /// -1 for a Disconnect the order never calls.
    NTSTATUS a_disconnect;
    NTSTATUS b_disconnect;
    int a_events;
    int b_events;
};

constexpr NTSTATUS k_not_called = -1;

void PrintTo(const order& o, std::ostream* os) {
    *os << o.name << " (" << o.steps << ")";
}

class DisconnectOrders : public RcPair, public ::testing::WithParamInterface<order> {
  protected:
    /// The final status of a Disconnect: its inline status, or its completion's.
    struct disconnect_call {
        bool called = false;
        NTSTATUS returned = STATUS_PENDING;
        slot done;
        NTSTATUS final_status() const {
            return returned == STATUS_PENDING ? done.status : returned;
        }
    };

    static void start_disconnect(NDK_CONNECTOR* c, disconnect_call& call) {
        call.called = true;
        call.returned = c->Dispatch->NdkDisconnect(c, slot::on_request, &call.done);
    }
};

TEST_P(DisconnectOrders, EveryRequestCompletesOnceWithItsStatus) {
    const order& o = GetParam();
    // Work outstanding at a when the connection ends: a receive and a send that the flush, or
    // the Disconnect's own flush (rule 12), completes with STATUS_CANCELLED.
    NDK_SGE r = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, reinterpret_cast<PVOID>(1), &r, 1));
    disconnect_call a_call;
    disconnect_call b_call;
    slot a_closed;
    bool a_close_called = false;
    for (const char* p = o.steps; *p != '\0'; ++p) {
        switch (static_cast<action>(*p)) {
            case action::a_disconnect:
                start_disconnect(a_.connector, a_call);
                break;
            case action::b_disconnect:
                start_disconnect(b_.connector, b_call);
                break;
            case action::a_close: {
                a_close_called = true;
                const NTSTATUS s = a_.connector->Dispatch->NdkCloseConnector(
                    &a_.connector->Header, slot::on_close, &a_closed);
                if (s == STATUS_SUCCESS) {
                    a_closed.calls = 1;
                } else {
                    ASSERT_NT_STATUS(STATUS_PENDING, s);
                }
                break;
            }
            case action::a_flush:
                a_.qp->Dispatch->NdkFlush(a_.qp);
                break;
            case action::run_one:
                ndksim_loop_run_one(loop_);
                break;
            case action::run_many:
                for (int i = 0; i < 4; ++i) {
                    ndksim_loop_run_one(loop_);
                }
                break;
        }
    }
    settle();
    if (a_close_called) {
        ASSERT_EQ(1, a_closed.calls) << "a's connector close never completed";
        a_.connector = nullptr;
    }
    for (auto [call, expected, who] :
         {std::tuple{&a_call, o.a_disconnect, "a"}, std::tuple{&b_call, o.b_disconnect, "b"}}) {
        if (expected == k_not_called) {
            continue;
        }
        ASSERT_TRUE(call->called);
        if (call->returned == STATUS_PENDING) {
            EXPECT_EQ(1, call->done.calls) << who << "'s Disconnect completed more than once";
        } else {
            EXPECT_EQ(0, call->done.calls) << who << "'s inline Disconnect also called back";
        }
        EXPECT_NT_STATUS(expected, call->final_status()) << who << "'s Disconnect";
    }
    EXPECT_EQ(o.a_events, a_.disconnect_events);
    EXPECT_EQ(o.b_events, b_.disconnect_events);
    // The receive outstanding at a completed exactly once, cancelled: every order ends the
    // connection or flushes a's QP, and a flush now returns whatever is still outstanding.
    a_.qp->Dispatch->NdkFlush(a_.qp);
    const NDK_RESULT_EX c = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_CANCELLED, c.Status);
    EXPECT_EQ(reinterpret_cast<PVOID>(1), c.RequestContext);
    EXPECT_TRUE(cq_empty(a_.cq)) << "the receive completed more than once";
    // Both sides' posts are refused now: the connection is over whatever the order.
    NDK_SGE s = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, b_.qp->Dispatch->NdkSend(b_.qp, nullptr, &s, 1, 0));
}

// The orders. D: a's Disconnect; P: the peer's (b's) Disconnect; C: a's close; F: a's flush;
// 1: one engine task; 4: four. The peer's request reaches a a few tasks after b's call.
const order k_orders[] = {
    // Disconnect against the peer's request.
    {"LocalThenPeerAfterItLeft", "D1P", STATUS_SUCCESS, STATUS_SUCCESS, 0, 0},
    {"LocalAndPeerCross", "DP", STATUS_SUCCESS, STATUS_SUCCESS, 0, 0},
    {"PeerThenLocalBeforeItArrives", "P1D", STATUS_SUCCESS, STATUS_SUCCESS, 0, 0},
    {"PeerArrivedThenLocal", "P44D", STATUS_SUCCESS, STATUS_SUCCESS, 1, 0},
    // Disconnect against the close of the same connector: the close cancels it (rule 4).
    {"LocalThenCloseBeforeItRuns", "DC", STATUS_CANCELLED, k_not_called, 0, 1},
    {"LocalThenCloseAfterItLeft", "D1C", STATUS_CANCELLED, k_not_called, 0, 1},
    // The peer's request against the close: no event for a connector that is closing.
    {"PeerThenClose", "P1C", k_not_called, STATUS_SUCCESS, 0, 0},
    {"CloseThenPeer", "CP", k_not_called, STATUS_SUCCESS, 0, 0},
    {"PeerArrivedThenClose", "P44C", k_not_called, STATUS_SUCCESS, 1, 0},
    // Flushes in every position (a flush never ends the connection by itself).
    {"FlushThenLocal", "FD", STATUS_SUCCESS, k_not_called, 0, 1},
    {"LocalThenFlush", "DF", STATUS_SUCCESS, k_not_called, 0, 1},
    {"FlushWhilePeerArrives", "P1F", k_not_called, STATUS_SUCCESS, 1, 0},
    {"FlushThenClose", "FC", k_not_called, k_not_called, 0, 1},
    // Both Disconnects on the wire when a closes: a's close answers b's request with a
    // reject, which ends b's Disconnect as the connection ending does (SUCCESS, not an abort).
    {"BothThenCloseOne", "DPC", STATUS_CANCELLED, STATUS_SUCCESS, 0, 0},
    // All four at once.
    {"AllCross", "DPFC", STATUS_CANCELLED, STATUS_SUCCESS, 0, 0},
    {"AllAfterThePeerLeft", "P1DFC", STATUS_CANCELLED, STATUS_SUCCESS, 0, 0},
};

INSTANTIATE_TEST_SUITE_P(Orders, DisconnectOrders, ::testing::ValuesIn(k_orders),
                         [](const ::testing::TestParamInfo<order>& i) { return i.param.name; });

}  // namespace
}  // namespace ndksim::testkit
