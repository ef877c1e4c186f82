// SPDX-License-Identifier: MIT
#pragma once
// The NDK object model shared by all ten object kinds (REFERENCE.md section 9 and rules 1-7).
//
// Lifetime design (STYLE.md habit 5):
//  - Every object is reference counted. The consumer's handle is one reference, dropped when
//    its close completes; each successor holds a reference on each antecedent; every task that
//    will call back into the consumer for an object holds a reference on it.
//  - "Close is a state": open -> closing -> closed. A close completes once (a) no successor is
//    still open (rule 6: closing a PD before its QPs pends until the last QP's close has
//    completed and its callback returned), and (b) no request or event callback on the object
//    is pending or running (rule 4). The close completion is the last callback on the object.
//  - Requests that may pend are finished through finish_request(): inline (no callback, rule 1)
//    or pending (STATUS_PENDING now, exactly one callback later from the engine).
//
// Concurrency: the per-object mutex guards state_, the close completion and the child list.
// successors_ and busy_ are atomics so blocking waiters can read them without a lock. No code
// holds two object mutexes at once, and no mutex is held while a consumer callback runs.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive_ptr.hpp>

#include "timing/sim_time.hpp"
#include "util/inplace_function.hpp"
#include "util/status.hpp"

namespace ndksim::core {

class device;
class adapter;
class object;

/// The NDK object kinds; the values are NDK_OBJECT_TYPE's (REFERENCE.md 2.1).
enum class object_kind : std::uint8_t {
    adapter = 1,
    qp = 2,
    cq = 3,
    mr = 4,
    mw = 5,
    pd = 6,
    shared_endpoint = 7,
    connector = 8,
    listener = 9,
    srq = 10,
};

/// Short lower-case name of a kind ("qp"), used in identities and logs.
std::string_view kind_name(object_kind kind) noexcept;

/// A consumer's close completion, already bound to its context.
using close_fn = util::inplace_function<void(), 32>;

/// A consumer's request completion, already bound to its context; receives the final status.
using request_fn = util::inplace_function<void(status), 48>;

/// Room for the public NDK object ({NDK_OBJECT_HEADER Header; Dispatch}, 0x30 bytes on x64)
/// followed by the way back from a consumer's header pointer to this object. Only src/api
/// interprets `head`; it checks the size against ndkpi.h with static_assert.
struct abi_slot {
    static constexpr std::uint32_t k_magic = 0x4e444b53;  // "NDKS"
    alignas(8) std::byte head[0x30];
    object* owner;
    std::uint32_t magic;
};

/// Counted reference to an object (boost::intrusive_ptr over object::add_ref/release).
template <class T>
using ref = boost::intrusive_ptr<T>;

class object {
  public:
    object(const object&) = delete;
    object& operator=(const object&) = delete;

    object_kind kind() const noexcept { return kind_; }

    /// Identity used in every log line, e.g. "nic1/h2/qp#7".
    const char* ident() const noexcept { return ident_.data(); }

    device& dev() const noexcept { return *dev_; }

    /// The NDK_ADAPTER handle this object lives under (itself for an adapter).
    adapter& handle() const noexcept { return *handle_; }

    /// The public-object storage the api layer fills and hands to the consumer.
    abi_slot& abi() noexcept { return abi_; }

    /// Takes a reference (boost::intrusive_ptr hook).
    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }

    /// Drops a reference; the last one destroys the object.
    void release() noexcept;

    /// True while the consumer may still use the object (no close requested yet).
    bool is_open() const noexcept { return state_.load(std::memory_order_acquire) == state::open; }

    /// Number of successors (objects that depend on this one) not yet fully closed.
    std::uint32_t open_successors() const noexcept {
        return successors_.load(std::memory_order_acquire);
    }

    /// Starts the close of the object (NDK_FN_CLOSE_OBJECT). Never fails: returns
    /// status::success when the close finished inline (`done` is not called), or
    /// status::pending when `done` will be called exactly once, as the last callback on the
    /// object. A second close of the same object is a consumer error: it is logged and
    /// ignored (status::success).
    status close(close_fn done);

