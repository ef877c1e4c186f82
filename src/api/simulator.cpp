// SPDX-License-Identifier: MIT
// The ndksim.h entry points: loops, adapters, NDK_ADAPTER handles.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "api/dispatch_tables.hpp"
#include "api/link_factory.hpp"
#include "core/adapter.hpp"
#include "core/device.hpp"
#include "ndksim.h"
#include "nic/engine.hpp"
#include "timing/profile.hpp"
#include "timing/scheduler.hpp"
#include "timing/sync_domain.hpp"
#include "util/refusal.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::api {
namespace {

// IP addresses owned by the adapters of this process: one address belongs to one NIC, as on a
// real host, so the in-process link can find an adapter by its address.
std::mutex g_addresses_mutex;
std::set<std::string> g_addresses;
std::atomic<unsigned> g_adapter_count{0};

// Reads an enum field of a caller's config as the integer stored there. C lets a caller store
// any int in an enum object, while C++ may not load a value outside the enum's range as the
// enum type (undefined behaviour), so every enum field is read through its bytes and then
// validated.
template <class Enum>
int raw_value(const Enum& field) noexcept {
    static_assert(sizeof(Enum) == sizeof(int), "the C enums of ndksim.h are int-sized");
    int value = 0;
    std::memcpy(&value, &field, sizeof value);
    return value;
}

core::completion_style to_style(int s, bool& ok) {
    ok = true;
    switch (s) {
        case NDKSIM_COMPLETE_INLINE:
            return core::completion_style::inline_;
        case NDKSIM_COMPLETE_PENDING:
            return core::completion_style::pending;
        case NDKSIM_COMPLETE_RANDOM:
            return core::completion_style::random;
    }
    ok = false;
    return core::completion_style::inline_;
}

timing::poll_policy to_poll(int p, bool& ok) {
    ok = true;
    switch (p) {
        case NDKSIM_POLL_BLOCK:
            return timing::poll_policy::block;
        case NDKSIM_POLL_SPIN:
            return timing::poll_policy::spin;
        case NDKSIM_POLL_SPIN_THEN_BLOCK:
            return timing::poll_policy::spin_then_block;
        case NDKSIM_POLL_CONSUMER:
            return timing::poll_policy::consumer;
    }
    ok = false;
    return timing::poll_policy::block;
}

NTSTATUS invalid_config(const char* what) {
    NDKSIM_ERROR("ndksim_adapter_create: {}", what);
    return STATUS_INVALID_PARAMETER;
}

// The status of a socket wire whose address:port cannot be bound: the port is taken (another
// process, or another ndksim adapter, owns it), or the IP is not one of this host's.
NTSTATUS socket_setup_status(int error) {
    switch (error) {
        case EADDRINUSE:
            return STATUS_ADDRESS_ALREADY_EXISTS;
        case EADDRNOTAVAIL:
            return STATUS_INVALID_ADDRESS;
        default:
            return STATUS_INSUFFICIENT_RESOURCES;
    }
}

// The size of ndksim_adapter_config before the interface identity fields were appended: the
// smallest size ndksim_adapter_create accepts. The first appended field is a pointer, so it
// starts exactly where the older structure (padding included) ended.
constexpr ULONG k_config_size_v1 = offsetof(ndksim_adapter_config, interface_alias);
static_assert(k_config_size_v1 == (offsetof(ndksim_adapter_config, rotate_fast_register_tokens) +
                                   sizeof(BOOLEAN) + alignof(void*) - 1) /
                                      alignof(void*) * alignof(void*),
              "the appended fields start where the older structure ended");

// NDKSIM_TIME_MODE, when set, names the time mode of every threaded adapter (so a program
// that never sets time_mode can be run in synchronized time). False when it names none.
bool time_mode_from_env(int& mode) {
    const char* env = std::getenv("NDKSIM_TIME_MODE");
    if (env == nullptr || *env == '\0') {
        return true;
    }
    static constexpr std::pair<std::string_view, int> k_modes[] = {
        {"virtual", NDKSIM_TIME_VIRTUAL},
        {"paced", NDKSIM_TIME_PACED},
        {"synchronized", NDKSIM_TIME_SYNCHRONIZED},
    };
    for (const auto& [name, value] : k_modes) {
        if (name == env) {
            mode = value;
            return true;
        }
    }
    return false;
}

// Step 1: the caller's config, with the defaults of the fields a caller built against an older
// ndksim.h lacks (ndksim.h: "size" versioning).
NTSTATUS read_config(const ndksim_adapter_config* given, ndksim_adapter_config& full) {
    if (given->size < k_config_size_v1 || given->size > sizeof(ndksim_adapter_config)) {
        return invalid_config(
            "config->size is not the size of an ndksim_adapter_config; start from "
            "ndksim_adapter_config_init()");
    }
    ndksim_adapter_config_init(&full);
    std::memcpy(&full, given, given->size);
    return STATUS_SUCCESS;
}

// Step 2: the device's identity (name, address) and its NIC profile. The profile is a name in
// the profile search path or a path to a TOML file (docs/profiles.md); its parameters become
// the engine's cost model.
NTSTATUS identity_and_profile(const ndksim_adapter_config& config, core::device_config& cfg,
                              core::net_address& parsed, timing::profile_result& profile) {
    const unsigned number = ++g_adapter_count;
    cfg.name = config.name != nullptr ? config.name : "nic" + std::to_string(number);
    cfg.address = config.address != nullptr ? config.address : "127.0.0.1";
    if (!core::net_address::parse_ip(cfg.address, parsed)) {
        NDKSIM_ERROR("ndksim_adapter_create: address '{}' is not an IPv4 or IPv6 literal",
                     cfg.address);
        return STATUS_INVALID_PARAMETER;
    }
    cfg.profile =
        config.profile != nullptr ? config.profile : std::string(timing::default_profile_name);
    profile = timing::load_profile(cfg.profile);
    if (!profile.ok()) {
        NDKSIM_ERROR("ndksim_adapter_create: {}", profile.message);
        return profile.error == timing::profile_error::not_found ? STATUS_NOT_SUPPORTED
                                                                 : STATUS_INVALID_PARAMETER;
    }
    // What the device itself models from the profile: its translation cache's size (fixed
    // here, so lookups never allocate) and the interrupt a CQ notification costs.
    cfg.translation_cache_entries = profile.profile.costs.nic.mtt_cache_entries;
    cfg.notification_interrupt = profile.profile.costs.host.interrupt;
    return STATUS_SUCCESS;
}

// Step 3: how the device completes calls and polls, checked field by field.
NTSTATUS completion_and_polling(const ndksim_adapter_config& config, core::device_config& cfg) {
    bool ok = false;
    cfg.style = to_style(raw_value(config.completion_style), ok);
    if (!ok) {
        return invalid_config("completion_style is not an ndksim_completion_style");
    }
    if (config.pending_percent > 100) {
        return invalid_config("pending_percent is above 100");
    }
    cfg.pending_percent = config.pending_percent;
    cfg.seed = config.seed;
    cfg.rotate_fast_register_tokens = config.rotate_fast_register_tokens != FALSE;
    const int verifier = raw_value(config.verifier);
    if (verifier < NDKSIM_VERIFIER_DEFAULT || verifier > NDKSIM_VERIFIER_BREAK) {
        return invalid_config("verifier is not an ndksim_verifier_mode");
    }
    cfg.verifier = verifier == NDKSIM_VERIFIER_DEFAULT ? verifier::from_environment()
                                                       : static_cast<verifier::mode>(verifier - 1);
    cfg.poll = to_poll(raw_value(config.poll_policy), ok);
    if (!ok) {
        return invalid_config("poll_policy is not an ndksim_poll_policy");
    }
    cfg.close_timeout = std::chrono::milliseconds(config.close_timeout_ms);
    return STATUS_SUCCESS;
}

// Step 4: the wire and the time mode, which constrain each other (a socket or a paced clock
// needs an engine thread of its own).
NTSTATUS wire_and_time(const ndksim_adapter_config& config, core::device_config& cfg) {
    switch (raw_value(config.wire)) {
        case NDKSIM_WIRE_DEFAULT:
        case NDKSIM_WIRE_INPROC:
            cfg.wire = core::wire_kind::inproc;
            break;
        case NDKSIM_WIRE_UDP:
            cfg.wire = core::wire_kind::udp;
            break;
        case NDKSIM_WIRE_TCP:
            cfg.wire = core::wire_kind::tcp;
            break;
        default:
            return invalid_config("wire is not an ndksim_wire");
    }
    if (!api::valid_faults(config.faults)) {
        return invalid_config("a faults rate is above 1000000 (parts per million)");
    }
    if (cfg.wire != core::wire_kind::inproc && config.loop != nullptr) {
        // A socket's handlers run on the adapter's own engine thread, and frames from another
        // process arrive on the wall clock: a deterministic loop can drive neither.
        return invalid_config("the UDP and TCP wires need threaded mode (loop must be NULL)");
    }
    int time_mode = raw_value(config.time_mode);
    if (time_mode != NDKSIM_TIME_VIRTUAL && time_mode != NDKSIM_TIME_PACED &&
        time_mode != NDKSIM_TIME_SYNCHRONIZED) {
        return invalid_config("time_mode is not an ndksim_time_mode");
    }
    if (config.loop == nullptr && !time_mode_from_env(time_mode)) {
        return invalid_config("NDKSIM_TIME_MODE is not virtual, paced or synchronized");
    }
    if (time_mode == NDKSIM_TIME_SYNCHRONIZED) {
        if (config.loop != nullptr) {
            return invalid_config(
                "NDKSIM_TIME_SYNCHRONIZED needs threaded mode (loop must be NULL): a "
                "deterministic loop is exact already");
        }
        if (cfg.poll == timing::poll_policy::consumer) {
            // The synchronized adapters of a process share one engine thread, which the gate
            // paces; a consumer thread cannot take it over.
            return invalid_config(
                "NDKSIM_POLL_CONSUMER cannot be used with NDKSIM_TIME_SYNCHRONIZED: the "
                "process's synchronized adapters share one engine thread");
        }
        cfg.synchronized = true;
        if (config.sync_consumer_grace_ms != 0) {
            cfg.sync.consumer_grace = std::chrono::milliseconds(config.sync_consumer_grace_ms);
        }
        if (config.sync_peer_silence_ms != 0) {
            cfg.sync.peer_silence = std::chrono::milliseconds(config.sync_peer_silence_ms);
        }
    }
    if (time_mode == NDKSIM_TIME_PACED) {
        if (config.loop != nullptr) {
            return invalid_config(
                "NDKSIM_TIME_PACED needs threaded mode (loop must be NULL): a "
                "deterministic loop runs as fast as its owner drives it");
        }
        if (!(config.pace_factor > 0.0) || config.pace_factor > 1e6) {
            return invalid_config("pace_factor must be above 0 and at most 1e6");
        }
        cfg.paced = true;
        cfg.pace_factor = config.pace_factor;
    }
    cfg.port = config.port;
    if (config.loop != nullptr) {
        cfg.loop = &config.loop->sched;
    }
    return STATUS_SUCCESS;
}

// Step 4b: the consumer-facing fault script (docs/fault-injection.md) and the error-path
// coverage record: the config's script text, else the file named by NDKSIM_FAULTS. A script
// that does not parse refuses the adapter, naming the fault.
struct consumer_faults {
    std::optional<api::fault_script> script;
    bool coverage = false;
};

NTSTATUS faults_and_coverage(const ndksim_adapter_config& config, consumer_faults& out) {
    api::fault_script parsed_script;
    std::string error;
    const char* path = std::getenv("NDKSIM_FAULTS");
    if (config.fault_script != nullptr) {
        error = api::parse_fault_script(config.fault_script, "fault_script", parsed_script);
        out.script = std::move(parsed_script);
    } else if (path != nullptr && *path != '\0') {
        error = api::load_fault_file(path, parsed_script);
        out.script = std::move(parsed_script);
    }
    if (!error.empty()) {
        return invalid_config(error.c_str());
    }
    out.coverage = config.coverage != FALSE || std::getenv("NDKSIM_COVERAGE") != nullptr;
    return STATUS_SUCCESS;
}

// Step 5: the adapter's address and network interface identity, held for it until the
// adapter is published; a create that fails below gives both back when this goes.
class identity_reservation {
  public:
    identity_reservation() = default;
    identity_reservation(const identity_reservation&) = delete;
    identity_reservation& operator=(const identity_reservation&) = delete;
    ~identity_reservation() {
        if (iface_ != nullptr) {
            api::interfaces::withdraw(iface_);
        }
        if (!address_.empty()) {
            std::lock_guard lock(g_addresses_mutex);
            g_addresses.erase(address_);
        }
    }

