// SPDX-License-Identifier: MIT
#pragma once
// Frames: fixed-size packet buffers from a per-adapter pool, so the data path never allocates.
//
// Concurrency design: a pool is taken from by one thread only (its adapter's engine), while
// frames come back from any thread (the receiving adapter's engine releases the frames it was
// handed). The free list is therefore a lock-free stack with many pushers and a single popper;
// with one popper the ABA problem cannot occur (a node at the head can only leave through that
// popper). Frames that come back while the popper runs are picked up at its next take().
// The pool grows in blocks when empty, which allocates only until the steady state is reached.
// A pool may be given a steady size: beyond it, growth (a burst, a flood) takes frames one by
// one, and trim() gives those back once they are free again, so a backlog that drained does not
// keep its memory.
// A pool outlives its owner while frames are out: the owner's last reference retires it, and
// the last frame to come back frees it (a frame may sit in another adapter's inbox when its
// sender goes away).
//
// A pool may name the scheduler whose tasks take from it (its adapter's). A frame released by
// a thread that owns that scheduler at the time (scheduler::owned_here: the adapter's engine
// thread, or the thread driving a deterministic loop that adapters share) cannot meet a take,
// so it goes straight back onto the taker's list, with no atomic read-modify-write. Such an
// instruction waits until every earlier store has left the core; right after a packet's
// payload copy into or out of a frame, the pool's exchange, compare-exchange and count waited
// for the copy's stores, a quarter of an in-process 1 MiB write's time (perf record). For the
// same reason the count of frames out moves in steps: the taker counts a step of frames out
// at once and hands them out from its reserve, and frames coming back on the owning thread go
// back into the reserve.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "wire/proto.hpp"

namespace ndksim::timing {
class scheduler;
}

namespace ndksim::wire {

class frame_pool;
class lent_frames;

/// Largest frame: a 4096-byte MTU payload plus every header a packet can carry, with room to
/// spare for the connection-management payload [bytes].
inline constexpr std::size_t k_max_frame_bytes = 4096 + 128;

struct frame {
    std::uint32_t length = 0;   ///< bytes used in data
    ip_address source;          ///< the sender's address, set by the transport on arrival
    std::uint64_t arrival = 0;  ///< simulated arrival time at the receiver [ps] (in-process link)
    /// The socket receiver checked this frame's ICRC over the flow the engine decodes it with
    /// (peer to this adapter), so the engine need not compute it again. Cleared by take().
    bool icrc_checked = false;
    /// The sender left the ICRC word zero: its link carries the frame unchanged to an adapter
    /// of this process (transport::wants_icrc), so there is nothing for the receiver to check.
    /// Whoever needs the word (a capture) computes it (wire::write_icrc) and clears this.
    /// Cleared by take().
    bool icrc_elided = false;
    /// A socket wire read the sender's departure time [ps] from this frame's trailer and set
    /// `arrival` from it. The engine moves its clock to `departure` only once it matched the
    /// frame to a live connection or listener (docs/wire-format.md, "Hostile input").
    /// Cleared by take().
    bool stamped = false;
    std::uint64_t departure = 0;
    /// The in-process link's place for the frame's arrival in the receiver's event order
    /// (scheduler::reserve), while it waits in flight behind earlier frames.
    std::uint64_t arrival_seq = 0;
    /// A lent frame (lent_frames.hpp) carries no copy of its payload: the payload's
    /// `borrowed_size` bytes are the sender's host memory at `borrowed`, and the bytes
    /// data[borrowed_offset, borrowed_offset + borrowed_size) are not written. The engine that
    /// decodes it reads the payload from there; whatever keeps, copies or records the frame
    /// first copies the payload in (wire::materialize). nullptr: the payload is in data.
    /// Cleared by take().
    const std::byte* borrowed = nullptr;
    std::uint32_t borrowed_offset = 0;
    std::uint32_t borrowed_size = 0;
    std::uint32_t lent_psn = 0;     ///< the packet's PSN, while lent
    lent_frames* lender = nullptr;  ///< the list the frame is lent from, or nullptr
    frame* lent_prev = nullptr;     ///< links of that list (owned by it)
    frame* lent_next = nullptr;
    frame* next = nullptr;  ///< free-list link (owned by the pool)
    frame_pool* pool = nullptr;
    bool loose = false;  ///< allocated alone, beyond the pool's steady size (trim() frees it)
    alignas(64) std::byte data[k_max_frame_bytes];
};

class frame_pool {
  public:
    /// `block` is how many frames each growth step allocates, up to `steady` frames in all;
    /// beyond that the pool grows one frame at a time, and trim() frees those frames again.
    /// `owner`, when given, is the scheduler whose owning thread alone takes from the pool (see
    /// above); it must outlive the pool's owner, not the pool.
    static std::shared_ptr<frame_pool> create(std::size_t block = 256,
                                              std::size_t steady = SIZE_MAX,
                                              const timing::scheduler* owner = nullptr);

    frame_pool(const frame_pool&) = delete;
    frame_pool& operator=(const frame_pool&) = delete;
    ~frame_pool();

    /// Takes a frame with length 0. Called only on the owning engine's thread.
    frame* take();

    /// Returns a frame to its pool; any thread.
    static void release(frame* f) noexcept;

    /// Frames allocated and not freed by trim() (steady-state growth shows up here).
    std::size_t allocated() const noexcept { return allocated_.load(std::memory_order_relaxed); }

    /// Frames taken and not yet released; any thread (exact on the owning thread, and
    /// whenever the pool is quiet).
    std::size_t outstanding() const noexcept {
        const std::uint64_t counted = out_.load(std::memory_order_relaxed) & ~k_retired;
        const std::uint64_t reserve = reserve_.load(std::memory_order_relaxed);
        return counted > reserve ? static_cast<std::size_t>(counted - reserve) : 0;
    }

    /// True when the pool holds frames beyond its steady size (free or out).
    bool above_steady() const noexcept { return allocated() > steady_; }

    /// Frees every free frame allocated beyond the steady size and returns how many. Called
    /// only on the owning engine's thread (it pops the free list, as take() does).
    std::size_t trim() noexcept;

  private:
    frame_pool(std::size_t block, std::size_t steady, const timing::scheduler* owner)
        : block_(block), steady_(steady), owner_(owner) {}
    /// True when the calling thread takes from this pool now (owner_ given and owned here).
    bool taker_here() const noexcept;
    void push(frame* f) noexcept;
    void grow();
    void retire() noexcept;

    std::size_t block_;
    std::size_t steady_;
    std::atomic<frame*> returned_{nullptr};  // pushed by any thread
    frame* local_ = nullptr;                 // popped by the owner only
    std::vector<std::unique_ptr<frame[]>> blocks_;
    std::atomic<std::size_t> allocated_{0};
    const timing::scheduler* owner_;
    // Frames counted out and not yet released, plus k_retired once the owner let go. One word,
    // so that exactly one read-modify-write sees "retired and nothing out" and frees the pool.
    // It counts reserve_ frames more than are out (see above).
    static constexpr std::uint64_t k_retired = std::uint64_t{1} << 63;
    std::atomic<std::uint64_t> out_{0};
    // Frames counted in out_ but in the taker's hands: written by the taking thread only
    // (util::single_writer_add), read by outstanding() anywhere and by retire().
    std::atomic<std::uint64_t> reserve_{0};
    static constexpr std::uint64_t k_count_step = 64;  // frames counted out at once
};

}  // namespace ndksim::wire
