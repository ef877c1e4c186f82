// SPDX-License-Identifier: MIT
#pragma once
// Two threaded adapters, a and b, connected by a listener/connector handshake with private data
// both ways: what the threaded suites share (tests/component/test_rc_threaded.cpp over the
// in-process wire, tests/integration/socket_pair over UDP and TCP). A fixture derives from its
// GoogleTest base and from this class, creates a_.nic and b_.nic (threaded: no loop) the way
// its wire needs, then calls open_and_connect() from SetUp and close_all() from TearDown.
//
//   side a (shape.a_address): PD, CQ, QP, registered buffer, connector  -- Connect -->
//   side b (shape.b_address): PD, CQ, QP, registered buffer, listener   <-- Accept
//
// Every callback comes from an engine thread and records on board_; the test thread waits on
// it with a timeout that fails loudly (board.hpp).

#include <cstddef>
#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/board.hpp"
#include "threaded_pair/completion_slot.hpp"
#include "threaded_pair/pair_side.hpp"

namespace ndksim::threaded {

/// What differs between the pairs built on adapter_pair.
struct pair_shape {
    const char* a_address;     ///< a's IPv4 address; a connects from it
    const char* b_address;     ///< b's IPv4 address; its listener takes the connection
    std::size_t buffer_bytes;  ///< each side's registered buffer
    ULONG queue_depth;         ///< each QP's send and receive queue depth
    const char* hello;         ///< a's private data in NdkConnect
    const char* world;         ///< b's private data in NdkAccept
};

class adapter_pair {
  protected:
    explicit adapter_pair(pair_shape shape);
    ~adapter_pair() = default;

    adapter_pair(const adapter_pair&) = delete;
    adapter_pair& operator=(const adapter_pair&) = delete;

    /// The shape this pair was made with (its addresses, for the adapters' configurations).
    const pair_shape& shape() const noexcept { return shape_; }

    /// With a_.nic and b_.nic created: opens an NDK adapter on each with its PD, CQ (armed),
    /// QP and registered buffer, then connects a to b and checks the private data both sides
    /// read. Stops at the first fatal failure (test setup then fails).
    void open_and_connect();

    /// Closes every object (waiting for each close), checks that neither adapter counts a
    /// leaked or live object, destroys the adapters and frees the buffers. Safe after a setup
    /// that stopped part way.
    void close_all();

    /// a disconnects; once b has heard the disconnect event, b disconnects in turn. Both
    /// disconnects must complete with STATUS_SUCCESS.
    void disconnect_a_then_b();

    /// The final status of a call that may pend: `returned`, or when it is STATUS_PENDING the
    /// status `s` records once its completion came (waiting for it; `what` names it).
    NTSTATUS finish(NTSTATUS returned, completion_slot& s, const char* what);

    /// Closes `o` (any NDK object) and expects its close to succeed.
    void close(NDK_OBJECT_HEADER* o);

    /// Creates an object with `call(on_create, context, &out)` (an NdkCreate* call); returns it,
    /// or nullptr after a reported failure. A pended create delivers its object to the
    /// completion, an inline one through `out`.
    template <class T, class Call>
    T* create(const char* what, Call&& call) {
        completion_slot s{&board_};
        T* out = nullptr;
        const NTSTATUS returned = call(completion_slot::on_create, &s, &out);
        const NTSTATUS final_status = finish(returned, s, what);
        EXPECT_NT_SUCCESS(final_status) << what;
        if (final_status != STATUS_SUCCESS) {
            return nullptr;
        }
        if (returned == STATUS_PENDING) {
            std::lock_guard lock(board_.m);
            out = reinterpret_cast<T*>(s.object);
        }
        return out;
    }

    /// Creates a threaded in-process adapter at `address` (no loop) with the pair's patient CM
    /// timeout and poll policy `policy`; `ack_timeout_us` 0 keeps the library's ACK timeout.
    static void make_inproc_adapter(ndksim_adapter*& nic, const char* address,
                                    ndksim_poll_policy policy = NDKSIM_POLL_BLOCK,
                                    ULONG ack_timeout_us = 0);

    /// a posts `writes` RDMA writes of its buffer's first `length` bytes to the start of b's
    /// buffer, all outstanding at once, then expects each to complete with STATUS_SUCCESS.
    void write_queue_a_to_b(std::size_t writes, ULONG length);

    /// Waits until side `s` has at least `n` completions; returns a copy of all it has.
    std::vector<NDK_RESULT_EX> results(pair_side& s, std::size_t n, const char* what);
    /// Waits until side `s` has `n` completions; returns the n-th (1-based), or an empty
    /// result after a reported timeout.
    NDK_RESULT_EX result(pair_side& s, std::size_t n, const char* what);
    /// The number of completions side `s` has so far.
    std::size_t result_count(pair_side& s);

    board board_;
    pair_side a_;
    pair_side b_;
    NDK_LISTENER* listener_ = nullptr;
    NDK_CONNECTOR* incoming_ = nullptr;  ///< the connector b's listener made (under board_.m)

  private:
    void make_objects(pair_side& s);
    void connect();
    /// NDK_FN_CONNECT_EVENT_CALLBACK of b's listener (`c` is the pair).
    static void on_connect(PVOID c, NDK_CONNECTOR* connector);

    pair_shape shape_;
};

}  // namespace ndksim::threaded