    // One address belongs to one NIC of this process, and the interface index and alias to
    // one interface (docs/kernel-runtime.md, "Interfaces").
    NTSTATUS reserve(const ndksim_adapter_config& config, const core::device_config& cfg,
                     const core::net_address& parsed) {
        {
            std::lock_guard lock(g_addresses_mutex);
            if (!g_addresses.insert(cfg.address).second) {
                NDKSIM_ERROR(
                    "ndksim_adapter_create: address {} already belongs to another adapter "
                    "of this process",
                    cfg.address);
                return STATUS_ADDRESS_ALREADY_EXISTS;
            }
        }
        address_ = cfg.address;
        std::u16string alias;
        if (!api::interfaces::utf8_to_utf16(
                config.interface_alias != nullptr ? config.interface_alias : cfg.name, alias)) {
            return invalid_config("interface_alias (or the name it defaults to) is not UTF-8");
        }
        iface_ = api::interfaces::reserve(config.interface_index, std::move(alias),
                                          config.interface_alias == nullptr, parsed);
        if (iface_ == nullptr) {
            return STATUS_INVALID_PARAMETER;  // already logged with the reason
        }
        return STATUS_SUCCESS;
    }

    // The adapter keeps both from now on; ndksim_adapter_destroy gives them back.
    std::shared_ptr<interface_entry> commit() {
        address_.clear();
        return std::exchange(iface_, nullptr);
    }

