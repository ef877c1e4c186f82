// SPDX-License-Identifier: MIT
#include "timing/profile.hpp"

#include <dlfcn.h>

// toml++ compiled into this file only: no shared library for consumers of libndksim to find.
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "util/log.hpp"

namespace ndksim::timing {
namespace {

// How a field's number is written in the file and turned into the model's unit.
enum class field_kind : std::uint8_t {
    count,  // a TOML integer, taken as is
    ns,     // nanoseconds (integer or float) -> picoseconds
    gbps,   // gigabits per second -> bits per second
    mhz,    // megahertz -> clock period in picoseconds
    mpps,   // millions of packets per second -> packets per second
};

struct field {
    std::string_view path;  // dotted: section.key
    field_kind kind;
    double min;
    double max;
    bool power_of_two;
    void (*set)(cost_model&, double);
};

sim_time ns_to_ps(double v) {
    return static_cast<sim_time>(std::llround(v * 1'000.0));
}
std::uint32_t u32(double v) {
    return static_cast<std::uint32_t>(v);
}

// Every field a profile may set, with its range (docs/profiles.md lists the same table). The
// ranges keep every formula of cost_model finite and non-zero where it divides, and bound what
// an adapter allocates for its caches at creation (a translation cache entry is 40 bytes).
const std::array<field, 33> fields{{
    {"host.doorbell_mmio_ns", field_kind::ns, 0, 1e6, false,
     [](cost_model& m, double v) { m.host.doorbell_mmio = ns_to_ps(v); }},
    {"host.memory_read_ns", field_kind::ns, 0, 1e6, false,
     [](cost_model& m, double v) { m.host.memory_read = ns_to_ps(v); }},
    {"host.interrupt_ns", field_kind::ns, 0, 1e9, false,
     [](cost_model& m, double v) { m.host.interrupt = ns_to_ps(v); }},
    {"host.wqe_bytes", field_kind::count, 16, 4096, true,
     [](cost_model& m, double v) { m.host.wqe_bytes = u32(v); }},
    {"host.cqe_bytes", field_kind::count, 16, 4096, true,
     [](cost_model& m, double v) { m.host.cqe_bytes = u32(v); }},
    {"host.wqe_push_bytes", field_kind::count, 0, 4096, false,
     [](cost_model& m, double v) { m.host.wqe_push_bytes = u32(v); }},
    {"pcie.generation", field_kind::count, 1, 5, false,
     [](cost_model& m, double v) { m.pcie.generation = u32(v); }},
    {"pcie.lanes", field_kind::count, 1, 32, true,
     [](cost_model& m, double v) { m.pcie.lanes = u32(v); }},
    {"pcie.tlp_overhead_bytes", field_kind::count, 0, 64, false,
     [](cost_model& m, double v) { m.pcie.tlp_overhead_bytes = u32(v); }},
    {"pcie.dllp_overhead_bytes", field_kind::count, 0, 64, false,
     [](cost_model& m, double v) { m.pcie.dllp_overhead_bytes = u32(v); }},
    {"pcie.max_payload_bytes", field_kind::count, 128, 4096, true,
     [](cost_model& m, double v) { m.pcie.max_payload_bytes = u32(v); }},
    {"pcie.max_read_request_bytes", field_kind::count, 128, 4096, true,
     [](cost_model& m, double v) { m.pcie.max_read_request_bytes = u32(v); }},
    {"pcie.read_completion_bytes", field_kind::count, 64, 128, true,
     [](cost_model& m, double v) { m.pcie.read_completion_bytes = u32(v); }},
    {"pcie.crossing_ns", field_kind::ns, 0, 1e6, false,
     [](cost_model& m, double v) { m.pcie.crossing = ns_to_ps(v); }},
    {"nic.clock_mhz", field_kind::mhz, 1, 10'000, false,
     [](cost_model& m, double v) { m.nic.clock_period = ns_to_ps(1'000.0 / v); }},
    {"nic.wqe_cycles", field_kind::count, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.wqe_cycles = u32(v); }},
    {"nic.doorbell_cycles", field_kind::count, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.doorbell_cycles = u32(v); }},
    {"nic.read_response_cycles", field_kind::count, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.read_response_cycles = u32(v); }},
    {"nic.tx_pipeline_cycles", field_kind::count, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.tx_pipeline_cycles = u32(v); }},
    {"nic.rx_pipeline_cycles", field_kind::count, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.rx_pipeline_cycles = u32(v); }},
    {"nic.store_forward_bytes", field_kind::count, 64, 65536, true,
     [](cost_model& m, double v) { m.nic.store_forward_bytes = u32(v); }},
    {"nic.max_mpps", field_kind::mpps, 0.001, 100'000, false,
     [](cost_model& m, double v) {
         m.nic.max_packets_per_second = static_cast<std::uint64_t>(std::llround(v * 1e6));
     }},
    {"nic.mtt_cache_entries", field_kind::count, 0, 1 << 20, false,
     [](cost_model& m, double v) { m.nic.mtt_cache_entries = u32(v); }},
    {"nic.mtt_miss_ns", field_kind::ns, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.mtt_miss = ns_to_ps(v); }},
    {"nic.qpc_cache_entries", field_kind::count, 0, 1e9, false,
     [](cost_model& m, double v) { m.nic.qpc_cache_entries = u32(v); }},
    {"nic.qpc_miss_ns", field_kind::ns, 0, 1e6, false,
     [](cost_model& m, double v) { m.nic.qpc_miss = ns_to_ps(v); }},
    {"wire.link_gbps", field_kind::gbps, 0.001, 10'000, false,
     [](cost_model& m, double v) {
         m.wire.link_bits_per_second = static_cast<std::uint64_t>(std::llround(v * 1e9));
     }},
    {"wire.mtu_bytes", field_kind::count, 256, 4096, true,
     [](cost_model& m, double v) { m.wire.mtu = u32(v); }},
    {"wire.header_bytes", field_kind::count, 0, 256, false,
     [](cost_model& m, double v) { m.wire.header_bytes = u32(v); }},
    {"wire.propagation_ns", field_kind::ns, 0, 1e9, false,
     [](cost_model& m, double v) { m.wire.propagation = ns_to_ps(v); }},
    {"wire.switch_ns", field_kind::ns, 0, 1e9, false,
     [](cost_model& m, double v) { m.wire.switch_latency = ns_to_ps(v); }},
    {"ack.generation_ns", field_kind::ns, 0, 1e9, false,
     [](cost_model& m, double v) { m.ack.generation = ns_to_ps(v); }},
    {"ack.coalesce_ns", field_kind::ns, 0, 1e9, false,
     [](cost_model& m, double v) { m.ack.coalesce_window = ns_to_ps(v); }},
}};

const field* find_field(std::string_view path) {
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [path](const field& f) { return f.path == path; });
    return it == fields.end() ? nullptr : &*it;
}

