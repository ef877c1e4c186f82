#include "timing/event_queue.hpp"

#include <algorithm>

namespace ndksim::timing {

event_queue::event_queue(std::size_t capacity) {
    heap_.reserve(capacity);
}

void event_queue::push(sim_time when, task fn) {
    heap_.push_back(entry{when, next_seq_++, std::move(fn)});
    std::push_heap(heap_.begin(), heap_.end(), later);
}

task event_queue::pop(sim_time& when) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    entry e = std::move(heap_.back());
    heap_.pop_back();
    when = e.when;
    return std::move(e.fn);
}

}  // namespace ndksim::timing
