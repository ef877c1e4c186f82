// SPDX-License-Identifier: MIT
#pragma once
// Two adapters in one deterministic loop, connected by a real listener/connector handshake:
// the fixture a consumer's test uses to exercise its NDK code against a connected peer, and
// the starting point of ndksim's own component tests (public API only; installed with
// ndksim::testkit).
//
//   side a (10.0.0.1): PD, CQ, QP, a registered 256 KiB buffer   -- Connect -->
//   side b (10.0.0.2): PD, CQ, QP, a registered 256 KiB buffer, listener   <-- Accept
//
// Every wait drives the loop and fails loudly when the awaited event cannot happen.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <ndksim/testkit/ipv4.hpp>
#include <ndksim/testkit/status_assert.hpp>
#include <ndksim/testkit/verifier.hpp>

namespace ndksim::testkit {

/// The port of an IPv4 socket address, in host order.
inline USHORT port_of(const SOCKADDR_IN& s) {
    return static_cast<USHORT>((s.sin_port >> 8) | (s.sin_port << 8));
}

/// "10.0.0.2:49152".
inline std::string text_of(const SOCKADDR_IN& s) {
    const auto* b = reinterpret_cast<const unsigned char*>(&s.sin_addr);
    return std::to_string(b[0]) + "." + std::to_string(b[1]) + "." + std::to_string(b[2]) + "." +
           std::to_string(b[3]) + ":" + std::to_string(port_of(s));
}

/// One request completion (create, request or close), recorded by the static callbacks.
struct slot {
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    NDK_OBJECT_HEADER* object = nullptr;
    /// NDK_FN_CREATE_COMPLETION: counts the call, keeps the status and the object.
    static void on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
        auto* self = static_cast<slot*>(c);
        ++self->calls;
        self->status = s;
        self->object = o;
    }
    /// NDK_FN_REQUEST_COMPLETION: counts the call, keeps the status.
    static void on_request(PVOID c, NTSTATUS s) {
        auto* self = static_cast<slot*>(c);
        ++self->calls;
        self->status = s;
    }
    /// NDK_FN_CLOSE_COMPLETION: counts the call.
    static void on_close(PVOID c) { ++static_cast<slot*>(c)->calls; }
};

/// A page-aligned host buffer, described by an MDL and registered as an MR.
struct buffer {
    std::byte* bytes = nullptr;
    std::size_t size = 0;
    MDL* mdl = nullptr;
    NDK_MR* mr = nullptr;
    UINT32 local_token = 0;
    UINT32 remote_token = 0;
    /// The buffer's address, as a peer names it in an RDMA read or write.
    UINT64 address() const { return reinterpret_cast<UINT64>(bytes); }
    /// An SGE over [offset, offset + length) of the buffer, with its local token.
    NDK_SGE sge(std::size_t offset, ULONG length) const {
        NDK_SGE s{};
        s.VirtualAddress = bytes + offset;
        s.Length = length;
        s.MemoryRegionToken = local_token;
        return s;
    }
};

/// One side of the pair.
struct side {
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* adapter = nullptr;
    NDK_PD* pd = nullptr;
    NDK_CQ* cq = nullptr;
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    buffer buf;
    int disconnect_events = 0;
    /// NDK_FN_DISCONNECT_EVENT_CALLBACK: counts the event.
    static void on_disconnect(PVOID c) { ++static_cast<side*>(c)->disconnect_events; }
};

/// A connection made by RcPair::connect_qps over b's listener, with its disconnect events.
struct link {
    NDK_CONNECTOR* active = nullptr;   ///< on a
    NDK_CONNECTOR* passive = nullptr;  ///< on b (created by the listener)
    int active_events = 0;
    int passive_events = 0;
    /// NDK_FN_DISCONNECT_EVENT_CALLBACK of the active connector: counts the event.
    static void on_active_event(PVOID c) { ++static_cast<link*>(c)->active_events; }
    /// NDK_FN_DISCONNECT_EVENT_CALLBACK of the passive connector: counts the event.
    static void on_passive_event(PVOID c) { ++static_cast<link*>(c)->passive_events; }
};

class RcPair : public ::testing::Test {
  protected:
    static constexpr std::size_t k_buffer = 256 * 1024;

    /// Creates both sides in one deterministic loop and connects them (connect_pair()).
    void SetUp() override;
    /// Closes the tracked objects, runs the teardown functions, closes both sides and checks
    /// that nothing leaked.
    void TearDown() override;

    /// Runs the loop until `pred` holds; fails (and returns false) if the loop runs dry first.
    /// Synchronized (synchronized_): waits for the simulation (ndksim_adapter_wait) until
    /// `pred` holds, and fails the same way when the engine has nothing left to run.
    template <class Pred>
    bool drive(Pred pred, const char* what) {
        while (!pred()) {
            if (!step_once()) {
                ADD_FAILURE() << "the simulation went idle waiting for: " << what;
                return false;
            }
        }
        return true;
    }

    /// One step of the simulation: the loop's next event, or (synchronized) whatever runs
    /// until the consumer is shown something. False when nothing was left to run.
    bool step_once() {
        if (loop_ != nullptr) {
            return ndksim_loop_run_one(loop_) != FALSE;
        }
        if (ndksim_adapter_idle(a_.nic) != FALSE) {
            return false;
        }
        const NTSTATUS s = ndksim_adapter_wait(a_.nic, k_sync_wait_ms);
        EXPECT_NT_SUCCESS(s) << "the simulation showed nothing for " << k_sync_wait_ms << " ms";
        return s == STATUS_SUCCESS;
    }

