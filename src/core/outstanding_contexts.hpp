// SPDX-License-Identifier: MIT
#pragma once
// The verifier's record for rule 17, context-reuse, on one device: a context_ledger per work
// queue that had a request posted while the rule was on, by the queue's id. Completions carry
// that id (completion::queue), so a poll finds the ledger without touching the QP or SRQ,
// which may be closed by then.
//
// Cost: with the verifier off, nothing here runs but new_queue() at QP and SRQ creation: posts
// check the verifier and the rule before calling post(), and a poll with the verifier on calls
// retrieved() only once tracking() is true. With both on, each post and each retrieved
// completion carrying a context takes mutex_ and looks its queue up.
//
// Concurrency: mutex_ guards the ledgers; it is taken by consumer threads posting (any queue)
// and polling (under the CQ's own mutex, which is therefore always taken first), and by the
// destruction of a QP or SRQ. No other lock is taken while it is held.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "core/context_ledger.hpp"

namespace ndksim::core {

class outstanding_contexts {
  public:
    /// A new work queue's id: never 0 (completion::queue's "none") and not reused while the
    /// device lives (2^32 queues would wrap).
    std::uint32_t new_queue() noexcept { return next_.fetch_add(1, std::memory_order_relaxed); }

    /// True once a post has been recorded on this device: polls then pass on what they retrieve.
    bool tracking() const noexcept { return tracking_.load(std::memory_order_relaxed); }

    /// What post() found and did.
    struct posted {
        bool recorded;  ///< false without memory to record it: the request is not tracked
        /// The oldest request still outstanding on the queue with the same context (its call
        /// is nullptr when there is none).
        context_ledger::earlier reused;
    };

    /// A post on `queue` carrying `context` (not null) by `call` (a string literal; `silent`:
    /// NDK_OP_FLAG_SILENT_SUCCESS), recorded before the request reaches the engine, so a
    /// completion retrieved at once finds it.
    posted post(std::uint32_t queue, const void* context, const char* call, bool silent) noexcept;

    /// A post recorded by post() failed inline: forgets it (rule 9: no completion).
    void refused(std::uint32_t queue, const void* context) noexcept;

    /// The consumer retrieved a completion of `queue` carrying `context` (not null).
    void retrieved(std::uint32_t queue, const void* context) noexcept;

    /// The queue is gone (its QP or SRQ destroyed): its ledger is dropped, and completions of
    /// it still queued in a CQ are ignored when retrieved.
    void forget(std::uint32_t queue) noexcept;

  private:
    std::atomic<std::uint32_t> next_{1};
    std::atomic<bool> tracking_{false};
    std::mutex mutex_;
    std::unordered_map<std::uint32_t, context_ledger> ledgers_;
};

}  // namespace ndksim::core
