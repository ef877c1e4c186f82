#include "api/link_factory.hpp"

#include <array>

#include "wire/inproc_link.hpp"
#include "wire/tcp_transport.hpp"
#include "wire/udp_transport.hpp"

namespace ndksim::api {
namespace {

wire::ip_address own_ip(const core::device& dev) {
    wire::ip_address ip;
    ip.v6 = dev.own_address().v6;
    ip.bytes = dev.own_address().bytes;
    return ip;
}

using base_maker = std::unique_ptr<wire::transport> (*)(core::device&, const link_options&,
                                                        wire::transport::receive_fn);

std::unique_ptr<wire::transport> make_inproc(core::device& dev, const link_options& opts,
                                             wire::transport::receive_fn rx) {
    return std::make_unique<wire::inproc_link>(own_ip(dev), dev.sched(), std::move(rx),
                                               opts.latency);
}

std::unique_ptr<wire::transport> make_udp(core::device& dev, const link_options& opts,
                                          wire::transport::receive_fn rx) {
    return std::make_unique<wire::udp_transport>(own_ip(dev), opts.port, dev.sched(),
                                                 std::move(rx), opts.latency);
}

std::unique_ptr<wire::transport> make_tcp(core::device& dev, const link_options& opts,
                                          wire::transport::receive_fn rx) {
    return std::make_unique<wire::tcp_transport>(own_ip(dev), opts.port, dev.sched(),
                                                 std::move(rx), opts.latency);
}

// Indexed by core::wire_kind. The socket transports throw wire::socket_setup_error when their
// address:port cannot be bound; create_adapter turns it into a status.
constexpr std::array<base_maker, 3> k_base_makers = {make_inproc, make_udp, make_tcp};
static_assert(static_cast<std::size_t>(core::wire_kind::inproc) == 0 &&
              static_cast<std::size_t>(core::wire_kind::udp) == 1 &&
              static_cast<std::size_t>(core::wire_kind::tcp) == 2);

std::unique_ptr<wire::transport> make_base(core::device& dev, const link_options& opts,
                                           wire::transport::receive_fn rx) {
    return k_base_makers.at(static_cast<std::size_t>(opts.wire))(dev, opts, std::move(rx));
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
