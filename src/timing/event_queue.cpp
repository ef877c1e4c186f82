#include "timing/event_queue.hpp"

#include <algorithm>

namespace ndksim::timing {

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
    heap_.push_back(entry{when, next_seq_++, slot});
    std::push_heap(heap_.begin(), heap_.end(), later);
}

task event_queue::pop(sim_time& when) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const entry e = heap_.back();
    heap_.pop_back();
    when = e.when;
    task fn = std::move(tasks_[e.slot]);
    free_.push_back(e.slot);
    return fn;
}

}  // namespace ndksim::timing
