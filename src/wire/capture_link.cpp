// SPDX-License-Identifier: MIT
#include "wire/capture_link.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "wire/codec.hpp"
#include "wire/lent_frames.hpp"
#include "wire/pcap_writer.hpp"

namespace ndksim::wire {

// One open capture file and the adapters recording to it. The lock serializes records from
// adapters on different engine threads; the member list decides who records a frame.
class shared_capture {
  public:
    explicit shared_capture(const std::string& path) : writer_(path) {}

    void join(const ip_address& a) {
        std::lock_guard lock(mutex_);
        members_.push_back(a);
    }

    void leave(const ip_address& a) {
        std::lock_guard lock(mutex_);
        auto it = std::find(members_.begin(), members_.end(), a);
        if (it != members_.end()) {
            members_.erase(it);
        }
        if (members_.empty()) {
            writer_.flush();
        }
    }

    void record_sent(const flow& f, std::span<const std::byte> frame, timing::sim_time when) {
        std::lock_guard lock(mutex_);
        writer_.write(f, frame, when);
    }

    // A frame from another member was recorded when that member sent it.
    void record_received(const flow& f, std::span<const std::byte> frame, timing::sim_time when) {
        std::lock_guard lock(mutex_);
        if (std::find(members_.begin(), members_.end(), f.src) == members_.end()) {
            writer_.write(f, frame, when);
        }
    }

    const std::string& path() const noexcept { return writer_.path(); }

  private:
    std::mutex mutex_;
    std::vector<ip_address> members_;
    pcap_writer writer_;
};

namespace {

// Open captures by path. Touched only when adapters are created and destroyed.
class capture_registry {
  public:
    static capture_registry& instance() {
        static capture_registry r;
        return r;
    }

    std::shared_ptr<shared_capture> open(const std::string& path) {
        std::lock_guard lock(mutex_);
        if (auto existing = open_[path].lock()) {
            return existing;
        }
        auto created = std::make_shared<shared_capture>(path);
        open_[path] = created;
        return created;
    }

  private:
    std::mutex mutex_;
    std::map<std::string, std::weak_ptr<shared_capture>> open_;
};

class capture_peer final : public transport::peer {
  public:
    capture_peer(std::shared_ptr<peer> in, const ip_address& to)
        : inner(std::move(in)), address(to) {}
    std::shared_ptr<peer> inner;
    ip_address address;
};

}  // namespace

transport::receive_fn capture_link::wrap(const std::string& path, const ip_address& address,
                                         timing::scheduler& sched, receive_fn receive,
                                         std::shared_ptr<shared_capture>& capture) {
    capture = capture_registry::instance().open(path);
    capture->join(address);
    return [c = capture.get(), address, &sched, next = std::move(receive)](frame* f) {
        // The engine checks the ICRC over the same flow: source the peer, default ports.
        const flow arrived{f->source, address};
        // A lent frame's payload is still the sender's memory: the record needs the bytes.
        materialize(*f);
        if (f->icrc_elided) {
            write_icrc(f->data, f->length, arrived);
            f->icrc_elided = false;
        }
        // A socket wire's frame is read before its modelled arrival (synchronized time reads it
        // up to a lookahead early), and a peer's frame is taken by the engine then, or now if
        // that has passed. A stranger's frame, dropped by the engine, is recorded at the time
        // its stamp claims: the record is all that time touches.
        const timing::sim_time when =
            f->stamped ? std::max<timing::sim_time>(f->arrival, sched.now()) : sched.now();
        c->record_received(arrived, std::span<const std::byte>(f->data, f->length), when);
        next(f);
    };
}

capture_link::capture_link(std::unique_ptr<transport> inner,
                           std::shared_ptr<shared_capture> capture)
    : inner_(std::move(inner)), capture_(std::move(capture)), address_(inner_->local_address()) {}

capture_link::~capture_link() {
    // The inner link goes first, so no frame reaches the receive function after leave().
    inner_.reset();
    capture_->leave(address_);
}

std::shared_ptr<transport::peer> capture_link::resolve(const ip_address& destination) {
    auto p = inner_->resolve(destination);
    if (!p) {
        return nullptr;
    }
    return std::make_shared<capture_peer>(std::move(p), destination);
}

bool capture_link::shares_timeline(const peer& to) const noexcept {
    return inner_->shares_timeline(*static_cast<const capture_peer&>(to).inner);
}

void capture_link::send(peer& to, frame* f, timing::sim_time departure) {
    auto& p = static_cast<capture_peer&>(to);
    // Recorded before the frame is handed over: it belongs to the inner transport afterwards.
    const flow leaving{address_, p.address};
    materialize(*f);
    if (f->icrc_elided) {
        write_icrc(f->data, f->length, leaving);
        f->icrc_elided = false;
    }
    capture_->record_sent(leaving, std::span<const std::byte>(f->data, f->length), departure);
    inner_->send(*p.inner, f, departure);
}

const ip_address& capture_link::local_address() const noexcept {
    return address_;
}

const link_counters& capture_link::counters() const noexcept {
    return inner_->counters();
}

}  // namespace ndksim::wire
