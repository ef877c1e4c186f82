// SPDX-License-Identifier: MIT
#pragma once
// The QP numbers of one adapter: a number is handed out when a QP is created, points at the QP
// once it is built, stops pointing at it when its close is requested, and is given back when
// the QP is destroyed. The engine looks a number up for every received packet.
//
// Concurrency. A lookup takes no lock (no mutex on the per-packet path): it announces itself
// in a reader count, loads the slot and takes a counted reference before it leaves. Detaching
// a slot clears it and then waits until no lookup is in progress, so a lookup that loaded the
// old pointer has its reference by then, and any later lookup loads the cleared slot; the QP
// cannot be freed under a lookup (every access to the count and the slots is sequentially
// consistent, which is what makes "the reader saw the old pointer" imply "the detacher sees
// the reader"). The wait lasts a lookup: a few instructions, unless the reader's thread is
// preempted in between, when the detacher yields its core to it. Handing out and giving back
// numbers (QP creation and destruction only) takes a mutex of its own.

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/intrusive_ptr.hpp>

namespace ndksim::core {

/// QP-number table over objects counted by boost::intrusive_ptr (T is core::qp in the
/// adapter; tests use a small counted type).
template <class T>
class qp_table {
  public:
    /// Numbers 0 and 1 are InfiniBand's special QPs (SMI, GSI/CM); handed-out ones start at 2.
    static constexpr std::uint32_t k_first = 2;

    /// A table of numbers below `capacity` (24-bit on the wire; the adapter uses 2^16).
    explicit qp_table(std::uint32_t capacity)
        : capacity_(capacity), slots_(std::make_unique<std::atomic<T*>[]>(capacity)) {
        for (std::uint32_t i = 0; i < capacity_; ++i) {
            slots_[i].store(nullptr, std::memory_order_relaxed);
        }
    }

    qp_table(const qp_table&) = delete;
    qp_table& operator=(const qp_table&) = delete;

    /// Hands out a number, pointing at nothing yet; 0 when every number is in use. Fresh numbers
    /// go first and given-back ones are reused oldest first, so a late packet for a destroyed
    /// QP does not reach a new QP that happens to get its number.
    [[nodiscard]] std::uint32_t allocate() {
        std::lock_guard lock(numbers_mutex_);
        if (next_ < capacity_) {
            return next_++;
        }
        if (free_.empty()) {
            return 0;
        }
        const std::uint32_t n = free_.front();
        free_.pop_front();
        return n;
    }

    /// Points `n` at `obj`, once it is fully built: packets find it from now on.
    void attach(std::uint32_t n, T* obj) noexcept {
        if (n < capacity_) {
            slots_[n].store(obj, std::memory_order_seq_cst);
        }
    }

    /// Points `n` at nothing, and returns once no lookup can still be taking a reference to
    /// what it pointed at.
    void detach(std::uint32_t n) noexcept {
        if (n >= capacity_) {
            return;
        }
        slots_[n].store(nullptr, std::memory_order_seq_cst);
        while (readers_.load(std::memory_order_seq_cst) != 0) {
            std::this_thread::yield();
        }
    }

    /// Detaches `n` and gives it back for reuse (0 and numbers never handed out are ignored).
    void release(std::uint32_t n) {
        if (n < k_first || n >= capacity_) {
            return;
        }
        detach(n);
        std::lock_guard lock(numbers_mutex_);
        free_.push_back(n);
    }

    /// The object `n` points at, with a reference taken; empty when none. Lock-free; any thread.
    boost::intrusive_ptr<T> find(std::uint32_t n) const noexcept {
        if (n >= capacity_) {
            return {};
        }
        readers_.fetch_add(1, std::memory_order_seq_cst);
        boost::intrusive_ptr<T> found(slots_[n].load(std::memory_order_seq_cst));
        readers_.fetch_sub(1, std::memory_order_seq_cst);
        return found;
    }

    /// Numbers this table can hand out (capacity minus the two special ones).
    std::uint32_t capacity() const noexcept { return capacity_ - k_first; }

  private:
    const std::uint32_t capacity_;
    std::unique_ptr<std::atomic<T*>[]> slots_;
    mutable std::atomic<std::uint32_t> readers_{0};
    std::mutex numbers_mutex_;
    std::deque<std::uint32_t> free_;
    std::uint32_t next_ = k_first;
};

}  // namespace ndksim::core
