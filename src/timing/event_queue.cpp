#include "timing/event_queue.hpp"

#include <algorithm>

namespace ndksim::timing {
namespace {

// Children per node of the heap.
constexpr std::size_t k_arity = 4;

}  // namespace

event_queue::event_queue(std::size_t capacity) {
    heap_.reserve(capacity);
    tasks_.reserve(capacity);
    free_.reserve(capacity);
}

void event_queue::push(sim_time when, task fn) {
    std::uint32_t slot = 0;
    if (free_.empty()) {
        slot = static_cast<std::uint32_t>(tasks_.size());
        tasks_.push_back(std::move(fn));
    } else {
        slot = free_.back();
        free_.pop_back();
        tasks_[slot] = std::move(fn);
    }
    // Sift up in a 4-ary heap: half the levels of a binary heap, and the four children of a
    // node share a cache line (24-byte keys), so a pop from a queue of thousands of arrival
    // events (a long message in flight) touches fewer lines.
    const entry e{when, next_seq_++, slot};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
        const std::size_t parent = (i - 1) / k_arity;
        if (!later(heap_[parent], e)) {
            break;
        }
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = e;
}

task event_queue::pop(sim_time& when) {
    const entry top = heap_.front();
    const entry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
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
                if (later(heap_[best], heap_[c])) {
                    best = c;
                }
            }
            if (!later(last, heap_[best])) {
                break;
            }
            heap_[i] = heap_[best];
            i = best;
        }
        heap_[i] = last;
    }
    when = top.when;
    task fn = std::move(tasks_[top.slot]);
    free_.push_back(top.slot);
    return fn;
}

}  // namespace ndksim::timing
