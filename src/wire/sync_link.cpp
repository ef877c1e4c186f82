// SPDX-License-Identifier: MIT
#include "wire/sync_link.hpp"

#include <limits>
#include <span>

#include "util/log.hpp"

namespace ndksim::wire {

// One remote adapter: the domain's channel to it, and its peer in the domain while it is one.
struct sync_link::peer_entry final : timing::sync_channel {
    peer_entry(sync_link& l, const ip_address& a) : link(l), address(a) {}

    bool send_promise(timing::sim_time promise, std::uint64_t frames_seen) override {
        // A peer this side is about to send its first frame does not know this side yet and
        // would refuse the record: the first record goes behind that frame.
        if (awaiting_first_frame) {
            return false;
        }
        link.send_record(*this, promise, frames_seen, false);
        return true;
    }

    void lost() override {
        // The domain has let go of the peer already; its frames from now on are dropped.
        peer = nullptr;
        cut = true;
    }

    sync_link& link;
    ip_address address;
    std::shared_ptr<transport::peer> route;
    timing::sync_peer* peer = nullptr;  // nullptr: not a peer (left, lost, or not yet joined)
    bool cut = false;                   // lost or left: frames to it are dropped
    bool awaiting_first_frame = false;  // joined by frame_sent, its frame not yet counted
    std::uint64_t sent = 0;             // frames sent to it since it joined
};

sync_link::sync_link(timing::sync_domain& domain, std::string who, timing::sim_time propagation,
                     sender& out, socket_counters& counters)
    : domain_(domain),
      who_(std::move(who)),
      propagation_(propagation),
      out_(out),
      pool_(frame_pool::create(8, 64)),
      counters_(counters) {}

sync_link::~sync_link() = default;

sync_link::peer_entry* sync_link::find(const ip_address& a) const {
    auto it = peers_.find(a);
    return it == peers_.end() ? nullptr : it->second.get();
}

sync_link::peer_entry& sync_link::join(const ip_address& a, bool sending) {
    auto& slot = peers_[a];
    if (!slot) {
        slot = std::make_unique<peer_entry>(*this, a);
    }
    peer_entry& e = *slot;
    e.cut = false;
    e.sent = 0;
    e.awaiting_first_frame = sending;
    if (!e.route) {
        e.route = out_.route(a);
    }
    // add_peer promises to the new peer at once, through e: route and counts are set first.
    e.peer = domain_.add_peer(who_ + " <-> " + to_string(a), propagation_, e);
    return e;
}

bool sync_link::is_peer(const ip_address& address) const noexcept {
    const peer_entry* e = find(address);
    return e != nullptr && e->peer != nullptr;
}

bool sync_link::may_send(const ip_address& to) noexcept {
    const peer_entry* e = find(to);
    if (e != nullptr && e->cut) {
        counters_.frames_to_lost_peers.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    return true;
}

void sync_link::frame_sent(const ip_address& to, timing::sim_time departure) {
    if (left_) {
        return;
    }
    peer_entry* e = find(to);
    if (e == nullptr) {
        e = &join(to, true);
    }
    if (e->peer == nullptr) {
        return;
    }
    ++e->sent;
    e->awaiting_first_frame = false;
    domain_.frame_sent(e->peer, departure);
}

void sync_link::frame_read(const ip_address& from, timing::sim_time arrival) {
    if (left_) {
        return;
    }
    if (peer_entry* e = find(from); e != nullptr && e->peer != nullptr) {
        domain_.frame_read(e->peer, arrival);
    }
}

void sync_link::confirm(const ip_address& from) {
    if (left_) {
        return;
    }
    const peer_entry* e = find(from);
    if (e == nullptr || e->peer == nullptr) {
        // A peer that left or was lost comes back the same way a new one arrives.
        join(from, false);
    }
}

void sync_link::record_read(const ip_address& from, sync_body verdict, const sync_record& r) {
    if (left_) {
        return;
    }
    if (verdict != sync_body::record) {
        refuse(from, "a malformed sync record");
        return;
    }
    peer_entry* e = find(from);
    if (e == nullptr || e->peer == nullptr) {
        // Also the fate of a peer's first records when they overtake, in this engine, the
        // frame that makes it one: counted, not logged (its next record is applied).
        counters_.sync_records_refused.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_DEBUG("{}: dropped a sync record from {}, no peer of this adapter", who_,
                     to_string(from));
        return;
    }
    if (r.leaving) {
        counters_.sync_records_received.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_INFO("{}: peer {} leaves synchronized time", who_, to_string(from));
        domain_.remove_peer(e->peer, false);
        e->peer = nullptr;
        e->cut = true;
        return;
    }
    const timing::sim_time now = domain_.sched().now();
    if (r.promise > now && r.promise - now > max_departure_lead) {
        refuse(from, "a sync record promising beyond the departure bound");
        return;
    }
    if (!domain_.peer_record(e->peer, r.promise, r.frames_seen, r.frames_sent)) {
        refuse(from, "a sync record reporting frames never sent to it");
        return;
    }
    counters_.sync_records_received.fetch_add(1, std::memory_order_relaxed);
}

void sync_link::send_record(peer_entry& e, timing::sim_time promise, std::uint64_t seen,
                            bool leaving) {
    if (!e.route) {
        return;
    }
    frame* f = pool_->take();
    sync_record r;
    r.promise = promise;
    r.frames_seen = seen;
    r.frames_sent = e.sent;
    r.leaving = leaving;
    encode_sync_record(r, std::span<std::byte, sync_record_size>(f->data, sync_record_size));
    f->length = static_cast<std::uint32_t>(sync_record_size);
    counters_.sync_records_sent.fetch_add(1, std::memory_order_relaxed);
    out_.send_record(*e.route, f);
}

void sync_link::refuse(const ip_address& from, const char* why) {
    counters_.sync_records_refused.fetch_add(1, std::memory_order_relaxed);
    if (!refusal_logged_) {
        refusal_logged_ = true;
        NDKSIM_WARN("{}: dropped {} ({}); further refusals are only counted", who_, why,
                    to_string(from));
    }
}

void sync_link::leave() {
    if (left_) {
        return;
    }
    left_ = true;
    for (auto& [address, e] : peers_) {
        if (e->peer == nullptr) {
            continue;
        }
        send_record(*e, std::numeric_limits<timing::sim_time>::max(), 0, true);
        domain_.remove_peer(e->peer, false);
        e->peer = nullptr;
        e->cut = true;
    }
}

}  // namespace ndksim::wire