    /// Finishes a request that may pend (rule 1). Returns `result` when the completion policy
    /// says inline and `must_pend` is false (`done` is not called); otherwise returns
    /// status::pending and calls `done(result)` from the engine after `latency` [ps].
    status finish_request(status result, request_fn done, timing::sim_time latency,
                          bool must_pend = false);

    /// Declares that `successor` depends on this object: this object's close cannot complete
    /// until `successor` has fully closed (successor_closed is called by its close).
    void add_successor() noexcept { successors_.fetch_add(1, std::memory_order_acq_rel); }

    /// Makes this object depend on `antecedent` besides its parent (a QP on its CQs and SRQ, a
    /// connector on its QP, listener or shared endpoint): the antecedent's close cannot
    /// complete until this object has closed, and this object holds a reference on it.
    void add_antecedent(object& antecedent);

    /// The counterpart of add_successor(); may complete a close that was waiting for it.
    void successor_closed();

    /// Marks the start and end of a consumer callback or a pending request on this object; a
    /// close waits until every such span has ended (rule 4).
    void begin_busy() noexcept { busy_.fetch_add(1, std::memory_order_acq_rel); }
    void end_busy();

    /// Appends the identities of this object's still-open descendants to `out` (leak reports).
    void collect_open_descendants(std::vector<const object*>& out) const;

  protected:
    /// `parent` is the object whose dispatch table created this one (nullptr for an adapter
    /// handle); it becomes the first antecedent. `handle` is the owning adapter handle.
    object(object_kind kind, device& dev, adapter* handle, object* parent);
    virtual ~object();

    /// Names an adapter handle ("nic1/h2"); children derive their identity from it.
    void set_handle_ident(std::uint32_t number);

    /// Completes the close at once, whatever is still open below (adapter handles only: their
    /// close is the blocking CLOSE_NDK_ADAPTER_HANDLER, which has already waited and reported).
    void force_close();

    /// Called once when a close is requested, before the close can complete: cancel pending
    /// requests here (their completions must still be delivered before the close completion).
    virtual void on_close_requested() {}

    /// Called once when the close has completed, before the consumer's close completion is
    /// called (the consumer may reuse what it frees from inside that callback): release
    /// kind-specific resources (addresses, memory-unit entries).
    virtual void on_closed() {}

  private:
    enum class state : std::uint8_t { open, closing, closed };

    void maybe_complete_close();
    void release_resources();
    void finish_close(bool resources_released = false);

    object_kind kind_;
    device* dev_;
    adapter* handle_;
    std::atomic<std::uint32_t> refs_{1};
    std::atomic<state> state_{state::open};
    std::atomic<std::uint32_t> successors_{0};
    std::atomic<std::uint32_t> busy_{0};
    bool close_pending_ = false;
    bool close_scheduled_ = false;
    close_fn close_done_;
    std::array<object*, 4> antecedents_{};
    std::size_t antecedent_count_ = 0;
    std::array<char, 40> ident_{};
    abi_slot abi_{};

  public:
    // Hook into the parent's child list (leak reports); guarded by the parent's mutex.
    boost::intrusive::list_member_hook<> child_hook_;

  private:
    using child_list = boost::intrusive::list<
        object, boost::intrusive::member_hook<object, boost::intrusive::list_member_hook<>,
                                              &object::child_hook_>>;
    mutable std::mutex mutex_;
    child_list children_;
    object* parent_ = nullptr;

  protected:
    /// Guards kind-specific mutable state in derived classes (the same mutex as the base).
    std::mutex& mutex() const noexcept { return mutex_; }
};

inline void intrusive_ptr_add_ref(object* o) noexcept {
    o->add_ref();
}
inline void intrusive_ptr_release(object* o) noexcept {
    o->release();
}

}  // namespace ndksim::core
