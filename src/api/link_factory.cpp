#include "api/link_factory.hpp"

#include "wire/inproc_link.hpp"

namespace ndksim::api {
namespace {

wire::ip_address own_ip(const core::device& dev) {
    wire::ip_address ip;
    ip.v6 = dev.own_address().v6;
    ip.bytes = dev.own_address().bytes;
    return ip;
}

std::unique_ptr<wire::transport> make_base(core::device& dev, const link_options& opts,
                                           wire::transport::receive_fn rx) {
    return std::make_unique<wire::inproc_link>(own_ip(dev), dev.sched(), std::move(rx),
                                               opts.latency);
}

}  // namespace

nic::engine::transport_factory make_link_factory(core::device& dev, const link_options& opts,
                                                 link_layers& layers) {
    return [&dev, opts, &layers](wire::transport::receive_fn rx) {
        std::unique_ptr<wire::transport> link = make_base(dev, opts, std::move(rx));
        layers.base = link.get();
        return link;
    };
}

}  // namespace ndksim::api
