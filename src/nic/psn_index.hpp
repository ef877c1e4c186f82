// SPDX-License-Identifier: MIT
#pragma once
// Which outstanding request of a QP holds a PSN, in O(1): the completer looks up the request of
// every ACK, NAK and read response, and a scan of the initiator queue made that cost grow with
// the number of requests in flight.
//
// A ring indexed by PSN (modulo its size) holds, for each PSN the requester handed out, the
// position of the request that took it (counted from the first request ever posted, so a
// position names one request for the queue's lifetime, unlike a slot, which is reused). A
// ring entry is only a hint: find() returns the request only while it is still in the queue,
// started, not finished and its PSN range holds the PSN, so a stale entry finds nothing, which
// is also the right answer for a PSN no live request holds. Retired slots are never read: a
// posting thread may be rewriting them. Exactness needs the ring to be larger than the PSN
// span of the live requests: when recording a PSN would overwrite the entry of a live
// request, the ring doubles and every live request is recorded again. Growth allocates; a
// steady workload reaches its size once, and nothing is allocated per packet. Engine thread
// only, like the rest of qp_context.

#include <cstdint>
#include <vector>

#include "core/send_queue.hpp"
#include "wire/proto.hpp"

namespace ndksim::nic {

class psn_index {
  public:
    /// Records that the request at `sq.at(i)` (started, first_psn and packets set) holds its
    /// PSN range.
    void record(core::send_queue& sq, std::uint32_t i) {
        if (sq.at(i).packets == 0) {
            return;
        }
        if (ring_.empty()) {
            ring_.assign(k_initial_size, k_empty);
        }
        if (!record_range(sq, i)) {
            grow(sq);
        }
    }

    /// The live request of `sq` whose PSN range holds `psn`, or nullptr.
    core::send_wqe* find(core::send_queue& sq, std::uint32_t psn) const noexcept {
        if (ring_.empty()) {
            return nullptr;
        }
        core::send_wqe* w = outstanding_at(sq, ring_[psn & mask()]);
        return w != nullptr && holds(*w, psn) ? w : nullptr;
    }

    /// Entries of the ring (tests).
    std::size_t size() const noexcept { return ring_.size(); }

  private:
    static constexpr std::size_t k_initial_size = 64;
    static constexpr std::uint64_t k_empty = UINT64_MAX;

    std::uint32_t mask() const noexcept { return static_cast<std::uint32_t>(ring_.size() - 1); }

    // The request at `position` while it is still in the queue, else nullptr.
    static core::send_wqe* outstanding_at(core::send_queue& sq, std::uint64_t position) noexcept {
        const std::uint64_t index = position - sq.retired();  // wraps high for retired ones
        return position != k_empty && index < sq.outstanding()
                   ? &sq.at(static_cast<std::uint32_t>(index))
                   : nullptr;
    }

    static bool live(const core::send_wqe& w) noexcept { return w.started && !w.done; }

    static bool holds(const core::send_wqe& w, std::uint32_t psn) noexcept {
        const std::int32_t offset = wire::psn_diff(psn, w.first_psn);
        return live(w) && offset >= 0 && offset < static_cast<std::int32_t>(w.packets);
    }

    // True when a live request other than the one at `position` still needs `slot`: one of
    // its PSNs maps there.
    bool taken_by_other(core::send_queue& sq, std::uint32_t slot,
                        std::uint64_t position) const noexcept {
        if (ring_[slot] == position) {
            return false;
        }
        const core::send_wqe* old = outstanding_at(sq, ring_[slot]);
        if (old == nullptr || !live(*old)) {
            return false;
        }
        return old->packets > mask() || ((slot - old->first_psn) & mask()) < old->packets;
    }

    // Writes the PSNs of the request at sq.at(i); false (with part of them written) when that
    // would overwrite a live request's entry.
    bool record_range(core::send_queue& sq, std::uint32_t i) noexcept {
        const core::send_wqe& w = sq.at(i);
        const std::uint64_t position = sq.retired() + i;
        if (w.packets > mask()) {
            return false;
        }
        for (std::uint32_t k = 0; k < w.packets; ++k) {
            const std::uint32_t slot = (w.first_psn + k) & mask();
            if (taken_by_other(sq, slot, position)) {
                return false;
            }
            ring_[slot] = position;
        }
        return true;
    }

    // Doubles the ring until every live request of `sq` fits without overlap.
    void grow(core::send_queue& sq) {
        for (std::size_t size = ring_.size() * 2;; size *= 2) {
            ring_.assign(size, k_empty);
            bool fits = true;
            const std::uint32_t outstanding = sq.outstanding();
            for (std::uint32_t i = 0; i < outstanding && fits; ++i) {
                const core::send_wqe& w = sq.at(i);
                if (live(w) && w.packets > 0) {
                    fits = record_range(sq, i);
                }
            }
            if (fits) {
                return;
            }
        }
    }

    std::vector<std::uint64_t> ring_;  // size a power of two, or empty before the first PSN
};

}  // namespace ndksim::nic
