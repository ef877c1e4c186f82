// SPDX-License-Identifier: MIT
#pragma once
// The QP context (QPC) cache model: the NIC keeps the transport state of a limited number of
// QPs on chip and fetches the others' from host memory over PCIe (the profile's
// nic.qpc_cache_entries and nic.qpc_miss_ns). Fully associative, least recently used: a
// workload that cycles over more QPs than the cache holds misses on every access, one over
// fewer misses only on each QP's first. Like the translation cache it is a cost model: it
// decides whether an access pays qpc_miss_ns, never what the engine does.
//
// The engine touches it once per received RC frame (before the receive pipeline places it)
// and once per requester run that issues work (before the WQEs are fetched); docs/timing.md
// lists where the miss is charged.
//
// Entries are not dropped when a QP goes: core::device hands out every fresh QP number before
// it reuses one, so a stale entry can only make the first access of a reused number a hit.
//
// Storage is sized at construction (one slot per entry and one index per QP number), so a
// touch never allocates. Touched only from the engine's tasks (one at a time); the counters
// are atomics written by that single writer and readable from any thread.

#include <atomic>
#include <cstdint>
#include <vector>

namespace ndksim::nic {

class qp_context_cache {
  public:
    /// A cache of `entries` QP contexts for QP numbers below `qp_numbers`; more entries than
    /// QP numbers are never used. 0 entries: every access misses.
    qp_context_cache(std::uint32_t entries, std::uint32_t qp_numbers);

    qp_context_cache(const qp_context_cache&) = delete;
    qp_context_cache& operator=(const qp_context_cache&) = delete;

    /// Records an access to the context of QP `qpn`. Returns true on a hit; a miss makes the
    /// context the most recently used one, evicting the least recently used when full. A QP
    /// number out of range always misses.
    bool touch(std::uint32_t qpn) noexcept;

    /// Contexts the cache holds at most.
    std::uint32_t capacity() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }

    std::uint64_t hits() const noexcept { return hits_.load(std::memory_order_relaxed); }
    std::uint64_t misses() const noexcept { return misses_.load(std::memory_order_relaxed); }

  private:
    static constexpr std::uint32_t k_none = 0xFFFFFFFFu;

    // A doubly linked recency list over the slots: head_ most, tail_ least recently used.
    struct slot {
        std::uint32_t qpn = k_none;
        std::uint32_t newer = k_none;
        std::uint32_t older = k_none;
    };

    void unlink(std::uint32_t s) noexcept;
    void push_front(std::uint32_t s) noexcept;

    std::vector<slot> slots_;
    std::vector<std::uint32_t> slot_of_;  // per QP number: its slot, or k_none
    std::uint32_t used_ = 0;              // slots filled so far (they fill in order)
    std::uint32_t head_ = k_none;
    std::uint32_t tail_ = k_none;
    // Written by the engine's tasks only (util::single_writer_add); read from any thread.
    std::atomic<std::uint64_t> hits_{0};
    std::atomic<std::uint64_t> misses_{0};
};

}  // namespace ndksim::nic