  private:
    std::string address_;
    std::shared_ptr<interface_entry> iface_;
};

// Step 6: the engine's parameters: the profile's costs and the reliability limits.
nic::engine_config engine_config_for(const ndksim_adapter_config& config,
                                     const core::device_config& cfg,
                                     const timing::nic_profile& profile) {
    nic::engine_config ecfg;
    if (cfg.wire == core::wire_kind::udp && !cfg.synchronized) {
        ecfg.host_window_packets = nic::k_udp_host_window_packets;
    } else if (cfg.wire == core::wire_kind::tcp && !cfg.synchronized) {
        ecfg.host_window_packets = nic::k_tcp_host_window_packets;
    } else if (cfg.wire == core::wire_kind::inproc && cfg.loop == nullptr && !cfg.synchronized) {
        ecfg.host_window_packets = nic::k_inproc_host_window_packets;
    }
    ecfg.costs = profile.costs;
    ecfg.rnr_retry_limit = config.rnr_retry_limit;
    ecfg.ack_timeout = timing::microseconds(config.ack_timeout_us);
    ecfg.retry_limit = config.retry_limit;
    if (config.cm_timeout_ms != 0) {
        ecfg.cm_response_timeout = timing::milliseconds(config.cm_timeout_ms);
    }
    return ecfg;
}

// Step 7: the device, its engine, its link, and the link's counters in the adapter's
// statistics. Throws what the link factory and the socket
// transports throw (link_config_error, socket_setup_error) and std::exception otherwise.
std::unique_ptr<ndksim_adapter> build_adapter(const ndksim_adapter_config& config,
                                              core::device_config cfg,
                                              const timing::nic_profile& profile,
                                              consumer_faults& faults) {
    auto a =
        std::make_unique<ndksim_adapter>(std::move(cfg), core::connectx_like_limits(), config.loop);
    const nic::engine_config ecfg = engine_config_for(config, cfg, profile);
    api::link_options link;
    link.wire = a->dev.config().wire;
    link.port = a->dev.config().port;
    link.latency = ecfg.costs.propagation;
    link.faults = faults.script && faults.script->has_link ? faults.script->link : config.faults;
    if (faults.script || faults.coverage) {
        // Before the engine and any object exist: every object gets the hooked tables.
        ndksim_adapter* self = a.get();
        a->faults = std::make_unique<api::fault_engine>(
            faults.script ? std::move(*faults.script) : api::fault_script{}, a->dev.config().seed,
            [self] {
                if (self->link.faults != nullptr) {
                    self->link.faults->cut(true);
                }
            });
        a->coverage_at_destroy = faults.coverage;
        a->dev.set_consumer_hooks(a->faults.get());
    }
    link.pcap_path = config.pcap_path;
    a->engine =
        std::make_unique<nic::engine>(a->dev, ecfg, api::make_link_factory(a->dev, link, a->link));
    api::register_link_counters(a->link, a->engine->stats());
    // A socket wire receives only once the engine that gets its frames is complete.
    if (auto* sockets = dynamic_cast<wire::socket_transport*>(a->link.base)) {
        sockets->start();
    }
    return a;
}

// Step 7 with its failures as the statuses ndksim_adapter_create documents.
NTSTATUS build_adapter_status(const ndksim_adapter_config& config, core::device_config cfg,
                              const timing::nic_profile& profile, consumer_faults& faults,
                              std::unique_ptr<ndksim_adapter>& out) {
    try {
        out = build_adapter(config, std::move(cfg), profile, faults);
        return STATUS_SUCCESS;
    } catch (const api::link_config_error&) {
        return STATUS_INVALID_PARAMETER;  // already logged with the adapter's name
    } catch (const wire::socket_setup_error& e) {
        NDKSIM_ERROR("ndksim_adapter_create: {}", e.what());
        return socket_setup_status(e.code().value());
    } catch (const std::exception& e) {
        NDKSIM_ERROR("ndksim_adapter_create: {}", e.what());
        return STATUS_INSUFFICIENT_RESOURCES;
    }
}

NTSTATUS create_adapter(const ndksim_adapter_config* given, ndksim_adapter** out) {
    if (given == nullptr || out == nullptr) {
        return invalid_config("config or adapter pointer is NULL");
    }
    ndksim_adapter_config config;
    core::device_config cfg;
    core::net_address parsed;
    timing::profile_result profile;
    identity_reservation identity;
    std::unique_ptr<ndksim_adapter> a;
    NTSTATUS s = read_config(given, config);
    if (s == STATUS_SUCCESS) {
        s = identity_and_profile(config, cfg, parsed, profile);
    }
    if (s == STATUS_SUCCESS) {
        s = completion_and_polling(config, cfg);
    }
    if (s == STATUS_SUCCESS) {
        s = wire_and_time(config, cfg);
    }
    consumer_faults faults;
    if (s == STATUS_SUCCESS) {
        s = faults_and_coverage(config, faults);
    }
    if (s == STATUS_SUCCESS) {
        s = identity.reserve(config, cfg, parsed);
    }
    if (s == STATUS_SUCCESS) {
        s = build_adapter_status(config, std::move(cfg), profile.profile, faults, a);
    }
    if (s != STATUS_SUCCESS) {
        return s;
    }
    a->iface = identity.commit();
    if (config.loop != nullptr) {
        config.loop->adapters.fetch_add(1);
    }
    *out = a.release();
    api::interfaces::publish((*out)->iface, **out);
    return STATUS_SUCCESS;
}

}  // namespace
}  // namespace ndksim::api

