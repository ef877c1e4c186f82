// SPDX-License-Identifier: MIT
#include "wire/inproc_link.hpp"

#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "util/log.hpp"
#include "util/single_writer.hpp"
#include "wire/socket_common.hpp"

namespace ndksim::wire {

std::string to_string(const ip_address& a) {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), text, sizeof text);
    return text;
}

namespace {

// Gives every frame of a chain (linked by frame::next) back to its pool.
void release_chain(frame* f) noexcept {
    while (f != nullptr) {
        frame* next = f->next;
        f->next = nullptr;
        frame_pool::release(f);
        f = next;
    }
}

}  // namespace

// One adapter's end of the in-process link.
//
// Delivery between adapters with different threaded schedulers shares no lock (the two
// adapters of a connection never wait for each other): the sender pushes the frame onto the
// receiver's inbox, a lock-free stack with many pushers and one taker, and writes the
// receiver's eventfd only when the inbox goes from empty to non-empty. The receiver's engine
// thread watches the eventfd, takes the whole inbox at once and schedules each frame at its
// arrival time on its own scheduler. Adapters on one deterministic loop keep the frames of each
// sender-receiver pair in flight in a FIFO (inproc_flight) with one event for its head.
struct inproc_endpoint {
    ip_address address;
    timing::scheduler* sched;
    transport::receive_fn receive;
    std::atomic<bool> attached{true};
    link_counters counters;
    std::atomic<frame*> inbox{nullptr};
    // Frames pushed to the inbox (by any sender, counted before the push), and those whose
    // arrival the engine thread has run (counted after it, by that thread only): while they
    // differ, the engine is behind its senders (output_pending). The receiver's count has a
    // line of its own: written per frame, beside the inbox it would pull that line away from
    // the senders at every arrival.
    std::atomic<std::uint64_t> inbox_pushed{0};
    alignas(64) std::atomic<std::uint64_t> inbox_arrived{0};
    // The receiving engine's progress (threaded mode): whether it has run what it had due.
    // With it, how its clock counts (copied: the scheduler may go before the endpoint does).
    std::shared_ptr<const timing::scheduler::progress_mark> progress;
    bool gated = false;
    double pace = 1.0;
    // The eventfd senders write. It is closed only with the endpoint, which every sender holds
    // a reference on, so a write never reaches a closed (or reused) descriptor; the engine
    // thread watches a duplicate of it.
    int doorbell_fd = -1;
    bool threaded = false;  // set before the endpoint is attached, never changed
    std::unique_ptr<boost::asio::posix::stream_descriptor> doorbell;  // threaded mode only
    std::uint64_t doorbell_value = 0;

    inproc_endpoint() = default;
    inproc_endpoint(const inproc_endpoint&) = delete;
    inproc_endpoint& operator=(const inproc_endpoint&) = delete;
    ~inproc_endpoint() {
        // Frames pushed after the receiver detached go back to their pools here.
        release_chain(inbox.exchange(nullptr, std::memory_order_acquire));
        if (doorbell_fd >= 0) {
            ::close(doorbell_fd);
        }
    }
};

namespace {

// The fabric: which endpoint owns which address. Touched only when adapters attach, detach and
// resolve peers (connection setup), never per frame.
class fabric {
  public:
    static fabric& instance() {
        static fabric f;
        return f;
    }

    void attach(const std::shared_ptr<inproc_endpoint>& ep) {
        std::lock_guard lock(mutex_);
        if (!endpoints_.emplace(ep->address, ep).second) {
            throw std::invalid_argument("address " + to_string(ep->address) +
                                        " already attached to the in-process link");
        }
    }

    void detach(const ip_address& a) {
        std::lock_guard lock(mutex_);
        endpoints_.erase(a);
    }

    std::shared_ptr<inproc_endpoint> find(const ip_address& a) {
        std::lock_guard lock(mutex_);
        auto it = endpoints_.find(a);
        return it == endpoints_.end() ? nullptr : it->second;
    }

  private:
    std::mutex mutex_;
    std::map<ip_address, std::shared_ptr<inproc_endpoint>> endpoints_;
};

// Frames from one sender to one receiver on the same deterministic loop, in flight, oldest
// first. A port sends its frames one after another and the link's latency is fixed, so their
// arrival times never decrease: one event, for the head, stands for the whole FIFO, and each
// frame keeps the place in the event order (scheduler::reserve) that an event of its own would
// have had. A message of 256 frames in flight is then one heap entry instead of 256, and the
// receiver's endpoint reference is taken once per burst instead of once per frame.
struct inproc_flight {
    explicit inproc_flight(std::shared_ptr<inproc_endpoint> ep) : dest(std::move(ep)) {}
    inproc_flight(const inproc_flight&) = delete;
    inproc_flight& operator=(const inproc_flight&) = delete;
    // Frames still in flight when the loop is destroyed go back to their pools.
    ~inproc_flight() { release_chain(head); }

