// SPDX-License-Identifier: MIT
#pragma once
// A QP's initiator (send) queue: a ring of work-request slots sized at QP creation, each with
// room for the QP's SGE limit and inline size, so posting never allocates (the fast-register
// page list reuses its slot's buffer, which grows only the first time a slot sees a larger
// list). The consumer serializes posts per queue (REFERENCE.md rule 8); the engine consumes.
//
// Concurrency: the consumer thread writes slots at `tail` and publishes them by advancing
// tail_ (release); the engine reads up to tail_ (acquire), and frees slots by advancing head_
// (release) once their completion is queued. Each side writes only its own index.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/work_request.hpp"
#include "mem/access.hpp"
#include "mem/ids.hpp"
#include "util/status.hpp"

namespace ndksim::core {

/// Work-request kinds of the initiator queue.
enum class wr_kind : std::uint8_t {
    send,
    send_invalidate,
    write,
    read,
    bind,
    fast_register,
    invalidate_region,
    invalidate_window,
};

/// True for the kinds that act on local memory state only and put nothing on the wire (Bind,
/// FastRegister, Invalidate): the requester executes them in queue order and sends no packet.
constexpr bool is_local(wr_kind k) noexcept {
    return k == wr_kind::bind || k == wr_kind::fast_register || k == wr_kind::invalidate_region ||
           k == wr_kind::invalidate_window;
}

/// The NDK_OPERATION_TYPE a kind completes with (the sender of SendAndInvalidate sees Send).
op_type completion_type(wr_kind k) noexcept;

/// NDK_OP_FLAG_* bits the engine acts on (REFERENCE.md 2.3); src/api checks them against
/// ndkpi.h with static_assert.
namespace op_flag {
inline constexpr std::uint32_t silent_success = 0x001;
inline constexpr std::uint32_t read_fence = 0x002;
inline constexpr std::uint32_t solicit_event = 0x004;
inline constexpr std::uint32_t inline_data = 0x040;
inline constexpr std::uint32_t read_local_invalidate = 0x100;
inline constexpr std::uint32_t defer = 0x200;
}  // namespace op_flag

struct send_wqe {
    wr_kind kind = wr_kind::send;
    std::uint32_t flags = 0;
    void* context = nullptr;
    std::uint32_t sge_count = 0;
    sge* sges = nullptr;               ///< slot storage (max SGE entries)
    std::byte* inline_data = nullptr;  ///< slot storage (inline size bytes)
    std::uint64_t length = 0;          ///< message bytes
    std::uint64_t remote_address = 0;  ///< write/read target
    std::uint32_t remote_token = 0;  ///< write/read target; SendAndInvalidate: token to invalidate
    // Local operations (bind, fast-register, invalidate).
    mem::region_id region = mem::region_id::none;
    mem::window_id window = mem::window_id::none;
    std::uint64_t local_va = 0;
    std::uint64_t local_length = 0;
    std::uint32_t fbo = 0;
    mem::access rights = mem::access::none;
    std::uint32_t issued_token = 0;    ///< token the post half of bind/fast-register issued
    std::vector<std::uint64_t> pages;  ///< fast-register page list (slot-owned buffer)
    // Engine progress.
    std::uint32_t first_psn = 0;
    std::uint32_t packets = 0;  ///< PSNs this request occupies on the wire
    std::uint64_t placed = 0;   ///< read: response bytes placed so far
    std::uint32_t resume = 0;   ///< next packet index to (re)transmit
    std::uint32_t sent_to = 0;  ///< packets [0, sent_to) have left at least once
    /// Frames built at departure: the engine's departure queue holds this request's packets
    /// only in runs it started before this count (nic::departure_queue::runs_started).
    std::uint64_t departures_end = 0;
    std::uint32_t acked = 0;    ///< send/write: packets the peer acknowledged inside the message
    bool read_counted = false;  ///< read: counted in the outstanding reads
    bool started = false;       ///< requester has assigned its PSNs
    bool done = false;          ///< finished (result final); completes in queue order
    bool lent = false;          ///< the engine lent a frame of it (nic: wire/lent_frames.hpp)
    status result = status::success;
    std::uint32_t provider_error = 0;  ///< NDK_RESULT_EX.ProviderErrorCode of a failure
    std::uint64_t posted_at = 0;       ///< simulated time of the post [ps] (latency statistics)
};

class send_queue {
  public:
    /// A queue of `depth` slots, each with `max_sge` SGEs and `inline_size` inline bytes.
    send_queue(std::uint32_t depth, std::uint32_t max_sge, std::uint32_t inline_size);

    std::uint32_t depth() const noexcept { return depth_; }
    std::uint32_t max_sge() const noexcept { return max_sge_; }
    std::uint32_t inline_size() const noexcept { return inline_size_; }

    /// Consumer side: the slot the next post fills, or nullptr when the queue is full. The
    /// slot is reset to defaults (its storage pointers kept).
    send_wqe* prepare() noexcept;

    /// Consumer side: publishes the prepared slot.
    void publish() noexcept {
        tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

    /// Engine side: requests posted (published) and not yet retired.
    std::uint32_t outstanding() const noexcept {
        return static_cast<std::uint32_t>(tail_.load(std::memory_order_acquire) -
                                          head_.load(std::memory_order_relaxed));
    }

    /// Engine side: the i-th outstanding request (0 = oldest).
    send_wqe& at(std::uint32_t i) noexcept {
        return slots_[(head_.load(std::memory_order_relaxed) + i) % depth_];
    }

    /// Engine side: requests retired since the queue was created, which is also the position
    /// of at(0) counted from the first request ever posted.
    std::uint64_t retired() const noexcept { return head_.load(std::memory_order_relaxed); }

    /// Engine side: retires the oldest request (its completion has been queued).
    void retire() noexcept {
        head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }

  private:
    std::uint32_t depth_;
    std::uint32_t max_sge_;
    std::uint32_t inline_size_;
    std::vector<send_wqe> slots_;
    std::unique_ptr<sge[]> sge_storage_;
    std::unique_ptr<std::byte[]> inline_storage_;
    std::atomic<std::uint64_t> head_{0};
    std::atomic<std::uint64_t> tail_{0};
};

}  // namespace ndksim::core