using namespace ndksim;

extern "C" {

NDKSIM_API void ndksim_adapter_config_init(ndksim_adapter_config* config) {
    if (config == nullptr) {
        return;
    }
    *config = ndksim_adapter_config{};
    config->size = sizeof(ndksim_adapter_config);
    config->completion_style = NDKSIM_COMPLETE_INLINE;
    config->pending_percent = 50;
    config->seed = 1;
    config->poll_policy = NDKSIM_POLL_BLOCK;
    config->wire = NDKSIM_WIRE_DEFAULT;
    config->port = 4791;
    config->close_timeout_ms = 10'000;
    config->rnr_retry_limit = nic::engine_config::k_default_rnr_retry_limit;
    config->ack_timeout_us = 16000;
    config->retry_limit = 7;
    config->time_mode = NDKSIM_TIME_VIRTUAL;
    config->pace_factor = 1.0;
    config->cm_timeout_ms = 1000;
    config->verifier = NDKSIM_VERIFIER_DEFAULT;
}

NDKSIM_API NTSTATUS ndksim_adapter_create(const ndksim_adapter_config* config,
                                          ndksim_adapter** adapter) {
    return api::create_adapter(config, adapter);
}

NDKSIM_API void ndksim_adapter_destroy(ndksim_adapter* adapter) {
    if (adapter == nullptr) {
        return;
    }
    // First out of the registry: no new lookup finds the adapter, and lookups in progress
    // (a WskOpenNdkAdapter) finish before anything below is torn down.
    api::interfaces::withdraw(adapter->iface);
    std::vector<core::adapter*> open;
    {
        std::lock_guard lock(adapter->handles_mutex);
        open = adapter->handles;
    }
    for (core::adapter* h : open) {
        NDKSIM_ERROR("{}: NDK_ADAPTER handle still open at ndksim_adapter_destroy; closing it",
                     h->ident());
        ndksim_close_ndk_adapter(adapter, reinterpret_cast<NDK_ADAPTER*>(h->abi().head));
    }
    // Tasks still queued for this adapter (timers, frames in flight) run before its engine
    // goes: in deterministic mode that runs the shared loop until it is idle.
    timing::scheduler& sched = adapter->dev.sched();
    // Every object is closed: what is left are timers that will find nothing to do, which a
    // threaded adapter need not wait for on the wall clock.
    if (adapter->loop == nullptr) {
        sched.drain();
    }
    sched.wait_until([&sched] { return sched.idle(); }, adapter->dev.config().close_timeout);
    adapter->engine.reset();
    if (adapter->faults != nullptr) {
        api::retire_coverage(*adapter);
    }
    if (adapter->loop != nullptr) {
        adapter->loop->adapters.fetch_sub(1);
    }
    {
        std::lock_guard lock(api::g_addresses_mutex);
        api::g_addresses.erase(adapter->dev.config().address);
    }
    delete adapter;
}

NDKSIM_API NDIS_STATUS ndksim_open_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                               PNDIS_OPEN_NDK_ADAPTER_PARAMETERS Parameters,
                                               NDK_ADAPTER** ppNdkAdapter) {
    // OPEN_NDK_ADAPTER_HANDLER runs at PASSIVE_LEVEL (REFERENCE.md 8.5).
    api::check_call("ndksim_open_ndk_adapter", irql::passive_level,
                    "OPEN_NDK_ADAPTER_HANDLER must be called at PASSIVE_LEVEL");
    auto* a = static_cast<ndksim_adapter*>(MiniportAdapterContext);
    if (a == nullptr || Parameters == nullptr || ppNdkAdapter == nullptr) {
        NDKSIM_ERROR("ndksim_open_ndk_adapter: NULL adapter, parameters or output pointer");
        return NDIS_STATUS_INVALID_PARAMETER;
    }
    core::ndk_version granted{};
    const status s = core::adapter::check_version(
        core::ndk_version{Parameters->Version.Major, Parameters->Version.Minor}, granted);
    if (s != status::success) {
        NDKSIM_WARN("{}: NDKPI {}.{} requested; this provider implements 1.0-1.2 and 2.0-2.1",
                    a->dev.name(), Parameters->Version.Major, Parameters->Version.Minor);
        return api::to_nt(s);
    }
    try {
        auto handle = core::adapter::open(a->dev, granted);
        *ppNdkAdapter = api::init_head<NDK_ADAPTER>(*handle, &api::k_adapter_dispatch);
        std::lock_guard lock(a->handles_mutex);
        a->handles.push_back(handle.detach());
    } catch (const std::bad_alloc&) {
        return NDIS_STATUS_RESOURCES;
    }
    return NDIS_STATUS_SUCCESS;
}