    std::shared_ptr<inproc_endpoint> dest;
    frame* head = nullptr;
    frame* tail = nullptr;
};

class inproc_peer final : public transport::peer {
  public:
    explicit inproc_peer(std::shared_ptr<inproc_endpoint> ep)
        : endpoint(ep), flight(std::make_shared<inproc_flight>(std::move(ep))) {}
    std::shared_ptr<inproc_endpoint> endpoint;
    std::shared_ptr<inproc_flight> flight;
};

// The receiver's side of one frame at its arrival time.
void arrive(inproc_endpoint& ep, frame* f) {
    if (ep.attached.load(std::memory_order_acquire)) {
        util::single_writer_add(ep.counters.frames_received);
        ep.receive(f);
    } else {
        ep.counters.frames_unroutable.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
    }
}

// The event of a flight's head: the head arrives, and the next frame's event is posted at the
// place reserved for it before the head is handed on (so the receiver's work, which may post
// further events, comes after it in the order, as it would have).
struct flight_arrival {
    std::shared_ptr<inproc_flight> flight;

    void operator()() {
        inproc_flight& fl = *flight;
        inproc_endpoint& ep = *fl.dest;  // the flight, and so the endpoint, outlive this call
        frame* f = fl.head;
        fl.head = f->next;
        f->next = nullptr;
        if (fl.head == nullptr) {
            fl.tail = nullptr;
        } else {
            ep.sched->post_reserved(fl.head->arrival, fl.head->arrival_seq,
                                    flight_arrival{std::move(flight)});
        }
        arrive(ep, f);
    }
};

// Runs one frame on the receiver's engine at its arrival time. The task holds the endpoint
// (the receiver may detach before it runs). The reference is a mutable copy: the event queue
// moves a task several times, and a const member would turn each move into a reference-count
// round trip on the endpoint's control block, a cache miss per move in the profile.
void deliver(const std::shared_ptr<inproc_endpoint>& receiver, frame* f) {
    receiver->sched->post_at(
        f->arrival, [ep = std::shared_ptr<inproc_endpoint>(receiver), f] { arrive(*ep, f); });
}

// Same loop, owned by this thread: the frame joins its pair's flight at the place an event of
// its own would take now. A frame that would arrive before the last one in flight (a fault
// layer held it back) gets an event of its own, at that same place.
void enqueue(inproc_peer& to, frame* f) {
    inproc_flight& fl = *to.flight;
    timing::scheduler& sched = *fl.dest->sched;
    f->arrival_seq = sched.reserve();
    if (fl.tail != nullptr && f->arrival < fl.tail->arrival) {
        sched.post_reserved(
            f->arrival, f->arrival_seq,
            [ep = std::shared_ptr<inproc_endpoint>(fl.dest), f] { arrive(*ep, f); });
        return;
    }
    f->next = nullptr;
    if (fl.tail == nullptr) {
        fl.head = f;
        fl.tail = f;
        sched.post_reserved(f->arrival, f->arrival_seq, flight_arrival{to.flight});
    } else {
        fl.tail->next = f;
        fl.tail = f;
    }
}

// The frames taken from a threaded endpoint's inbox in one drain, sorted by arrival, waiting
// on the receiver's engine: one event for the run, at its head's arrival, as a flight is on a
// deterministic loop. When it runs, every frame whose arrival has come arrives in turn, and
// the rest go on at the next one's arrival. A backlog of frames (a receiver behind its sender)
// then costs one event per drain instead of one per frame, each with its own reference on the
// endpoint. A run may deliver a frame before an event queued for an earlier time (the
// receiver's own timer, a dispatch, an earlier drain's run): threaded time stamps each task
// with the wall clock when it runs, so that changes the order of the two, not a time they
// report. Making each frame wait behind such events kept the queue's order but cost a
// threaded stream of 1 MiB writes 16 % of its rate: a frame's dispatch is queued before the
// next frame's arrival, so the run went back to one event per frame. Frames still held when
// the event is discarded (the adapter is going away) go back to their pools.
class inbox_run {
  public:
    inbox_run(std::shared_ptr<inproc_endpoint> ep, frame* head) noexcept
        : ep_(std::move(ep)), head_(head) {}
    inbox_run(inbox_run&& other) noexcept
        : ep_(std::move(other.ep_)), head_(std::exchange(other.head_, nullptr)) {}
    inbox_run(const inbox_run&) = delete;
    inbox_run& operator=(const inbox_run&) = delete;
    inbox_run& operator=(inbox_run&&) = delete;
    ~inbox_run() { release_chain(head_); }

