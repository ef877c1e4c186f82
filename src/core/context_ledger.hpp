// SPDX-License-Identifier: MIT
#pragma once
// The outstanding requests of one work queue (a QP's initiator or receive queue, or an SRQ)
// by RequestContext: the verifier's record for rule 17, context-reuse (docs/verifier.md).
//
// The RequestContext is how the consumer tells its completions apart: NDK_RESULT carries it
// back and nothing else names the request (REFERENCE.md 3, NDK_RESULT.RequestContext). A
// request is outstanding from its post until the consumer retrieves its completion; reusing
// its context before then makes two completions the consumer cannot tell apart. Exactly:
//  - a post that returns success is recorded (rule 9: it will produce one completion, unless
//    it is a successful SILENT_SUCCESS request); a post that fails inline is not (no
//    completion);
//  - a request stops being outstanding when the consumer retrieves a completion carrying its
//    context from this queue (NdkGetCqResults or NdkGetCqResultsEx; a flush's
//    STATUS_CANCELLED completion counts like any other, rule 12);
//  - a SILENT_SUCCESS request that succeeds never completes, so it stops being outstanding when
//    the consumer retrieves the completion of a request posted after it on the same queue: a
//    queue's requests complete in the order they were posted (the InfiniBand work-queue order
//    the engine keeps, nic/completer.cpp complete_in_order), so a later completion proves the
//    silent request finished. One that fails completes with its error and leaves as above.
//
// Storage: the posting order in a ring of entries, and a count per context in an
// open-addressing table (linear probing, backward-shift deletion). Both double when full and
// never shrink, so once a queue has reached its usual number of outstanding requests, a post
// and a retrieval allocate nothing. A retrieval scans the ring from its oldest entry to the
// request it completes; in posting order that request is the oldest one not silent, so the scan
// passes only over silent requests it retires anyway.
//
// Not thread-safe: outstanding_contexts locks around every call.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ndksim::core {

class context_ledger {
  public:
    /// The oldest outstanding request carrying `context`: the call that posted it (nullptr
    /// when none is outstanding) and whether it was posted with SILENT_SUCCESS.
    struct earlier {
        const char* call;
        bool silent;
    };
    earlier outstanding(const void* context) const noexcept;

    /// Records a request posted with `context` (not null) by `call` (a string literal);
    /// `silent`: posted with NDK_OP_FLAG_SILENT_SUCCESS. Throws std::bad_alloc when growing.
    void post(const void* context, const char* call, bool silent);

    /// Forgets the newest outstanding request carrying `context`: its post failed inline, so
    /// it will never complete (rule 9).
    void refused(const void* context) noexcept;

    /// The consumer retrieved a completion carrying `context` from this queue: the oldest
    /// outstanding request carrying it, and every silent request posted before that one, stop
    /// being outstanding. Nothing happens when no request carries `context` (one posted while
    /// the rule was off).
    void retrieved(const void* context) noexcept;

    /// Number of outstanding requests.
    std::size_t size() const noexcept { return live_; }

  private:
    struct entry {
        const void* context;  // nullptr once the request stopped being outstanding
        const char* call;
        bool silent;
    };
    struct counted {
        const void* context;  // nullptr: a free slot
        std::uint32_t count;
    };

    entry& at(std::size_t i) noexcept { return ring_[(head_ + i) & (ring_.size() - 1)]; }
    const entry& at(std::size_t i) const noexcept {
        return ring_[(head_ + i) & (ring_.size() - 1)];
    }
    void retire(entry& e) noexcept;
    void trim() noexcept;
    void grow_ring();

    std::size_t home(const void* context) const noexcept;
    std::size_t find(const void* context) const noexcept;  // a slot index, or counts_.size()
    void count_up(const void* context);
    void count_down(const void* context) noexcept;
    void grow_counts();

    std::vector<entry> ring_;      // a power of two entries, or empty
    std::size_t head_ = 0;         // the oldest entry
    std::size_t used_ = 0;         // entries from head_ on, retired ones between live ones included
    std::size_t live_ = 0;         // outstanding requests
    std::vector<counted> counts_;  // a power of two slots, or empty
    std::size_t keys_ = 0;         // slots in use
};

}  // namespace ndksim::core