NDKSIM_API VOID ndksim_close_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                         NDK_ADAPTER* pNdkAdapter) {
    // CLOSE_NDK_ADAPTER_HANDLER blocks until every callback under the handle has returned, so
    // PASSIVE_LEVEL only (REFERENCE.md 8.5); from inside a callback it would wait for itself.
    api::check_call("ndksim_close_ndk_adapter", irql::passive_level,
                    "CLOSE_NDK_ADAPTER_HANDLER must be called at PASSIVE_LEVEL");
    auto* a = static_cast<ndksim_adapter*>(MiniportAdapterContext);
    auto* h = api::from_ndk<core::adapter>(pNdkAdapter, core::object_kind::adapter,
                                           "ndksim_close_ndk_adapter");
    if (a == nullptr || h == nullptr) {
        return;
    }
    bool last = false;
    {
        std::lock_guard lock(a->handles_mutex);
        auto it = std::find(a->handles.begin(), a->handles.end(), h);
        if (it == a->handles.end()) {
            NDKSIM_ERROR("{}: not open on {} (closed twice?)", h->ident(), a->dev.name());
            return;
        }
        a->handles.erase(it);
        last = a->handles.empty();
    }
    h->close_blocking();
    // Rule 24: every LAM is released (NdkReleaseLam) before the adapter goes. LAMs belong to
    // the NIC, not to one handle, so the check waits for its last handle.
    if (last && a->dev.verifier().on()) [[unlikely]] {
        if (const std::size_t lams = a->dev.memory().live_lams(); lams != 0) {
            a->dev.verifier().raise(verifier::rule::lam_not_released, a->dev.name(),
                                    "ndksim_close_ndk_adapter", status::success,
                                    fmt::format("{} LAM(s) still mapped when the last NDK_ADAPTER "
                                                "handle closed",
                                                lams));
        }
    }
}

