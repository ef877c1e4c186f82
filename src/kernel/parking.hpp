// SPDX-License-Identifier: MIT
#pragma once
// A place for threads to sleep until a word they watch changes: the rundown references and push
// locks keep their whole state in the consumer's word, changed with atomic operations, and only
// their waiters need more. A waiter re-checks its condition under the mutex; a thread that
// changed the word calls wake(), which passes through the mutex before notifying, so a waiter
// that checked before the change is already asleep and cannot miss it. wake() skips all that
// while nobody waits; for that shortcut the callers change and read their word with
// sequentially consistent operations, which order the change against the waiter count.

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace ndksim::kernel {

class parking {
  public:
    /// Sleeps until `ready()` (checked under the mutex) holds.
    template <typename Ready>
    void wait(Ready ready) {
        std::unique_lock lock(mutex_);
        waiting_.fetch_add(1, std::memory_order_seq_cst);
        released_.wait(lock, ready);
        waiting_.fetch_sub(1, std::memory_order_seq_cst);
    }

    /// Wakes every waiter to re-check, after a change of the watched word.
    void wake() {
        if (waiting_.load(std::memory_order_seq_cst) == 0) {
            return;
        }
        { const std::lock_guard lock(mutex_); }
        released_.notify_all();
    }

  private:
    std::mutex mutex_;
    std::condition_variable released_;
    std::atomic<int> waiting_{0};
};

}  // namespace ndksim::kernel
