#include "api/link_factory.hpp"

#include <stdexcept>
#include <string>

#include "util/log.hpp"
#include "wire/capture_link.hpp"
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
        // Capture is the outermost layer: it records what leaves the adapter after every
        // other layer decided (and what arrives before the engine sees it).
        std::shared_ptr<wire::shared_capture> capture;
        if (opts.pcap_path != nullptr) {
            try {
                rx = wire::capture_link::wrap(opts.pcap_path, own_ip(dev), dev.sched(),
                                              std::move(rx), capture);
            } catch (const std::runtime_error& e) {
                NDKSIM_ERROR("{}: pcap_path: {}", dev.name(), e.what());
                throw link_config_error(e.what());
            }
        }
        layers.receive = rx;
        std::unique_ptr<wire::transport> link = make_base(dev, opts, std::move(rx));
        layers.base = link.get();
        if (capture) {
            link = std::make_unique<wire::capture_link>(std::move(link), std::move(capture));
        }
        return link;
    };
}

}  // namespace ndksim::api