    void operator()() {
        inproc_endpoint& ep = *ep_;  // held by this event, which outlives the call
        const timing::sim_time now = ep.sched->now();
        while (head_ != nullptr && head_->arrival <= now) {
            frame* f = head_;
            head_ = f->next;
            f->next = nullptr;
            arrive(ep, f);
            // Release: a sender that reads the count sees what the arrival did.
            ep.inbox_arrived.store(ep.inbox_arrived.load(std::memory_order_relaxed) + 1,
                                   std::memory_order_release);
        }
        if (head_ != nullptr) {
            const timing::sim_time next = head_->arrival;
            ep.sched->post_at(next, inbox_run(std::move(ep_), std::exchange(head_, nullptr)));
        }
    }

  private:
    std::shared_ptr<inproc_endpoint> ep_;
    frame* head_;
};

// Merges two lists of frames sorted by arrival into one; on equal arrivals `older`'s frames
// come first, so merging keeps the order in which frames of the same time were pushed.
frame* merge_by_arrival(frame* older, frame* newer) noexcept {
    frame* head = nullptr;
    frame** tail = &head;
    while (older != nullptr && newer != nullptr) {
        frame*& from = newer->arrival < older->arrival ? newer : older;
        *tail = from;
        tail = &from->next;
        from = from->next;
    }
    *tail = older != nullptr ? older : newer;
    return head;
}

// Receiver's engine thread: takes every frame pushed since the last time and schedules them,
// sorted by arrival, as one run. Frames of different senders may come out of order by their
// clocks, and a sender's ACK may leave before its data; the frames come in runs of
// non-decreasing arrival, which a merge sort of those runs puts in order (stable: frames of
// the same time stay in the order they were pushed). One run rather than one per stretch: a
// receiver late on them all would otherwise run each at the time it takes them, in the order
// it posted them, not in the order they arrived.
void drain_inbox(const std::shared_ptr<inproc_endpoint>& ep) {
    frame* pushed = ep->inbox.exchange(nullptr, std::memory_order_acquire);
    frame* oldest_first = nullptr;
    while (pushed != nullptr) {
        frame* next = pushed->next;
        pushed->next = oldest_first;
        oldest_first = pushed;
        pushed = next;
    }
    // Bottom-up merge of the runs: merged[i] holds 2^i runs, older than those of merged[j]
    // for j < i (a binary counter; 64 levels hold any number of frames).
    std::array<frame*, 64> merged{};
    while (oldest_first != nullptr) {
        frame* run = oldest_first;
        frame* last = run;
        while (last->next != nullptr && last->next->arrival >= last->arrival) {
            last = last->next;
        }
        oldest_first = last->next;
        last->next = nullptr;
        std::size_t level = 0;
        for (; merged[level] != nullptr; ++level) {
            run = merge_by_arrival(merged[level], run);
            merged[level] = nullptr;
        }
        merged[level] = run;
    }
    frame* sorted = nullptr;
    for (frame* older : merged) {
        if (older != nullptr) {
            sorted = merge_by_arrival(older, sorted);
        }
    }
    if (sorted != nullptr) {
        ep->sched->post_at(sorted->arrival, inbox_run(ep, sorted));
    }
}

void watch_doorbell(const std::shared_ptr<inproc_endpoint>& ep) {
    ep->doorbell->async_read_some(
        boost::asio::buffer(&ep->doorbell_value, sizeof ep->doorbell_value),
        [ep](const boost::system::error_code& ec, std::size_t) {
            if (ec) {
                return;  // the link is closing
            }
            drain_inbox(ep);
            watch_doorbell(ep);
        });
}

}  // namespace

inproc_link::inproc_link(const ip_address& address, timing::scheduler& sched, receive_fn receive,
                         timing::sim_time latency)
    : self_(std::make_shared<inproc_endpoint>()), sched_(sched), latency_(latency) {
    self_->address = address;
    self_->sched = &sched;
    self_->receive = std::move(receive);
    if (sched.mode() == timing::run_mode::threaded) {
        self_->threaded = true;
        self_->progress = sched.progress_mark_of();
        self_->gated = sched.gated();
        self_->pace = sched.pace_factor();
        self_->doorbell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        const int watched = self_->doorbell_fd < 0 ? -1 : ::dup(self_->doorbell_fd);
        if (watched < 0) {
            throw std::runtime_error("eventfd failed for the in-process link");
        }
        self_->doorbell =
            std::make_unique<boost::asio::posix::stream_descriptor>(sched.io(), watched);
        watch_doorbell(self_);
    }
    fabric::instance().attach(self_);
}

