// SPDX-License-Identifier: MIT
#pragma once
// One side of a loopback connection: a threaded simulated NIC with one NDK_ADAPTER handle and
// the object tree a small NDK consumer needs (PD, CQ, QP, a registered buffer, a memory window,
// a connector, a listener). Written against the public API only (ndkpi.h + ndksim.h).
//
// Every call that may pend is waited for on a condition variable with the endpoint's timeout
// (never a sleep), so a peer that vanishes turns into a status, not a hang. The buffer holds a
// data area (the part a peer may reach through the window or the region) followed by message
// slots: receive slots the endpoint keeps posted and send slots for outgoing messages.

#include <ndkpi.h>
#include <ndksim/ndksim.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loopback/protocol.hpp"

namespace ndksim::loopback {

struct endpoint_options {
    std::string name = "nic";
    std::string address = "127.0.0.1";
    ndksim_wire wire = NDKSIM_WIRE_UDP;
    std::uint16_t port = 4791;  ///< the wire's UDP/TCP port
    std::string pcap;           ///< non-empty: record frames to this file
    std::uint64_t data_size = 64 * 1024;
    std::chrono::milliseconds timeout{10000};  ///< bound on every wait
    ULONG ack_timeout_us = 0;                  ///< 0: the adapter's default
    ULONG retry_limit = 0;                     ///< 0: the adapter's default
    /// How the engine thread and next() wait: NDKSIM_POLL_SPIN polls the CQ without sleeping,
    /// NDKSIM_POLL_BLOCK sleeps until the CQ's notification, NDKSIM_POLL_SPIN_THEN_BLOCK polls
    /// for k_spin_window first, NDKSIM_POLL_CONSUMER polls and runs the adapter's engine
    /// between looks (every wait of the endpoint does).
    ndksim_poll_policy poll = NDKSIM_POLL_BLOCK;
    /// How simulated time runs (docs/timing.md): NDKSIM_TIME_SYNCHRONIZED gives the NIC
    /// model's exact figures across the two processes; NDKSIM_TIME_VIRTUAL ties it to the wall
    /// clock.
    ndksim_time_mode time_mode = NDKSIM_TIME_VIRTUAL;
    /// Synchronized time: wall time without a sync record after which the peer process is lost
    /// and the connections to it fail [ms]; 0: the adapter's default (5000).
    unsigned peer_silence_ms = 0;
};

class endpoint {
  public:
    static constexpr unsigned k_receive_slots = 16;
    /// How long next() polls before it sleeps, with NDKSIM_POLL_SPIN_THEN_BLOCK.
    static constexpr std::chrono::milliseconds k_spin_window{1};
    static constexpr unsigned k_send_slots = 4;

    explicit endpoint(endpoint_options options);
    ~endpoint();
    endpoint(const endpoint&) = delete;
    endpoint& operator=(const endpoint&) = delete;

    /// Creates the adapter and every object but the connection's. Returns the first failure.
    NTSTATUS open();
    /// Listens on the adapter's address at ND port `nd_port`.
    NTSTATUS listen(std::uint16_t nd_port);
    /// Waits for a connection request, reads its private data into *peer_data and accepts it
    /// with `private_data`; posts every receive slot first.
    NTSTATUS accept(std::span<const std::byte> private_data, std::vector<std::byte>* peer_data);
    /// Connects to `peer`:`nd_port` with `private_data`; *peer_data gets the accept's.
    NTSTATUS connect(const std::string& peer, std::uint16_t nd_port,
                     std::span<const std::byte> private_data, std::vector<std::byte>* peer_data);

    /// Binds the window over [offset, offset + length) of the data area with remote read and
    /// write, waits for the bind's completion and returns its token in *token.
    NTSTATUS bind_window(std::uint64_t offset, std::uint64_t length, std::uint32_t* token);

    NTSTATUS post_write(std::uint64_t offset, ULONG length, std::uint64_t remote_address,
                        std::uint32_t token, ULONG flags = 0);
    NTSTATUS post_read(std::uint64_t offset, ULONG length, std::uint64_t remote_address,
                       std::uint32_t token, ULONG flags = 0);
    /// A send of `length` bytes of the data area starting at `offset`.
    NTSTATUS post_send(std::uint64_t offset, ULONG length, ULONG flags = 0);
    /// Sends `m` from a send slot; with `invalidate`, by NdkSendAndInvalidate of that token.
    NTSTATUS send_message(const message& m, std::optional<std::uint32_t> invalidate = {},
                          ULONG flags = 0);
    /// Sends `m` followed by `payload_length` bytes of the pattern `m.seed` (one SGE each).
    NTSTATUS send_message_with_payload(const message& m, std::uint64_t payload_offset,
                                       ULONG payload_length);

