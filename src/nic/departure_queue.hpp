// SPDX-License-Identifier: MIT
#pragma once
// Request packets of one QP whose departure the hardware model has fixed and whose frames are
// not built yet (wire::transport::shares_timeline). The requester reserves each packet's turn
// on the port when it issues the message, exactly as for a frame it builds at once, and queues
// the packet here in runs of consecutive packets of one message; a run's frames are built when
// its first packet departs. A deep queue of long messages then keeps a few frames alive instead
// of every frame the port has scheduled (eight 1 MiB writes: 2048 frames, 8.6 MB), and each
// frame is still in the cache when its receiver reads it.
//
// Runs leave in the order they were queued: a QP's packets take the port in order.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/send_queue.hpp"
#include "timing/sim_time.hpp"
#include "wire/transport.hpp"

namespace ndksim::nic {

/// Consecutive packets of one message whose frames are built together.
struct departure_run {
    static constexpr std::uint32_t k_max_packets = 16;

    core::send_wqe* wqe = nullptr;                ///< the message (live until it completes)
    std::shared_ptr<wire::transport::peer> peer;  ///< where its frames go
    std::uint32_t first_packet = 0;               ///< index in the message of the first packet
    std::uint32_t count = 0;                      ///< packets in the run
    /// When the last bit of each packet leaves [ps] (engine::reserve_departure).
    std::array<timing::sim_time, k_max_packets> last_bit{};
    /// Each packet's payload in host memory, found when the message was issued, where it is
    /// one host-contiguous run (nullptr otherwise, and for inline data). The build reads it
    /// from there, without translating again, while the memory unit's generation is still
    /// `generation`: a registration, invalidation or unmapping since then changes it.
    std::array<const std::byte*, k_max_packets> payload{};
    std::uint64_t generation = 0;  ///< the memory unit's, when `payload` was found
};

class departure_queue {
  public:
    /// Queues packet `packet` of `w`, whose last bit leaves at `last_bit` and whose payload
    /// lies at `payload` (departure_run::payload) under the memory unit's `generation`. It
    /// joins the newest run when that run is still open, belongs to `w`, ends just before
    /// `packet`, was found under the same generation and has room; otherwise a new run starts.
    /// Grows its storage when every slot is taken (a new high-water mark), never otherwise.
    void add(core::send_wqe& w, const std::shared_ptr<wire::transport::peer>& peer,
             std::uint32_t packet, timing::sim_time last_bit, const std::byte* payload,
             std::uint64_t generation);

    /// True while a build is scheduled for this queue. The requester keeps one scheduled, at
    /// the oldest run's first departure, whenever a run waits: one event per QP at a time.
    bool build_scheduled() const noexcept { return build_scheduled_; }

    /// Records that a build was scheduled (true) or has started (false).
    void set_build_scheduled(bool scheduled) noexcept { build_scheduled_ = scheduled; }

    /// Closes the newest run: packets queued later start a new one. The requester closes it
    /// when it stops issuing, so that a run's packets all exist before its build runs.
    void close() noexcept { open_ = false; }

    /// True when no run waits.
    bool empty() const noexcept { return size_ == 0; }

    /// The oldest run. Not empty().
    departure_run& front() noexcept { return runs_[head_]; }

    /// Runs queued.
    std::size_t size() const noexcept { return size_; }

    /// Runs ever started in this queue: a request whose packets were just added has all of
    /// them in the runs counted so far (send_wqe::departures_end).
    std::uint64_t runs_started() const noexcept { return started_; }

    /// Runs ever removed (built or dropped): runs_started() - runs_left() == size().
    std::uint64_t runs_left() const noexcept { return left_; }

    /// Removes the oldest run. Not empty().
    void pop_front() noexcept;

    /// Removes every run (their frames will never be built); returns the packets they held.
    std::uint64_t clear() noexcept;

  private:
    void grow();

    std::vector<departure_run> runs_;  // a ring: size_ runs from head_ on
    std::size_t head_ = 0;
    std::size_t size_ = 0;
    std::uint64_t started_ = 0;
    std::uint64_t left_ = 0;
    bool open_ = false;
    bool build_scheduled_ = false;
};

}  // namespace ndksim::nic
