#pragma once
// Two adapters in one deterministic loop, connected by a real listener/connector handshake:
// the starting point of the engine's component tests (public API only).
//
//   side a (10.0.0.1): PD, CQ, QP, a registered 256 KiB buffer   -- Connect -->
//   side b (10.0.0.2): PD, CQ, QP, a registered 256 KiB buffer, listener   <-- Accept
//
// Every wait drives the loop and fails loudly when the awaited event cannot happen.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <ndkpi.h>
#include <ndksim/ndksim.h>

namespace rc {

/// "STATUS_ACCESS_VIOLATION" for messages.
inline std::string name(NTSTATUS s) { return ndksim_status_name(s); }

#define EXPECT_STATUS(expected, actual)                                                  \
    EXPECT_EQ(::rc::name(expected), ::rc::name(actual))
#define ASSERT_STATUS(expected, actual)                                                  \
    ASSERT_EQ(::rc::name(expected), ::rc::name(actual))

/// One request completion (create, request or close), recorded by the static callbacks.
struct slot {
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    NDK_OBJECT_HEADER* object = nullptr;
    static void on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
        auto* self = static_cast<slot*>(c);
        ++self->calls;
        self->status = s;
        self->object = o;
    }
    static void on_request(PVOID c, NTSTATUS s) {
        auto* self = static_cast<slot*>(c);
        ++self->calls;
        self->status = s;
    }
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
    UINT64 address() const { return reinterpret_cast<UINT64>(bytes); }
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
    static void on_disconnect(PVOID c) { ++static_cast<side*>(c)->disconnect_events; }
};

class RcPair : public ::testing::Test {
protected:
    static constexpr std::size_t k_buffer = 256 * 1024;

    void SetUp() override;
    void TearDown() override;

    /// Runs the loop until `pred` holds; fails (and returns false) if the loop runs dry first.
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

    /// Runs the loop until nothing is left.
    void settle() { ndksim_loop_run_until_idle(loop_); }

    /// The next completion of `cq` (driving the loop until there is one).
    NDK_RESULT_EX next(NDK_CQ* cq);

    /// True when `cq` has no completion queued (after the loop ran dry).
    bool cq_empty(NDK_CQ* cq);

    /// Creates adapter, PD, CQ, QP and buffer for one side.
    void make_side(side& s, const char* address);
    /// Registers a buffer of `size` bytes with MR `flags` on side `s`.
    buffer register_buffer(side& s, std::size_t size, ULONG flags);
    void release_buffer(side& s, buffer& b);
    /// Closes one object, driving the loop until its close completed.
    void close(NDK_OBJECT_HEADER* o);
    /// Connects a -> b (listener on b), with private data both ways.
    void connect_pair();

    ndksim_loop* loop_ = nullptr;
    side a_;
    side b_;
    NDK_LISTENER* listener_ = nullptr;
    USHORT port_ = 0;
    NDK_CONNECTOR* incoming_ = nullptr;
    std::string accepted_private_;
    std::string connected_private_;
};

}  // namespace rc
