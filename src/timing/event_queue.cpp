// SPDX-License-Identifier: MIT
#include "timing/event_queue.hpp"

#include <algorithm>

namespace ndksim::timing {
namespace {

// Children per node of the heap.
constexpr std::size_t k_arity = 4;

}  // namespace

event_queue::event_queue(std::size_t capacity) {
    heap_.reserve(capacity);
    timers_.reserve(capacity);
    free_.reserve(capacity);
    while (chunks_.size() * k_chunk < capacity) {
        add_chunk();
    }
}

void event_queue::add_chunk() {
    const auto base = static_cast<std::uint32_t>(chunks_.size() * k_chunk);
    chunks_.push_back(std::make_unique<task[]>(k_chunk));
    timer_pos_.resize(chunks_.size() * k_chunk, k_not_queued);
    // Lowest slot on top of the free list: a new queue hands out slots in order.
    for (std::uint32_t s = base + k_chunk; s-- > base;) {
        free_.push_back(s);
    }
}

std::uint32_t event_queue::take_slot() {
    if (free_.empty()) {
        add_chunk();
    }
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
}

template <bool Tracked>
void event_queue::insert(std::vector<entry>& heap, const entry& e, std::uint32_t* pos) {
    // Sift up in a 4-ary heap: half the levels of a binary heap, and the four children of a
    // node share a cache line (24-byte keys), so a pop from a queue of thousands of arrival
    // events (a long message in flight) touches fewer lines.
    std::size_t i = heap.size();
    heap.push_back(e);
    while (i > 0) {
        const std::size_t parent = (i - 1) / k_arity;
        if (!later(heap[parent], e)) {
            break;
        }
        heap[i] = heap[parent];
        if constexpr (Tracked) {
            pos[heap[parent].slot] = static_cast<std::uint32_t>(i);
        }
        i = parent;
    }
    heap[i] = e;
    if constexpr (Tracked) {
        pos[e.slot] = static_cast<std::uint32_t>(i);
    }
}

// push() (in the header) adds to the event heap.
template void event_queue::insert<false>(std::vector<entry>& heap, const entry& e,
                                         std::uint32_t* pos);

void event_queue::insert_timer(const entry& e) {
    insert<true>(timers_, e, timer_pos_.data());
}

std::uint32_t event_queue::pop_slot(sim_time& when) noexcept {
    if (&front_heap() == &heap_) {
        return remove_at<false>(heap_, 0, when, nullptr);
    }
    return remove_at<true>(timers_, 0, when, timer_pos_.data());
}

template <bool Tracked>
std::uint32_t event_queue::remove_at(std::vector<entry>& heap, std::size_t index, sim_time& when,
                                     std::uint32_t* pos) noexcept {
    when = heap[index].when;
    const auto slot = static_cast<std::uint32_t>(heap[index].slot);
    if constexpr (Tracked) {
        pos[slot] = k_not_queued;
    }
    // The last entry is read field by field. Copied whole, it went through a 16-byte vector
    // register to the stack and was read back in 8-byte halves, loads that cannot take their
    // data from the wider store: a store-forwarding stall that perf put on a quarter of this
    // function's time.
    const sim_time last_when = heap.back().when;
    const std::uint64_t last_seq = heap.back().seq;
    const std::uint64_t last_slot = heap.back().slot;
    heap.pop_back();
    const std::size_t n = heap.size();
    if (index == n) {
        return slot;  // the last entry itself was removed
    }
    const entry last{last_when, last_seq, last_slot};
    std::size_t i = index;
    // The last entry takes the hole: up while it is earlier than its parent (only in the timer
    // heap, where a cancelled timer can leave the hole anywhere) ...
    if constexpr (Tracked) {
        while (i > 0) {
            const std::size_t parent = (i - 1) / k_arity;
            if (!later(heap[parent], last)) {
                break;
            }
            heap[i] = heap[parent];
            pos[heap[parent].slot] = static_cast<std::uint32_t>(i);
            i = parent;
        }
    }
    // ... else down: at each level the earliest of the (up to four) children moves up while it
    // is earlier than the entry.
    if (i == index) {
        for (;;) {
            const std::size_t first = i * k_arity + 1;
            if (first >= n) {
                break;
            }
            std::size_t best = first;
            const std::size_t end = std::min(first + k_arity, n);
            for (std::size_t c = first + 1; c < end; ++c) {
                if (later(heap[best], heap[c])) {
                    best = c;
                }
            }
            const entry& b = heap[best];
            if (!later(last_when, last_seq, b)) {
                break;
            }
            heap[i] = b;
            if constexpr (Tracked) {
                pos[b.slot] = static_cast<std::uint32_t>(i);
            }
            i = best;
        }
    }
    heap[i] = last;
    if constexpr (Tracked) {
        pos[last_slot] = static_cast<std::uint32_t>(i);
    }
    return slot;
}

bool event_queue::cancel_timer(timer_id slot) noexcept {
    if (!timer_queued(slot)) {
        return false;
    }
    sim_time when = 0;
    (void)remove_at<true>(timers_, timer_pos_[slot], when, timer_pos_.data());
    release(slot);
    return true;
}

void event_queue::release(std::uint32_t slot) noexcept {
    at(slot).reset();
    free_.push_back(slot);
}

task event_queue::pop(sim_time& when) {
    const std::uint32_t slot = pop_slot(when);
    task fn = std::move(at(slot));
    free_.push_back(slot);
    return fn;
}

}  // namespace ndksim::timing
