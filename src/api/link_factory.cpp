#include "api/link_factory.hpp"

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "util/log.hpp"
#include "wire/capture_link.hpp"
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

// Two diagnostics of the UDP wire (docs/wire-format.md, "On the socket"): NDKSIM_UDP_OFFLOAD=off
// keeps it to one datagram per message each way, as on a kernel without UDP_SEGMENT and
// UDP_GRO, and NDKSIM_UDP_BUFFER=<bytes> asks for other socket buffers: for comparing, and for
// tests of the fallback and of overrun recovery through the public API.
wire::udp_options udp_options_from_environment() {
    wire::udp_options o;
    if (const char* env = std::getenv("NDKSIM_UDP_OFFLOAD"); env != nullptr) {
        const bool off = std::string_view(env) == "off" || std::string_view(env) == "0";
        o.segmentation = !off;
        o.receive_offload = !off;
    }
    if (const char* env = std::getenv("NDKSIM_UDP_BUFFER"); env != nullptr) {
        char* end = nullptr;
        const unsigned long long bytes = std::strtoull(env, &end, 10);
        if (end != env && *end == '\0' && bytes >= 4096 && bytes <= (1ULL << 30)) {
            o.buffer_bytes = static_cast<std::size_t>(bytes);
        } else {
            NDKSIM_WARN("NDKSIM_UDP_BUFFER={} is not a size in [4096, 2^30] bytes; ignored", env);
        }
    }
    return o;
}

std::unique_ptr<wire::transport> make_udp(core::device& dev, const link_options& opts,
                                          wire::transport::receive_fn rx) {
    return std::make_unique<wire::udp_transport>(own_ip(dev), opts.port, dev.sched(), std::move(rx),
                                                 opts.latency, udp_options_from_environment());
}

std::unique_ptr<wire::transport> make_tcp(core::device& dev, const link_options& opts,
                                          wire::transport::receive_fn rx) {
    return std::make_unique<wire::tcp_transport>(own_ip(dev), opts.port, dev.sched(), std::move(rx),
                                                 opts.latency);
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

bool valid_faults(const ndksim_link_faults& faults) noexcept {
    return faults.drop_ppm <= wire::k_fault_ppm_max &&
           faults.duplicate_ppm <= wire::k_fault_ppm_max &&
           faults.reorder_ppm <= wire::k_fault_ppm_max &&
           faults.corrupt_ppm <= wire::k_fault_ppm_max;
}

wire::fault_settings to_fault_settings(const ndksim_link_faults& faults,
                                       std::uint64_t adapter_seed) {
    wire::fault_settings s;
    s.drop_ppm = faults.drop_ppm;
    s.duplicate_ppm = faults.duplicate_ppm;
    s.reorder_ppm = faults.reorder_ppm;
    s.corrupt_ppm = faults.corrupt_ppm;
    s.delay_ps = faults.delay_ps;
    s.reorder_delay_ps = faults.reorder_delay_ps;
    s.seed = faults.seed != 0 ? faults.seed : adapter_seed;
    return s;
}

nic::engine::transport_factory make_link_factory(core::device& dev, const link_options& opts,
                                                 link_layers& layers) {
    return [&dev, opts, &layers](wire::transport::receive_fn rx) {
        // Capture is the outermost layer: it records what the adapter sends before the link
        // decides its fate (as a capture on the sending host would), and what arrives before the
        // engine sees it.
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
        // The fault layer is always there (all rates zero is a perfect link), so faults can be
        // switched on and the link cut while the adapter runs. It wraps the receive function
        // too, so a cut link loses frames in both directions.
        auto faults = std::make_unique<wire::faulty_link>(
            to_fault_settings(opts.faults, dev.config().seed), std::move(rx));
        std::unique_ptr<wire::transport> base = make_base(dev, opts, faults->receiver());
        layers.base = base.get();
        layers.faults = faults.get();
        faults->attach(std::move(base));
        std::unique_ptr<wire::transport> link = std::move(faults);
        if (capture) {
            link = std::make_unique<wire::capture_link>(std::move(link), std::move(capture));
        }
        return link;
    };
}

}  // namespace ndksim::api
