// SPDX-License-Identifier: MIT
#include "api/link_factory.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "util/log.hpp"
#include "wire/capture_link.hpp"
#include "wire/inproc_link.hpp"
#include "wire/socket_transport.hpp"
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
                                                 opts.latency, udp_options_from_environment(),
                                                 dev.sync());
}

std::unique_ptr<wire::transport> make_tcp(core::device& dev, const link_options& opts,
                                          wire::transport::receive_fn rx) {
    return std::make_unique<wire::tcp_transport>(own_ip(dev), opts.port, dev.sched(), std::move(rx),
                                                 opts.latency, dev.sync());
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

namespace {

// Where the statistics document puts the counters of each layer (docs/statistics.md).
template <class Counters>
using counter_paths =
    std::initializer_list<std::pair<const char*, std::atomic<std::uint64_t> Counters::*>>;

const counter_paths<wire::link_counters> k_link_paths = {
    {"link.frames_sent", &wire::link_counters::frames_sent},
    {"link.frames_received", &wire::link_counters::frames_received},
    {"link.bytes_sent", &wire::link_counters::bytes_sent},
    {"drops.unroutable", &wire::link_counters::frames_unroutable},
};

const counter_paths<wire::fault_counters> k_fault_paths = {
    {"faults.dropped", &wire::fault_counters::dropped},
    {"faults.duplicated", &wire::fault_counters::duplicated},
    {"faults.reordered", &wire::fault_counters::reordered},
    {"faults.corrupted", &wire::fault_counters::corrupted},
    {"faults.delayed", &wire::fault_counters::delayed},
    {"faults.cut_sent", &wire::fault_counters::cut_sent},
    {"faults.cut_received", &wire::fault_counters::cut_received},
};

const counter_paths<wire::socket_counters> k_socket_paths = {
    {"sockets.bad_frames", &wire::socket_counters::bad_frames},
    {"sockets.bad_records", &wire::socket_counters::bad_records},
    {"sockets.frames_dropped", &wire::socket_counters::frames_dropped},
    {"sockets.send_errors", &wire::socket_counters::send_errors},
    {"sockets.receive_errors", &wire::socket_counters::receive_errors},
    {"sockets.connections_opened", &wire::socket_counters::connections_opened},
    {"sockets.connections_accepted", &wire::socket_counters::connections_accepted},
    {"sockets.departures_refused", &wire::socket_counters::departures_refused},
    {"sockets.receive_overruns", &wire::socket_counters::receive_overruns},
    {"sockets.backlog_dropped", &wire::socket_counters::backlog_dropped},
    {"sockets.sync_records_sent", &wire::socket_counters::sync_records_sent},
    {"sockets.sync_records_received", &wire::socket_counters::sync_records_received},
    {"sockets.sync_records_refused", &wire::socket_counters::sync_records_refused},
    {"sockets.frames_to_lost_peers", &wire::socket_counters::frames_to_lost_peers},
    {"sockets.reads_paused", &wire::socket_counters::reads_paused},
};

// Registers `counters` under `paths`, or every path as absent when there is no such layer.
template <class Counters>
void register_layer(const Counters* counters, const counter_paths<Counters>& paths,
                    nic::stats_registry& stats) {
    for (const auto& [path, cell] : paths) {
        if (counters != nullptr) {
            stats.add_counter(path, counters->*cell);
        } else {
            stats.add_absent_counter(path);
        }
    }
}

}  // namespace

void register_link_counters(const link_layers& layers, nic::stats_registry& stats) {
    // The link counters are read through the fault layer, which lives as long as the adapter:
    // the transport under it may be replaced (a test attaches a recording link in its place),
    // and a counter registered on the first one would outlive it.
    if (const wire::faulty_link* faults = layers.faults; faults != nullptr) {
        for (const auto& [path, cell] : k_link_paths) {
            stats.add_counter(path, [faults, cell = cell] {
                return (faults->counters().*cell).load(std::memory_order_relaxed);
            });
        }
    } else {
        register_layer(layers.base != nullptr ? &layers.base->counters() : nullptr, k_link_paths,
                       stats);
    }
    register_layer(layers.faults != nullptr ? &layers.faults->faults() : nullptr, k_fault_paths,
                   stats);
    // Only the UDP and TCP transports have sockets; the in-process link has none.
    const auto* sockets = dynamic_cast<const wire::socket_transport*>(layers.base);
    register_layer(sockets != nullptr ? &sockets->socket_stats() : nullptr, k_socket_paths, stats);
}

}  // namespace ndksim::api