    /// Runs the loop until nothing is left.
    void settle() {
        if (loop_ != nullptr) {
            ndksim_loop_run_until_idle(loop_);
            return;
        }
        while (step_once()) {
        }
    }

    /// Synchronized: how long one wait for the simulation may take [wall ms].
    static constexpr ULONG k_sync_wait_ms = 30'000;

    /// The next completion of `cq` (driving the loop until there is one).
    NDK_RESULT_EX next(NDK_CQ* cq);

    /// True when `cq` has no completion queued (after the loop ran dry).
    bool cq_empty(NDK_CQ* cq);

    /// Creates adapter, PD, CQ, QP and buffer for one side.
    void make_side(side& s, const char* address);
    /// Registers a buffer of `size` bytes with MR `flags` on side `s`.
    buffer register_buffer(side& s, std::size_t size, ULONG flags);
    /// Deregisters and closes the MR of `b`, frees its MDL and its memory.
    void release_buffer(side& s, buffer& b);
    /// Closes one object, driving the loop until its close completed.
    void close(NDK_OBJECT_HEADER* o);
    /// Connects a -> b (listener on b), with private data both ways.
    void connect_pair();

    // ---- extra objects (closed by TearDown in reverse order of creation, before the pair) --

    /// Records `o` to be closed at teardown.
    void track(NDK_OBJECT_HEADER* o) { tracked_.push_back(o); }
    /// Runs `fn` at teardown, after the tracked objects are closed (e.g. to release a LAM).
    void at_teardown(std::function<void()> fn) { cleanups_.push_back(std::move(fn)); }
    /// Closes a tracked object now (driving the loop) and forgets it.
    void close_tracked(NDK_OBJECT_HEADER* o);
    /// A CQ of `depth` on side `s` with notification `cb(ctx)`.
    NDK_CQ* make_cq(side& s, ULONG depth, NDK_FN_CQ_NOTIFICATION_CALLBACK cb, PVOID ctx);
    /// A QP on side `s` over `cq` (both queues), with an SRQ when `srq` is given.
    NDK_QP* make_qp(side& s, NDK_CQ* cq, NDK_SRQ* srq = nullptr, PVOID context = nullptr);
    /// A connector on side `s`.
    NDK_CONNECTOR* make_connector(side& s);
    /// Connects `aqp` (on a) to `bqp` (on b) through b's listener: Connect, connect event,
    /// Accept, CompleteConnect, all completed with STATUS_SUCCESS. The link stays valid until
    /// teardown; both connectors are tracked. The read limits are each side's (IRD, ORD).
    link& connect_qps(NDK_QP* aqp, NDK_QP* bqp, ULONG a_ird = 8, ULONG a_ord = 8, ULONG b_ird = 8,
                      ULONG b_ord = 8);
    /// The first half of connect_qps: Connect, the connect event and Accept, driven until
    /// Connect completed (expected: STATUS_SUCCESS); nullptr after a reported failure to get
    /// that far. `accepted` records the Accept's completion; the caller calls
    /// NdkCompleteConnect on the link's active connector (a test can change the link first,
    /// e.g. to lose the ready-to-use message).
    link* start_connection(NDK_QP* aqp, NDK_QP* bqp, slot& accepted, ULONG a_ird = 8,
                           ULONG a_ord = 8, ULONG b_ird = 8, ULONG b_ord = 8);
    /// Drives the loop until `s` was called once.
    bool wait(const slot& s, const char* what) {
        return drive([&] { return s.calls >= 1; }, what);
    }

    /// ndksim_adapter_config.rnr_retry_limit of both sides when set (a fixture whose sends must
    /// wait for ever for a receive sets 0xFFFFFFFF in its constructor); otherwise the default.
    std::optional<ULONG> rnr_retry_limit_;
    /// ndksim_adapter_config.rotate_fast_register_tokens of both sides (a fixture that checks
    /// the strict token rotation sets TRUE in its constructor).
    BOOLEAN rotate_fast_register_tokens_ = FALSE;
    /// Set in a fixture's constructor: both sides are threaded adapters in synchronized time
    /// (NDKSIM_TIME_SYNCHRONIZED) instead of adapters on a deterministic loop (loop_ stays
    /// NULL), so the same test body runs on an engine thread with exact simulated time.
    bool synchronized_ = false;
    /// ndksim_adapter_config.verifier of both sides (testkit/verifier.hpp: break unless
    /// NDKSIM_VERIFIER is set; a test of a verifier rule sets NDKSIM_VERIFIER_REPORT).
    ndksim_verifier_mode verifier_ = kit_verifier_mode();
    /// Fault scripts of side a and side b (docs/fault-injection.md; empty: none), set in a
    /// fixture's constructor or before rebuild().
    std::string a_faults_;
    std::string b_faults_;
    /// ndksim_adapter_config.coverage of both sides.
    BOOLEAN coverage_ = FALSE;

    /// Tears the pair down and builds it again from the fixture's settings: a test that checks
    /// a seeded run repeats itself runs it twice.
    void rebuild() {
        TearDown();
        links_.clear();
        incoming_ = nullptr;
        listener_ = nullptr;
        a_ = side{};
        b_ = side{};
        SetUp();
    }

    ndksim_loop* loop_ = nullptr;
    side a_;
    side b_;
    NDK_LISTENER* listener_ = nullptr;
    USHORT port_ = 0;
    NDK_CONNECTOR* incoming_ = nullptr;
    std::string accepted_private_;
    std::string connected_private_;
    std::vector<NDK_OBJECT_HEADER*> tracked_;
    std::vector<std::function<void()>> cleanups_;
    std::deque<link> links_;
};

}  // namespace ndksim::testkit
