// SPDX-License-Identifier: MIT
#include "core/device.hpp"

#include <algorithm>

#include "core/listener.hpp"
#include "core/mr.hpp"
#include "core/qp.hpp"
#include "mem/token.hpp"

#include "timing/sync_domain.hpp"
#include "util/log.hpp"

namespace ndksim::core {
namespace {

mem::unit_config memory_config(const device_config& cfg, const adapter_limits& limits) {
    mem::unit_config c;
    c.name = cfg.name;
    // A ConnectX-class adapter holds 2^24 memory keys (ibv_devinfo max_mr and max_mw, 16 M),
    // every index a token can carry, and maps as many pages (64 GiB), the IOMMU's slot space.
    // The tables grow with use, so the limits cost nothing until reached.
    c.max_entries = mem::token_index_limit - 1;
    c.max_mapped_pages = mem::token_index_limit;
    c.cache = mem::cache_geometry(cfg.translation_cache_entries);
    c.max_fast_register_pages = limits.frmr_page_count;
    c.rotate_fast_register_tokens = cfg.rotate_fast_register_tokens;
    c.read_sink_not_required = (limits.adapter_flags & adapter_flag::read_sink_not_required) != 0;
    return c;
}

}  // namespace

device::device(device_config cfg, const adapter_limits& limits)
    : cfg_(std::move(cfg)),
      limits_(limits),
      sched_(cfg_.loop),
      policy_(cfg_.style, cfg_.pending_percent, cfg_.seed),
      memory_(mem::host_memory::instance(), memory_config(cfg_, limits)) {
    // The C entry point validated the literal already; an unparsable one leaves 0.0.0.0.
    (void)net_address::parse_ip(cfg_.address, own_address_);
    if (sched_ == nullptr && cfg_.synchronized) {
        // Every synchronized adapter of the process shares the domain's scheduler, as the
        // adapters of a deterministic loop share it: one event order for all of them.
        cfg_.sync.poll = cfg_.poll;
        domain_ = timing::sync_domain::acquire(cfg_.sync);
        sched_ = &domain_->sched();
    }
    verifier_.set_mode(cfg_.verifier);
    refusals_.attach(&verifier_);
    if (sched_ == nullptr) {
        timing::scheduler::options o;
        o.mode = timing::run_mode::threaded;
        o.poll = cfg_.poll;
        o.name = "ndksim-" + cfg_.name;
        if (cfg_.paced) {
            // Paced: every event waits for the wall clock (no slack), scaled by the factor.
            o.wall_slack = 0;
            o.pace_factor = cfg_.pace_factor;
        }
        own_sched_ = std::make_unique<timing::scheduler>(std::move(o));
        sched_ = own_sched_.get();
    }
    NDKSIM_INFO("{}: created at {} ({} mode, profile {}, verifier {})", cfg_.name, cfg_.address,
                domain_                                        ? "synchronized"
                : sched_->mode() == timing::run_mode::threaded ? "threaded"
                                                               : "deterministic",
                cfg_.profile, verifier::mode_name(cfg_.verifier));
}

status device::reserve_local(net_address& address) {
    if (address.v6 != own_address_.v6 ||
        (!address.is_wildcard() && !address.same_ip(own_address_))) {
        return status::invalid_address;
    }
    const std::uint16_t family = address.family_value;
    const std::uint16_t port = address.port;
    address = own_address_;
    address.family_value = family;
    address.port = port;
    return endpoints_.reserve(address.port);
}

ref<qp> device::find_qp(std::uint32_t qpn) const noexcept {
    return qps_.find(qpn);
}

void device::register_listener(std::uint16_t port, listener* l) {
    std::lock_guard lock(listeners_mutex_);
    listeners_[port] = l;
}

void device::unregister_listener(std::uint16_t port, listener* l) {
    std::lock_guard lock(listeners_mutex_);
    auto it = listeners_.find(port);
    if (it != listeners_.end() && it->second == l) {
        listeners_.erase(it);
    }
}

ref<listener> device::find_listener(std::uint16_t port) const {
    std::lock_guard lock(listeners_mutex_);
    auto it = listeners_.find(port);
    return it == listeners_.end() ? ref<listener>() : ref<listener>(it->second);
}

void device::wait_for_windows(mr& m) {
    std::lock_guard lock(window_waiters_mutex_);
    window_waiters_.emplace_back(&m);
}

void device::windows_changed() {
    std::vector<ref<mr>> done;
    {
        std::lock_guard lock(window_waiters_mutex_);
        if (window_waiters_.empty()) {
            return;
        }
        auto it = std::partition(window_waiters_.begin(), window_waiters_.end(),
                                 [](const ref<mr>& m) { return !m->recheck_bound_windows(); });
        done.assign(std::make_move_iterator(it), std::make_move_iterator(window_waiters_.end()));
        window_waiters_.erase(it, window_waiters_.end());
    }
    // References drop outside the lock: the last one may finish an MR's close.
}

device::~device() {
    if (own_sched_) {
        // Tasks still queued hold references on objects; let them finish before the thread goes.
        own_sched_->wait_until([this] { return own_sched_->idle(); }, cfg_.close_timeout);
    }
    NDKSIM_INFO("{}: destroyed", cfg_.name);
}

}  // namespace ndksim::core