NDKSIM_API NDK_VERSION ndksim_highest_version(void) {
    return NDK_VERSION{core::adapter::k_highest_v2.major, core::adapter::k_highest_v2.minor};
}

NDKSIM_API ULONG ndksim_adapter_live_objects(const ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : adapter->dev.live_objects();
}

NDKSIM_API ULONG ndksim_adapter_leaked_objects(const ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : adapter->dev.leaked_objects();
}

NDKSIM_API ULONG ndksim_adapter_last_refusal(const ndksim_adapter* adapter, char* buffer,
                                             ULONG size) {
    if (adapter == nullptr) {
        return 0;
    }
    return static_cast<ULONG>(
        const_cast<ndksim_adapter*>(adapter)->dev.refusals().last(buffer, size));
}

NDKSIM_API const char* ndksim_thread_last_refusal(void) {
    return refusal::last_on_this_thread().data();
}

NDKSIM_API NET_IFINDEX ndksim_adapter_interface_index(const ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : api::interfaces::identity_of(*adapter->iface).index;
}

NDKSIM_API ULONG64 ndksim_adapter_interface_luid(const ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : api::interfaces::identity_of(*adapter->iface).luid;
}

NDKSIM_API ULONG64 ndksim_adapter_now(const ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : const_cast<ndksim_adapter*>(adapter)->dev.sched().now();
}

