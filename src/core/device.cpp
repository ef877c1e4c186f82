#include "core/device.hpp"

#include "util/log.hpp"

namespace ndksim::core {

device::device(device_config cfg, const adapter_limits& limits)
    : cfg_(std::move(cfg)),
      limits_(limits),
      sched_(cfg_.loop),
      policy_(cfg_.style, cfg_.pending_percent, cfg_.seed) {
    // The C entry point validated the literal already; an unparsable one leaves 0.0.0.0.
    (void)net_address::parse_ip(cfg_.address, own_address_);
    if (sched_ == nullptr) {
        own_sched_ = std::make_unique<timing::scheduler>(timing::scheduler::options{
            timing::run_mode::threaded, cfg_.poll, "ndksim-" + cfg_.name});
        sched_ = own_sched_.get();
    }
    NDKSIM_INFO("{}: created at {} ({} mode, profile {})", cfg_.name, cfg_.address,
                sched_->mode() == timing::run_mode::threaded ? "threaded" : "deterministic",
                cfg_.profile);
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

device::~device() {
    if (own_sched_) {
        // Tasks still queued hold references on objects; let them finish before the thread goes.
        own_sched_->wait_until([this] { return own_sched_->idle(); }, cfg_.close_timeout);
    }
    NDKSIM_INFO("{}: destroyed", cfg_.name);
}

}  // namespace ndksim::core
