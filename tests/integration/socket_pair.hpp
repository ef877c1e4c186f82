#pragma once
// Two threaded adapters, 127.0.0.1 (a) and 127.0.0.2 (b), on a UDP or TCP wire, connected by a
// listener/connector handshake with private data both ways. Every callback comes from an
// engine thread; the test waits on a condition variable with a timeout that fails loudly.
//
// Ports: ctest runs the tests of one executable in parallel processes, and other suites may run
// at the same time, so the pair starts from a port derived from the process id and moves on
// while adapter creation answers STATUS_ADDRESS_ALREADY_EXISTS.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::integration {

using testkit::buffer;

/// Everything the callbacks record, under one mutex, and the condition variable tests wait on.
struct board {
    std::mutex m;
    std::condition_variable cv;

    /// Waits until pred() (evaluated under the mutex) holds; fails naming `what` on timeout.
    template <class Pred>
    bool wait(Pred pred, const char* what) {
        std::unique_lock lock(m);
        if (!cv.wait_for(lock, std::chrono::seconds(30), pred)) {
            ADD_FAILURE() << "timed out after 30 s waiting for: " << what;
            return false;
        }
        return true;
    }
};

/// A request, create or close completion.
struct done_slot {
    board* b = nullptr;
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    NDK_OBJECT_HEADER* object = nullptr;
    static void on_request(PVOID c, NTSTATUS s);
    static void on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o);
    static void on_close(PVOID c) { on_request(c, STATUS_SUCCESS); }
};

/// One adapter with a PD, a CQ drained from its notification, a QP and a registered buffer.
struct pair_side {
    board* b = nullptr;
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* adapter = nullptr;
    NDK_PD* pd = nullptr;
    NDK_CQ* cq = nullptr;
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    std::vector<NDK_MW*> windows;
    buffer buf;
    std::vector<NDK_RESULT_EX> results;  // under b->m
    int disconnect_events = 0;           // under b->m
    static void on_cq(PVOID c, NTSTATUS s);
    static void on_disconnect(PVOID c);
};

class SocketPair : public ::testing::TestWithParam<ndksim_wire> {
  protected:
    static constexpr std::size_t k_buffer = 4 * 1024 * 1024;

    void SetUp() override;
    void TearDown() override;

    /// Creates the two adapters on a free port (see above); false after a reported failure.
    bool create_adapters();
    void make_objects(pair_side& s);
    void connect();

    /// Waits for a request's completion when it pended; returns the final status.
    NTSTATUS finish(NTSTATUS returned, done_slot& s, const char* what);
    void close(NDK_OBJECT_HEADER* o);

    /// Waits until side `s` has `n` completions; returns the n-th (1-based).
    NDK_RESULT_EX result(pair_side& s, std::size_t n, const char* what);
    /// The number of completions side `s` has so far.
    std::size_t result_count(pair_side& s);

    /// a writes `length` bytes of a_.buf[src] to (address, token) at b; the completion status.
    NTSTATUS write_from_a(std::size_t src, ULONG length, UINT64 address, UINT32 token,
                          ULONG flags = 0);

    /// Creates an MW on b and binds it over b_.buf[offset, offset + length); its token.
    UINT32 bind_window_on_b(std::size_t offset, SIZE_T length, NDK_MW*& mw);

    board board_;
    pair_side a_;
    pair_side b_;
    NDK_LISTENER* listener_ = nullptr;
    NDK_CONNECTOR* incoming_ = nullptr;  // under board_.m
    USHORT port_ = 0;
};

/// "Udp" / "Tcp" for test names.
std::string wire_name(const ::testing::TestParamInfo<ndksim_wire>& info);

/// Fills `n` bytes at `p` with a pattern depending on `seed`.
void fill(std::byte* p, std::size_t n, unsigned seed);

}  // namespace ndksim::integration