constexpr std::array<std::string_view, 6> sections{"profile", "host", "pcie", "nic", "wire", "ack"};

struct parser {
    std::string_view source;
    profile_result result;

    bool fail(std::uint32_t line, std::string_view path, const std::string& what) {
        result.error = profile_error::invalid;
        result.message = fmt::format("{}:{}: {}: {}", source, line, path, what);
        return false;
    }

    bool set_number(const field& f, std::string_view path, const toml::node& n) {
        const std::uint32_t line = n.source().begin.line;
        double v = 0;
        if (const auto* i = n.as_integer()) {
            v = static_cast<double>(i->get());
        } else if (const auto* d = n.as_floating_point();
                   d != nullptr && f.kind != field_kind::count) {
            v = d->get();
        } else {
            return fail(line, path,
                        f.kind == field_kind::count ? "must be an integer"
                                                    : "must be a number (integer or float)");
        }
        if (!std::isfinite(v) || v < f.min || v > f.max) {
            return fail(line, path, fmt::format("{} is out of range [{}, {}]", v, f.min, f.max));
        }
        if (f.power_of_two) {
            const auto u = static_cast<std::uint64_t>(v);
            if ((u & (u - 1)) != 0) {
                return fail(line, path, fmt::format("{} is not a power of two", v));
            }
        }
        f.set(result.profile.costs, v);
        return true;
    }

    bool set_text(std::string_view path, const toml::node& n, std::string& out) {
        const auto* s = n.as_string();
        if (s == nullptr) {
            return fail(n.source().begin.line, path, "must be a string");
        }
        out = s->get();
        return true;
    }

    bool section(std::string_view name, const toml::table& t) {
        for (const auto& [key, node] : t) {
            const std::string path = fmt::format("{}.{}", name, key.str());
            if (name == "profile" && key.str() == "name") {
                if (!set_text(path, node, result.profile.name)) {
                    return false;
                }
            } else if (name == "profile" && key.str() == "description") {
                if (!set_text(path, node, result.profile.description)) {
                    return false;
                }
            } else if (const field* f = find_field(path); f == nullptr) {
                return fail(node.source().begin.line, path, "unknown field");
            } else if (!set_number(*f, path, node)) {
                return false;
            }
        }
        return true;
    }