inproc_link::~inproc_link() {
    self_->attached.store(false, std::memory_order_release);
    fabric::instance().detach(self_->address);
    if (self_->doorbell) {
        // The watch is cancelled, and its descriptor destroyed, on the engine thread that owns
        // them, while that thread's io_context still exists: the endpoint itself may live on
        // (peers of other adapters hold it) after this adapter's io_context is gone. Frames
        // still in the inbox go back to their pools there.
        auto finish = [ep = self_] {
            boost::system::error_code ignored;
            ep->doorbell->close(ignored);
            drain_inbox(ep);
            ep->doorbell.reset();
        };
        run_on_engine_thread(sched_, finish);
    }
}

std::shared_ptr<transport::peer> inproc_link::resolve(const ip_address& destination) {
    auto ep = fabric::instance().find(destination);
    if (!ep) {
        return nullptr;
    }
    std::lock_guard lock(peers_mutex_);
    std::weak_ptr<peer>& cached = peers_[destination];
    std::shared_ptr<peer> p = cached.lock();
    if (p && static_cast<inproc_peer&>(*p).endpoint == ep) {
        return p;
    }
    p = std::make_shared<inproc_peer>(std::move(ep));
    cached = p;
    return p;
}

void inproc_link::send(peer& to, frame* f, timing::sim_time departure) {
    auto& dest = static_cast<inproc_peer&>(to).endpoint;
    util::single_writer_add(self_->counters.frames_sent);
    util::single_writer_add(self_->counters.bytes_sent, f->length);
    f->arrival = std::max(departure, sched_.now()) + latency_;
    f->source = self_->address;
    if (!dest->attached.load(std::memory_order_acquire)) {
        dest->counters.frames_unroutable.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    if (dest->sched == &sched_ && sched_.mode() == timing::run_mode::deterministic &&
        sched_.owned_here()) {
        enqueue(static_cast<inproc_peer&>(to), f);
        return;
    }
    if (!dest->threaded || dest->sched == &sched_) {
        deliver(dest, f);
        return;
    }
    // Counted before the frame can be taken, so output_pending never sees it neither pushed
    // nor pending. The push below is a locked instruction on the same line anyway.
    dest->inbox_pushed.fetch_add(1, std::memory_order_relaxed);
    frame* head = dest->inbox.load(std::memory_order_relaxed);
    do {
        f->next = head;
    } while (!dest->inbox.compare_exchange_weak(head, f, std::memory_order_release,
                                                std::memory_order_relaxed));
    if (head == nullptr) {
        // The inbox was empty: the receiver may be asleep, so ring its doorbell.
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(dest->doorbell_fd, &one, sizeof one);
    }
}

bool inproc_link::shares_timeline(const peer& to) const noexcept {
    return sched_.mode() == timing::run_mode::deterministic &&
           static_cast<const inproc_peer&>(to).endpoint->sched == &sched_;
}

bool inproc_link::output_pending(const peer& to) const noexcept {
    const inproc_endpoint& ep = *static_cast<const inproc_peer&>(to).endpoint;
    if (!ep.threaded || ep.sched == &sched_ || !ep.attached.load(std::memory_order_acquire)) {
        return false;
    }
    return ep.inbox_arrived.load(std::memory_order_acquire) !=
           ep.inbox_pushed.load(std::memory_order_relaxed);
}

bool inproc_link::peer_behind(const peer& to, timing::sim_time before) const noexcept {
    const inproc_endpoint& ep = *static_cast<const inproc_peer&>(to).endpoint;
    if (!ep.threaded || ep.sched == &sched_ || !ep.attached.load(std::memory_order_acquire)) {
        return false;
    }
    // Only clocks that count alike compare: a gated (synchronized) clock is the event clock
    // alone, and a paced one runs at the wall time divided by its pace.
    if (sched_.gated() || ep.gated || sched_.pace_factor() != ep.pace) {
        return false;
    }
    // An event due before then that the peer's engine has not run yet, such as the ACK for
    // frames it took in (either engine may run up to its wall slack ahead of the wall).
    return ep.progress->next_event.load(std::memory_order_relaxed) < before;
}

const ip_address& inproc_link::local_address() const noexcept {
    return self_->address;
}

const link_counters& inproc_link::counters() const noexcept {
    return self_->counters;
}

}  // namespace ndksim::wire