NDKSIM_API NTSTATUS ndksim_adapter_wait(ndksim_adapter* adapter, ULONG timeout_ms) {
    if (adapter == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    const std::chrono::milliseconds timeout(timeout_ms);
    if (timing::sync_domain* d = adapter->dev.sync()) {
        return d->wait_for_effect(timeout) ? STATUS_SUCCESS : STATUS_TIMEOUT;
    }
    timing::scheduler& sched = adapter->dev.sched();
    return sched.wait_until([&sched] { return sched.idle(); }, timeout) ? STATUS_SUCCESS
                                                                        : STATUS_TIMEOUT;
}

NDKSIM_API ULONG ndksim_adapter_progress(ndksim_adapter* adapter) {
    if (adapter == nullptr) {
        return 0;
    }
    const std::size_t n = adapter->dev.sched().progress();
    return static_cast<ULONG>(std::min<std::size_t>(n, std::numeric_limits<ULONG>::max()));
}

NDKSIM_API BOOLEAN ndksim_adapter_idle(const ndksim_adapter* adapter) {
    return adapter != nullptr && const_cast<ndksim_adapter*>(adapter)->dev.sched().idle() ? TRUE
                                                                                          : FALSE;
}

NDKSIM_API const char* ndksim_status_name(NTSTATUS s) {
    // status_name() views either static strings or a per-thread slot, both NUL-terminated.
    return status_name(static_cast<std::int32_t>(s)).data();
}

NDKSIM_API NTSTATUS ndksim_loop_create(ndksim_loop** loop) {
    if (loop == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    try {
        *loop = new ndksim_loop();
    } catch (const std::bad_alloc&) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    return STATUS_SUCCESS;
}

NDKSIM_API void ndksim_loop_destroy(ndksim_loop* loop) {
    if (loop == nullptr) {
        return;
    }
    if (loop->adapters.load() != 0) {
        NDKSIM_ERROR("ndksim_loop_destroy: {} adapters still use this loop; destroy them first",
                     loop->adapters.load());
    }
    delete loop;
}

NDKSIM_API BOOLEAN ndksim_loop_run_one(ndksim_loop* loop) {
    return loop != nullptr && loop->sched.run_one() ? TRUE : FALSE;
}

NDKSIM_API ULONG64 ndksim_loop_run_until_idle(ndksim_loop* loop) {
    return loop == nullptr ? 0 : loop->sched.run_until_idle();
}

NDKSIM_API ULONG64 ndksim_loop_run_for(ndksim_loop* loop, ULONG64 picoseconds) {
    return loop == nullptr ? 0 : loop->sched.run_for(picoseconds);
}

NDKSIM_API ULONG64 ndksim_loop_now(const ndksim_loop* loop) {
    return loop == nullptr ? 0 : loop->sched.now();
}

}  // extern "C"
