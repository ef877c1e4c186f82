// SPDX-License-Identifier: MIT
#pragma once
// A simulated RDMA NIC (the ndksim_adapter of ndksim.h): its configuration, its capabilities,
// its scheduler (own engine thread, or a shared deterministic loop), its completion policy and
// its counters. NDK_ADAPTER handles (core::adapter) are opened on it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/adapter_limits.hpp"
#include "core/completion_policy.hpp"
#include "core/endpoint_table.hpp"
#include "core/net_address.hpp"
#include "core/object.hpp"
#include "core/outstanding_contexts.hpp"
#include "core/qp_table.hpp"
#include "mem/translation_unit.hpp"
#include "timing/cost_model.hpp"
#include "timing/scheduler.hpp"
#include "timing/sync_options.hpp"
#include "util/refusal_log.hpp"

namespace ndksim::core {

class engine_hooks;
class call_hooks;
class listener;
class mr;
class qp;

enum class wire_kind : std::uint8_t { inproc, udp, tcp };

struct device_config {
    std::string name;                 ///< log name, e.g. "nic1"
    std::string address;              ///< IP literal the adapter owns
    std::string profile = "cx4-edr";  ///< NIC profile name
    completion_style style = completion_style::inline_;
    std::uint32_t pending_percent = 50;  ///< random style only
    std::uint64_t seed = 1;
    timing::scheduler* loop = nullptr;  ///< deterministic loop, or nullptr for threaded mode
    timing::poll_policy poll = timing::poll_policy::block;
    bool paced = false;        ///< threaded mode: hold events for the wall clock
    double pace_factor = 1.0;  ///< paced: wall time per unit of simulated time
    /// threaded mode: synchronized time, on the process's sync domain (timing/sync_domain.hpp)
    bool synchronized = false;
    timing::sync_options sync;  ///< synchronized: the domain's options (first adapter)
    wire_kind wire = wire_kind::inproc;
    std::uint16_t port = 4791;
    std::chrono::milliseconds close_timeout{10'000};
    /// Entries of the memory unit's translation cache (the profile's nic.mtt_cache_entries;
    /// mem::cache_geometry), sized once here.
    std::uint32_t translation_cache_entries = timing::nic_params{}.mtt_cache_entries;
    /// Modelled time from a satisfied CQ arm to the consumer's notification callback: the
    /// MSI-X interrupt waking the consumer (the profile's host.interrupt_ns) [ps].
    timing::sim_time notification_interrupt = timing::host_params{}.interrupt;
    /// A new token for each fast register (mem::unit_config::rotate_fast_register_tokens).
    bool rotate_fast_register_tokens = false;
    /// The NDK verifier's mode (util/verifier.hpp), NDKSIM_VERIFIER already applied.
    verifier::mode verifier = verifier::mode::off;
};

class device {
  public:
    /// Builds the device; a threaded device starts its engine thread.
    device(device_config cfg, const adapter_limits& limits);

    /// Runs the scheduler dry (so no task still refers to an object) and stops the engine.
    ~device();

    device(const device&) = delete;
    device& operator=(const device&) = delete;

    timing::scheduler& sched() noexcept { return *sched_; }
    /// The sync domain of a synchronized device, else nullptr.
    timing::sync_domain* sync() const noexcept { return domain_.get(); }
    completion_policy& policy() noexcept { return policy_; }
    const adapter_limits& limits() const noexcept { return limits_; }
    const device_config& config() const noexcept { return cfg_; }
    const std::string& name() const noexcept { return cfg_.name; }
    endpoint_table& endpoints() noexcept { return endpoints_; }

    /// The consumer calls this adapter refused, and why (ndksim_adapter_last_refusal).
    util::refusal_log& refusals() noexcept { return refusals_; }

    /// The NDK verifier of this adapter: check sites branch on verifier().on().
    const verifier::checker& verifier() const noexcept { return verifier_; }
    verifier::checker& verifier_mut() noexcept { return verifier_; }

    /// The verifier's record of outstanding request contexts (rule 17, context-reuse).
    outstanding_contexts& contexts() noexcept { return contexts_; }

    /// The memory translation and protection unit of this adapter (src/mem).
    mem::translation_unit& memory() noexcept { return memory_; }

    /// The NIC engine's hooks; nullptr until the engine attaches (and in core-only tests).
    engine_hooks* hooks() const noexcept { return hooks_; }

    /// The fault engine between the consumer and this adapter (core/call_hooks.hpp); nullptr
    /// when the adapter has neither a fault script nor a coverage record. Set before any
    /// object is created.
    call_hooks* consumer_hooks() const noexcept { return consumer_hooks_; }
    void set_consumer_hooks(call_hooks* h) noexcept { consumer_hooks_ = h; }
    void set_hooks(engine_hooks* hooks) noexcept { hooks_ = hooks; }

