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

void event_queue::insert(std::vector<entry>& heap, const entry& e) {
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
        i = parent;
    }
    heap[i] = e;
}

std::uint32_t event_queue::pop_slot(sim_time& when) noexcept {
    const entry top = remove_top(front_heap());
    when = top.when;
    return top.slot;
}

event_queue::entry event_queue::remove_top(std::vector<entry>& heap) noexcept {
    const entry top = heap.front();
    const entry last = heap.back();
    heap.pop_back();
    const std::size_t n = heap.size();
    if (n > 0) {
        // Sift the last entry down from the root: at each level the earliest of the (up to
        // four) children moves up while it is earlier than the entry.
        std::size_t i = 0;
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
            if (!later(last, heap[best])) {
                break;
            }
            heap[i] = heap[best];
            i = best;
        }
        heap[i] = last;
    }
    return top;
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
