// SPDX-License-Identifier: MIT
#pragma once
// The two simulated NICs of a run and what connects them, built with the public API only
// (ndkpi.h and ndksim.h): adapter, PD, one registered buffer per side, and for each QP pair a
// CQ and a QP on each side, connected through a listener on side b. The rig also drives the
// simulation: one deterministic loop for both adapters, or their engine threads.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>

#include "options.hpp"

namespace ndksim::perf {

/// Completion counts of one endpoint's CQ, updated by rig::reap.
struct cq_counts {
    std::uint64_t initiator_done = 0;  ///< send, write and read completions
    std::uint64_t received = 0;        ///< receive completions
};

/// One QP of one side.
struct endpoint {
    NDK_CQ* cq = nullptr;
    NDK_QP* qp = nullptr;
    NDK_CONNECTOR* connector = nullptr;
    cq_counts counts;
    std::uint64_t receives_posted = 0;  ///< over the run; minus counts.received: still posted
};

/// One adapter of the run. In a two-process run the peer's side is remote: only its buffer's
/// address and token are known (from the connection's private data).
struct side {
    std::string name;
    ndksim_adapter* nic = nullptr;
    NDK_ADAPTER* adapter = nullptr;
    NDK_PD* pd = nullptr;
    std::byte* buffer = nullptr;  ///< registered, page-aligned, shared by the side's QPs
    std::size_t buffer_size = 0;
    MDL* mdl = nullptr;
    NDK_MR* mr = nullptr;
    UINT32 local_token = 0;
    UINT32 remote_token = 0;
    UINT64 va = 0;  ///< the buffer's address as the peer addresses it
    std::vector<endpoint> eps;

    /// An SGE over [offset, offset + length) of the buffer.
    NDK_SGE sge(std::size_t offset, std::uint64_t length) const;
    UINT64 address() const { return va; }
};

class rig {
  public:
    /// Builds the sides of `o.who` with `buffer_size` bytes each. local: both sides, and
    /// connects `o.qps` QP pairs. client: side a, connected to the server at `o.peer`.
    /// server: side b, listening (accept() takes the client's connections). Throws perf_error
    /// naming the call and status that failed.
    rig(const options& o, std::size_t buffer_size);

    /// Closes every object and destroys the adapters (and the loop).
    ~rig();

    rig(const rig&) = delete;
    rig& operator=(const rig&) = delete;

    side& a() noexcept { return a_; }
    side& b() noexcept { return b_; }
    bool threaded() const noexcept { return loop_ == nullptr; }
    /// Whether side b is in another process (client role).
    bool remote_b() const noexcept { return b_.nic == nullptr; }
    /// The UDP/TCP port the adapters bound (after a search, the one found).
    std::uint16_t port() const noexcept { return port_; }

    /// Server: waits (without a limit: the client starts when it will) for `o.qps` connection
    /// requests and accepts each whose workload matches `o`. A request that does not match is
    /// rejected (the first field that differs is printed) and the wait goes on.
    void accept(const options& o);

    /// Client: disconnects every connection, which tells the server the run is over.
    void disconnect();

    /// Connections whose peer disconnected (or that broke).
    std::uint32_t disconnected() const noexcept { return disconnects_.load(); }

    /// Makes progress once: runs the next simulated event (deterministic), or lets the engine
    /// threads run (threaded): as options::poll says, it yields (spin), or blocks until a CQ
    /// notification or a connection event, or for k_block_slice at most (block), or yields for
    /// the first k_spin_window of a wait and then blocks (spin-then-block). Throws
    /// when the deterministic simulation has nothing left to run, or after 60 s of wall time
    /// without the awaited event (threaded).
    void step(const char* waiting_for);

    /// Steps until pred() holds; the 60 s limit runs from this call.
    template <class Pred>
    void wait(Pred pred, const char* what) {
        begin_wait();
        while (!pred()) {
            step(what);
        }
    }

    /// Steps until pred() holds, however long that takes (threaded mode only).
    template <class Pred>
    void wait_unbounded(Pred pred, const char* what) {
        begin_wait();
        while (!pred()) {
            deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            step(what);
        }
    }

    /// Simulated time of side a [ps] (both sides share it in deterministic mode).
    std::uint64_t now() const noexcept;

    /// Drains `ep`'s CQ into its counts. Throws on a failed completion (its status named).
    void reap(endpoint& ep);

    /// ndksim_adapter_stats_json of `s`.
    static std::string stats_json(const side& s);

    /// The pcap file of side a, if one was asked for.
    const std::string& pcap() const noexcept { return pcap_; }

  private:
    NTSTATUS create_adapter(side& s, const char* address, const options& o, bool first);
    void open_side(side& s, const options& o);
    void open_sockets(const options& o);
    void add_endpoint(side& s, const options& o);
    void listen();
    void connect(std::size_t i);
    void connect_remote(std::size_t i, const options& o);
    void sync_clock();
    void close_endpoints(side& s);
    void close_side(side& s);
    void close(NDK_OBJECT_HEADER* object);
    void teardown() noexcept;
    void begin_wait() noexcept;
    void block() noexcept;
    void wait_synchronized();
    void wake() noexcept;

    // A waiting thread yields this long before it blocks. Short waits (a ping-pong's round
    // trip) thus see the completion as soon as it lands, as a polling consumer would, while a
    // long one (a bandwidth run's window, the server waiting for the client to finish) leaves
    // the CPU to the engine threads, which on a loaded host are otherwise starved by it.
    static constexpr auto k_spin_window = std::chrono::milliseconds(1);
    // The longest a blocked wait sleeps without a wake-up: what is awaited but not announced
    // (a request's completion callback, a byte a write placed) is still seen this soon.
    static constexpr auto k_block_slice = std::chrono::microseconds(500);

    poll_kind poll_;
    bool synchronized_;  ///< --time synchronized: waits go through ndksim_adapter_wait
    ndksim_loop* loop_ = nullptr;
    side a_;
    side b_;
    NDK_LISTENER* listener_ = nullptr;
    std::atomic<NDK_CONNECTOR*> incoming_{nullptr};
    std::chrono::steady_clock::time_point deadline_{};
    std::chrono::steady_clock::time_point spin_until_{};
    bool tearing_down_ = false;
    // Wake-ups of a blocked wait: CQ notifications and connection events, from engine threads.
    std::mutex wake_mutex_;
    std::condition_variable woken_;
    std::uint64_t wakes_ = 0;
    std::string pcap_;
    std::string address_a_;
    std::string address_b_;
    std::uint16_t port_ = 0;
    std::atomic<std::uint32_t> disconnects_{0};
    static VOID on_connect_event(PVOID context, NDK_CONNECTOR* connector);
    static VOID on_disconnect_event(PVOID context);
    static VOID on_cq_notification(PVOID context, NTSTATUS status);
};

}  // namespace ndksim::perf