    bool document(const toml::table& root) {
        for (const auto& [key, node] : root) {
            const std::string_view name = key.str();
            const bool known = std::find(sections.begin(), sections.end(), name) != sections.end();
            if (!known) {
                return fail(node.source().begin.line, name, "unknown section");
            }
            const auto* t = node.as_table();
            if (t == nullptr) {
                return fail(node.source().begin.line, name, "must be a table ([section])");
            }
            if (!section(name, *t)) {
                return false;
            }
        }
        return true;
    }
};

std::optional<std::filesystem::path> find_named(std::string_view name) {
    const std::string file = std::string(name) + ".toml";
    for (const std::filesystem::path& dir : profile_search_path()) {
        std::error_code ec;
        const std::filesystem::path p = dir / file;
        if (std::filesystem::is_regular_file(p, ec)) {
            return p;
        }
    }
    return std::nullopt;
}

// A name is a file stem in a search directory: nothing that could leave it.
bool valid_name(std::string_view name) {
    if (name.empty() || name.front() == '.') {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
    });
}

}  // namespace

bool is_profile_path(std::string_view spec) noexcept {
    return spec.find('/') != std::string_view::npos ||
           (spec.size() >= 5 && spec.substr(spec.size() - 5) == ".toml");
}

std::vector<std::filesystem::path> profile_search_path() {
    std::vector<std::filesystem::path> dirs;
    if (const char* env = std::getenv("NDKSIM_PROFILE_PATH"); env != nullptr) {
        std::string_view rest(env);
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string_view entry = rest.substr(0, colon);
            if (!entry.empty()) {
                dirs.emplace_back(entry);
            }
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
#ifdef NDKSIM_LIB_TO_PROFILES
    // The installed tree's own profiles, found from where the library lies, so that a prefix
    // other than the configured one (an extracted package, a moved install) finds its files.
    Dl_info self{};
    if (::dladdr(reinterpret_cast<void*>(&profile_search_path), &self) != 0 &&
        self.dli_fname != nullptr) {
        dirs.push_back(
            (std::filesystem::path(self.dli_fname).parent_path() / NDKSIM_LIB_TO_PROFILES)
                .lexically_normal());
    }
#endif
#ifdef NDKSIM_BUILD_PROFILES_DIR
    dirs.emplace_back(NDKSIM_BUILD_PROFILES_DIR);
#endif
#ifdef NDKSIM_INSTALLED_PROFILES_DIR
    dirs.emplace_back(NDKSIM_INSTALLED_PROFILES_DIR);
#endif
    return dirs;
}

profile_result parse_profile(std::string_view text, std::string_view source) {
    parser p{source, {}};
    try {
        const toml::table root = toml::parse(text, source);
        p.document(root);
    } catch (const toml::parse_error& e) {
        p.result.error = profile_error::invalid;
        p.result.message =
            fmt::format("{}:{}: syntax error: {}", source, e.source().begin.line, e.description());
    }
    if (p.result.ok()) {
        p.result.profile.costs.derive();
        p.result.profile.source = std::string(source);
    }
    return p.result;
}

profile_result load_profile_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        profile_result r;
        r.error = profile_error::invalid;
        r.message = fmt::format("{}: cannot open the profile file", file.string());
        return r;
    }
    std::ostringstream text;
    text << in.rdbuf();
    profile_result r = parse_profile(text.str(), file.string());
    if (r.ok() && r.profile.name.empty()) {
        r.profile.name = file.stem().string();
    }
    return r;
}

profile_result load_profile(std::string_view spec) {
    if (is_profile_path(spec)) {
        return load_profile_file(std::filesystem::path(spec));
    }
    if (valid_name(spec)) {
        if (const std::optional<std::filesystem::path> file = find_named(spec)) {
            return load_profile_file(*file);
        }
    }
    profile_result r;
    if (spec == default_profile_name) {
        // The built-in defaults are the cx4-edr profile: an installation without its data
        // files still runs.
        NDKSIM_DEBUG("profile {}: no file in the search path; using the built-in defaults", spec);
        r.profile.name = std::string(spec);
        r.profile.source = "<built-in>";
        return r;
    }
    std::string searched;
    for (const std::filesystem::path& dir : profile_search_path()) {
        if (!searched.empty()) {
            searched += ", ";
        }
        searched += dir.string();
    }
    r.error = profile_error::not_found;
    r.message = fmt::format(
        "unknown NIC profile '{}' (searched: {}; NDKSIM_PROFILE_PATH adds "
        "directories)",
        spec, searched.empty() ? "nothing" : searched);
    return r;
}

}  // namespace ndksim::timing
