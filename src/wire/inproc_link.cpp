#include "wire/inproc_link.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "util/log.hpp"

namespace ndksim::wire {

std::string to_string(const ip_address& a) {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), text, sizeof text);
    return text;
}

struct inproc_endpoint {
    ip_address address;
    timing::scheduler* sched;
    transport::receive_fn receive;
    std::atomic<bool> attached{true};
    link_counters counters;
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
        if (!endpoints_.emplace(key(ep->address), ep).second) {
            throw std::invalid_argument("address " + to_string(ep->address) +
                                        " already attached to the in-process link");
        }
    }

    void detach(const ip_address& a) {
        std::lock_guard lock(mutex_);
        endpoints_.erase(key(a));
    }

    std::shared_ptr<inproc_endpoint> find(const ip_address& a) {
        std::lock_guard lock(mutex_);
        auto it = endpoints_.find(key(a));
        return it == endpoints_.end() ? nullptr : it->second;
    }

private:
    static std::array<std::uint8_t, 17> key(const ip_address& a) {
        std::array<std::uint8_t, 17> k{};
        k[0] = a.v6 ? 6 : 4;
        std::copy(a.bytes.begin(), a.bytes.end(), k.begin() + 1);
        return k;
    }

    std::mutex mutex_;
    std::map<std::array<std::uint8_t, 17>, std::shared_ptr<inproc_endpoint>> endpoints_;
};

class inproc_peer final : public transport::peer {
public:
    explicit inproc_peer(std::shared_ptr<inproc_endpoint> ep) : endpoint(std::move(ep)) {}
    std::shared_ptr<inproc_endpoint> endpoint;
};

}  // namespace

inproc_link::inproc_link(const ip_address& address, timing::scheduler& sched, receive_fn receive,
                         timing::sim_time latency)
    : self_(std::make_shared<inproc_endpoint>()), sched_(sched), latency_(latency) {
    self_->address = address;
    self_->sched = &sched;
    self_->receive = std::move(receive);
    fabric::instance().attach(self_);
}

inproc_link::~inproc_link() {
    self_->attached.store(false, std::memory_order_release);
    fabric::instance().detach(self_->address);
}

std::shared_ptr<transport::peer> inproc_link::resolve(const ip_address& destination) {
    auto ep = fabric::instance().find(destination);
    if (!ep) {
        return nullptr;
    }
    return std::make_shared<inproc_peer>(std::move(ep));
}

void inproc_link::send(peer& to, frame* f, timing::sim_time departure) {
    auto& dest = static_cast<inproc_peer&>(to).endpoint;
    self_->counters.frames_sent.fetch_add(1, std::memory_order_relaxed);
    self_->counters.bytes_sent.fetch_add(f->length, std::memory_order_relaxed);
    const timing::sim_time arrival = std::max(departure, sched_.now()) + latency_;
    f->source = self_->address;
    // The task keeps the receiving endpoint and the frame's pool alive until it has run.
    dest->sched->post_at(arrival, [ep = dest, pool = f->pool->shared_from_this(), f] {
        if (ep->attached.load(std::memory_order_acquire)) {
            ep->counters.frames_received.fetch_add(1, std::memory_order_relaxed);
            ep->receive(f);
        } else {
            ep->counters.frames_unroutable.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
        }
    });
}

const ip_address& inproc_link::local_address() const noexcept { return self_->address; }

const link_counters& inproc_link::counters() const noexcept { return self_->counters; }

}  // namespace ndksim::wire
