// SPDX-License-Identifier: MIT
#include "wire/faulty_link.hpp"

#include <cstring>

#include "wire/lent_frames.hpp"

namespace ndksim::wire {

faulty_link::faulty_link(const fault_settings& settings, receive_fn receive)
    : receive_(std::move(receive)) {
    configure(settings);
}

transport::receive_fn faulty_link::receiver() {
    return [this](frame* f) { on_receive(f); };
}

void faulty_link::attach(std::unique_ptr<transport> base) {
    base_ = std::move(base);
}

void faulty_link::configure(const fault_settings& settings) {
    drop_ppm_.store(settings.drop_ppm, std::memory_order_relaxed);
    duplicate_ppm_.store(settings.duplicate_ppm, std::memory_order_relaxed);
    reorder_ppm_.store(settings.reorder_ppm, std::memory_order_relaxed);
    corrupt_ppm_.store(settings.corrupt_ppm, std::memory_order_relaxed);
    delay_ps_.store(settings.delay_ps, std::memory_order_relaxed);
    reorder_delay_ps_.store(
        settings.reorder_delay_ps != 0 ? settings.reorder_delay_ps : k_default_reorder_delay,
        std::memory_order_relaxed);
    seed_.store(settings.seed != 0 ? settings.seed : 1, std::memory_order_relaxed);
    // Published last: the engine that sees the new generation sees the settings above.
    seed_generation_.fetch_add(1, std::memory_order_release);
}

std::uint64_t faulty_link::next() noexcept {
    // splitmix64: one 64-bit state, full period, good enough for fault draws and cheap.
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

bool faulty_link::draw(std::uint32_t ppm) noexcept {
    if (ppm == 0) {
        return false;  // no draw: a fault that is off does not move the sequence of the others
    }
    return next() % k_fault_ppm_max < ppm;
}

void faulty_link::send(peer& to, frame* f, timing::sim_time departure) {
    if (cut_.load(std::memory_order_acquire)) {
        faults_.cut_sent.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    const std::uint64_t generation = seed_generation_.load(std::memory_order_acquire);
    if (generation != seeded_generation_) {
        seeded_generation_ = generation;
        state_ = seed_.load(std::memory_order_relaxed);
    }
    if (draw(drop_ppm_.load(std::memory_order_relaxed))) {
        faults_.dropped.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    // A lent frame reads the sender's memory when it is placed or written to a socket, which
    // is safe only while it travels in order, once, ahead of the ACK that completes its
    // request, and a flipped bit must land in the bytes the ICRC covers: a frame that may be
    // held back, copied or corrupted carries its own payload.
    if (f->lender != nullptr && (delay_ps_.load(std::memory_order_relaxed) != 0 ||
                                 duplicate_ppm_.load(std::memory_order_relaxed) != 0 ||
                                 reorder_ppm_.load(std::memory_order_relaxed) != 0 ||
                                 corrupt_ppm_.load(std::memory_order_relaxed) != 0)) {
        materialize(*f);
    }
    // A frame without its ICRC (built before corruption was turned on, on a link that needs
    // none) is left intact: flipping a bit the receiver cannot detect would pass corrupt data
    // as good. The draw still happens, so the sequence of the other faults does not move.
    if (draw(corrupt_ppm_.load(std::memory_order_relaxed)) && f->length > bth_size &&
        !f->icrc_elided) {
        // One bit after the BTH: extension headers, payload, pad or the ICRC itself. All of
        // them are covered by the ICRC and none is interpreted before the receiver checks it
        // (codec.cpp), so the frame is guaranteed to be refused as bad_icrc. Bits of the BTH
        // are left alone: some are masked by the ICRC (resv8a) and others (opcode, version)
        // would be refused for another reason first.
        const std::uint64_t bits = static_cast<std::uint64_t>(f->length - bth_size) * 8;
        const std::uint64_t bit = next() % bits;
        f->data[bth_size + bit / 8] ^= static_cast<std::byte>(1U << (bit % 8));
        faults_.corrupted.fetch_add(1, std::memory_order_relaxed);
    }
    const timing::sim_time delay = delay_ps_.load(std::memory_order_relaxed);
    if (delay != 0) {
        faults_.delayed.fetch_add(1, std::memory_order_relaxed);
    }
    timing::sim_time when = departure + delay;
    if (draw(duplicate_ppm_.load(std::memory_order_relaxed)) && f->pool != nullptr) {
        // The copy comes from the sending frame's pool, which this engine thread owns.
        frame* copy = f->pool->take();
        copy->length = f->length;
        copy->icrc_elided = f->icrc_elided;
        std::memcpy(copy->data, f->data, f->length);
        faults_.duplicated.fetch_add(1, std::memory_order_relaxed);
        base_->send(to, copy, when);
    }
    if (draw(reorder_ppm_.load(std::memory_order_relaxed))) {
        faults_.reordered.fetch_add(1, std::memory_order_relaxed);
        when += reorder_delay_ps_.load(std::memory_order_relaxed);
    }
    base_->send(to, f, when);
}

void faulty_link::on_receive(frame* f) {
    if (cut_.load(std::memory_order_acquire)) {
        faults_.cut_received.fetch_add(1, std::memory_order_relaxed);
        frame_pool::release(f);
        return;
    }
    receive_(f);
}

std::shared_ptr<transport::peer> faulty_link::resolve(const ip_address& destination) {
    return base_->resolve(destination);
}

bool faulty_link::wants_icrc() const noexcept {
    return corrupt_ppm_.load(std::memory_order_relaxed) != 0 || base_->wants_icrc();
}

const ip_address& faulty_link::local_address() const noexcept {
    return base_->local_address();
}

const link_counters& faulty_link::counters() const noexcept {
    // Between attach(nullptr) and the next attach there is no transport: it has sent and
    // received nothing.
    static const link_counters none{};
    return base_ != nullptr ? base_->counters() : none;
}

}  // namespace ndksim::wire