    /// QP numbers (24-bit on the wire). A number is handed out at QP creation and freed when
    /// the QP is destroyed; lookups come from the engine for every received packet
    /// (core/qp_table.hpp). Returns 0 when every number is in use.
    static constexpr std::uint32_t k_max_qps = 1U << 16;
    [[nodiscard]] std::uint32_t allocate_qpn() { return qps_.allocate(); }
    /// Gives a destroyed QP's number back (detaching it first).
    void free_qpn(std::uint32_t qpn) { qps_.release(qpn); }
    /// Points `qpn` at `q` (once the QP is fully built) or detaches it (close requested), so
    /// packets for it are dropped from then on. unregister_qp returns once no lookup can still
    /// be taking a reference to the QP.
    void register_qp(std::uint32_t qpn, qp* q) noexcept { qps_.attach(qpn, q); }
    void unregister_qp(std::uint32_t qpn) noexcept { qps_.detach(qpn); }
    /// The QP with number `qpn`, with a reference taken, so a close on another thread cannot
    /// free it while the engine uses it; empty when none. Takes no lock.
    ref<qp> find_qp(std::uint32_t qpn) const noexcept;

    /// Listeners by ND port, for incoming connection requests. find_listener takes a reference
    /// under the table's lock (the same protection as find_qp).
    void register_listener(std::uint16_t port, listener* l);
    void unregister_listener(std::uint16_t port, listener* l);
    ref<listener> find_listener(std::uint16_t port) const;

    /// MR closes waiting for their bound windows (mr::on_close_requested). windows_changed() is
    /// called after every event that can unbind a window (bind, invalidate, a remote
    /// invalidate, a window close) and lets the waiting closes go on.
    void wait_for_windows(mr& m);
    void windows_changed();

    /// The IP address the device owns (parsed from the configuration).
    const net_address& own_address() const noexcept { return own_address_; }

    /// Binds a local endpoint for a listener or shared endpoint (ddi/nc-ndkpi-ndk_fn_listen.md,
    /// create_shared_endpoint.md): the IP must be the device's own or a wildcard (which binds
    /// the device's own IP), else invalid_address; the port is reserved (0 picks an ephemeral
    /// port), else sharing_violation or too_many_addresses. On success `address` holds the bound
    /// IP and port, with the consumer's family value kept.
    [[nodiscard]] status reserve_local(net_address& address);

    /// Numbers handles (h1, h2, ...) and objects of each kind (qp#1, ...) for identities.
    std::uint32_t next_handle_number() noexcept { return ++handles_opened_; }
    std::uint32_t next_object_number() noexcept { return ++objects_created_; }

    /// Counts objects from creation until their close completes (handles included).
    void object_created() noexcept { live_objects_.fetch_add(1, std::memory_order_relaxed); }
    void object_closed() noexcept { live_objects_.fetch_sub(1, std::memory_order_relaxed); }
    std::uint32_t live_objects() const noexcept {
        return live_objects_.load(std::memory_order_relaxed);
    }

    /// Counts objects found open when their adapter handle closed.
    void objects_leaked(std::uint32_t n) noexcept {
        leaked_objects_.fetch_add(n, std::memory_order_relaxed);
    }
    std::uint32_t leaked_objects() const noexcept {
        return leaked_objects_.load(std::memory_order_relaxed);
    }

    /// Open NDK_ADAPTER handles on this device.
    void handle_opened() noexcept { open_handles_.fetch_add(1, std::memory_order_relaxed); }
    void handle_closed() noexcept { open_handles_.fetch_sub(1, std::memory_order_relaxed); }
    std::uint32_t open_handles() const noexcept {
        return open_handles_.load(std::memory_order_relaxed);
    }

  private:
    device_config cfg_;
    adapter_limits limits_;
    std::shared_ptr<timing::sync_domain> domain_;  // synchronized mode; outlives the rest
    std::unique_ptr<timing::scheduler> own_sched_;
    timing::scheduler* sched_;
    completion_policy policy_;
    endpoint_table endpoints_;
    util::refusal_log refusals_;
    verifier::checker verifier_;
    outstanding_contexts contexts_;
    net_address own_address_;
    mem::translation_unit memory_;
    engine_hooks* hooks_ = nullptr;
    call_hooks* consumer_hooks_ = nullptr;
    qp_table<qp> qps_{k_max_qps};
    std::unordered_map<std::uint16_t, listener*> listeners_;
    mutable std::mutex listeners_mutex_;
    std::mutex window_waiters_mutex_;
    std::vector<ref<mr>> window_waiters_;
    std::atomic<std::uint32_t> handles_opened_{0};
    std::atomic<std::uint32_t> objects_created_{0};
    std::atomic<std::uint32_t> live_objects_{0};
    std::atomic<std::uint32_t> leaked_objects_{0};
    std::atomic<std::uint32_t> open_handles_{0};
};

}  // namespace ndksim::core