    /// The next completion of the CQ, waiting up to the timeout; nothing on timeout, or (with
    /// `until_disconnect`) as soon as the CQ is empty and the peer has disconnected. `wait`
    /// replaces the endpoint's timeout for this call.
    std::optional<NDK_RESULT_EX> next(bool until_disconnect = false,
                                      std::optional<std::chrono::milliseconds> wait = {});
    /// The next completion of `type` (earlier ones of other types are kept for next()).
    std::optional<NDK_RESULT_EX> next_of(NDK_OPERATION_TYPE type);
    /// The message a receive completion delivered (nullptr if it is not one of our slots).
    const message* received(const NDK_RESULT_EX& r) const;
    /// The bytes a receive completion delivered after its message header.
    std::span<const std::uint8_t> received_payload(const NDK_RESULT_EX& r) const;
    /// Posts the receive slot of a receive completion again.
    NTSTATUS repost(const NDK_RESULT_EX& r);

    /// Graceful disconnect; waits for its completion. STATUS_SUCCESS if already disconnected.
    NTSTATUS disconnect();
    /// Waits until the peer's disconnect event fired; false on timeout.
    bool wait_peer_disconnect();
    bool peer_disconnected() const;
    /// Closes every object and the handle, destroys the adapter. Returns the leaked objects.
    ULONG close();

    std::uint8_t* data() { return buffer_; }
    std::uint64_t data_size() const { return options_.data_size; }
    std::uint32_t mr_remote_token() const;
    std::uint64_t now_ps() const;
    /// Frames the adapter's engine has received so far: it grows while the peer is alive,
    /// even when the peer only does one-sided writes.
    std::uint64_t frames_received() const;
    ndksim_adapter* nic() { return nic_; }
    const endpoint_options& options() const { return options_; }
    /// A sentence naming the last failure of a setup or connection call.
    const std::string& error() const { return error_; }

  private:
    struct waiter;
    class pending;
    template <class Fn>
    NTSTATUS create(const char* what, NDK_OBJECT_HEADER** out, Fn&& call);
    NTSTATUS request(const char* what, NTSTATUS started, waiter& w);
    NTSTATUS fail(const char* what, NTSTATUS s);
    bool wait_until(auto&& predicate);
    void close_object(NDK_OBJECT_HEADER* object);
    NDK_SGE sge(std::uint64_t buffer_offset, ULONG length) const;
    std::uint64_t slot_offset(unsigned slot) const;
    NTSTATUS post_receive_slot(unsigned slot);

    static void on_create(PVOID ctx, NTSTATUS s, NDK_OBJECT_HEADER* o);
    static void on_request(PVOID ctx, NTSTATUS s);
    static void on_close(PVOID ctx);
    static void on_cq(PVOID ctx, NTSTATUS s);
    static void on_connect_event(PVOID ctx, NDK_CONNECTOR* c);
    static void on_disconnect_event(PVOID ctx);

    endpoint_options options_;
    std::string error_;

    mutable std::mutex mutex_;
    std::list<waiter> waiters_;  // every create, request and close not yet finished
    std::condition_variable changed_;
    std::uint64_t cq_events_ = 0;
    NDK_CONNECTOR* incoming_ = nullptr;
    bool peer_disconnected_ = false;

    ndksim_adapter* nic_ = nullptr;
    NDK_ADAPTER* adapter_ = nullptr;
    NDK_PD* pd_ = nullptr;
    NDK_CQ* cq_ = nullptr;
    NDK_QP* qp_ = nullptr;
    NDK_MR* mr_ = nullptr;
    NDK_MW* mw_ = nullptr;
    NDK_LISTENER* listener_ = nullptr;
    NDK_CONNECTOR* connector_ = nullptr;
    MDL* mdl_ = nullptr;
    std::uint8_t* buffer_ = nullptr;
    std::uint64_t buffer_size_ = 0;
    bool registered_ = false;
    bool connected_ = false;
    unsigned next_send_slot_ = 0;
    std::deque<NDK_RESULT_EX> stash_;
};

}  // namespace ndksim::loopback
