// SPDX-License-Identifier: MIT
#pragma once
// The memory translation and protection unit of one adapter: its IOMMU and LAMs, its token
// table of regions, windows and privileged tokens, its protection domains, its translation
// cache, and the lookup every NIC access goes through.
//
// Concurrency design. Control operations (create/destroy, register/deregister, build/release
// LAM, initialize fast-register, the post and execute halves of fast-register, bind and
// invalidate) come from consumer threads and from the engine thread; data-path lookups come from
// the adapter's one data-path thread (its engine thread, or the thread driving its deterministic
// loop). An access_gate (util/access_gate.hpp) keeps them apart and protects the token table,
// the PD table, the LAM table, the IOMMU, the translation cache and the generation counter:
//   * the data path enters it once per work request or packet (read()) with one exchange of
//     its own flag, no lock, and holds the read_guard across lookup and data movement (for a
//     long message, across its packets up to the host window), so a region cannot be
//     deregistered, a LAM released or a frame unpinned while bytes move through it. A grant
//     remembers the generation it was made in; every control operation that can revoke access
//     bumps the generation, and sge_cursor re-runs the lookup when it changed between guards;
//   * a control operation does its allocation and all checks over caller data (MDL chain
//     geometry, PFN gathering, page-list buffers) first, then takes control_ exclusively and
//     enters the gate exclusively (its mutex, waiting for the data path to leave), runs the
//     check_*() over unit state and, if it passes, the apply step, which cannot fail. The
//     exclusive section is O(pages) table writes with no allocation other than the IOMMU slot
//     reservation;
//   * queries (tokens, describe, post_invalidate, footprint) take control_ shared and leave
//     the gate alone: they read only tables, which only control operations write, while the
//     data path writes only the translation cache model, which no query reads. So a consumer's
//     queries (the verifier asks one per SGE of every post) never hold up the data path;
//   * the gate admits one holder at a time, so the translation cache model, which every lookup
//     updates, needs no lock of its own;
//   * host_memory is process-wide with its own mutex (taken inside the gate, never around it);
//     its frame-to-pointer translation is lock-free.
// A thread must not hold a read_guard while calling a control operation on the same unit (it
// would wait for itself to leave): such a call is refused with invalid_device_state (and
// logged at error) instead of deadlocking. A query made while holding one, and a second
// read_guard on the same unit, take nothing. A thread inside one unit's gate may enter
// another's (one thread drives every adapter of a deterministic loop), but two threads must
// never do so in opposite orders: each would be the other's second reader and wait for it.
// Nothing on the data path allocates or logs above trace.

#include <cstdint>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mem/access.hpp"
#include "mem/host_memory.hpp"
#include "mem/ids.hpp"
#include "mem/iommu.hpp"
#include "mem/lookup.hpp"
#include "mem/mdl_chain.hpp"
#include "mem/region.hpp"
#include "mem/region_table.hpp"
#include "mem/translation_cache.hpp"
#include "mem/window.hpp"
#include "util/access_gate.hpp"
#include "util/status.hpp"

namespace ndksim::mem {

/// Limits and behaviour of one unit (one adapter).
struct unit_config {
    std::string name = "mem";                     ///< identity in log lines (e.g. "nic1")
    std::uint32_t max_entries = 1u << 16;         ///< live regions + windows + PDs
    std::uint32_t max_mapped_pages = 1u << 20;    ///< IOMMU capacity [pages]
    std::uint32_t max_fast_register_pages = 512;  ///< largest AdapterPageCount of
                                                  ///< InitializeFastRegisterMr
    std::uint32_t max_lams = 1u << 16;            ///< live LAMs
    /// NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED (REFERENCE.md rule 23); true for the
    /// ConnectX-like profile: a read sink needs local write only.
    bool read_sink_not_required = true;
    /// False (the default): a fast-register MR keeps its token across fast registers, so a
    /// peer that was sent the token NdkGetRemoteTokenFromMr gave once after
    /// NdkInitializeFastRegisterMr may use it after each later fast register (consumers built
    /// like Microsoft's NDK sample do so). True: each fast register issues a new key byte, so
    /// a token kept from before it fails the full-token match (strict: catches stale tokens).
    bool rotate_fast_register_tokens = false;
    cache_config cache;  ///< translation cache geometry
};

struct pd_result {
    status st = status::success;
    pd_id id = pd_id::none;
};
struct region_result {
    status st = status::success;
    region_id id = region_id::none;
};
struct window_result {
    status st = status::success;
    window_id id = window_id::none;
};
struct lam_result {
    status st = status::success;
    lam_id id = lam_id::none;
    std::uint32_t pages = 0;  ///< AdapterPageCount (also on buffer_too_small)
    std::uint32_t fbo = 0;    ///< first byte offset in the first page [bytes]
};
struct token_result {
    status st = status::success;
    std::uint32_t token = 0;
};

/// Host memory a unit holds for its translations (docs/memory.md, "Footprint").
struct unit_footprint {
    std::uint64_t entries = 0;       ///< live token-table entries (regions, windows, PDs)
    std::uint64_t entry_bytes = 0;   ///< token table [bytes]
    std::uint64_t mapped_pages = 0;  ///< pages of registered regions and LAMs
    std::uint64_t page_bytes = 0;    ///< per-page metadata: page lists, IOMMU entries [bytes]
};

/// A snapshot of a region (tests, diagnostics, the core layer's queries).
struct region_info {
    region_kind kind = region_kind::normal;
    region_state state = region_state::unregistered;
    pd_id pd = pd_id::none;
    access rights = access::none;
    std::uint64_t base_va = 0;
    std::uint64_t length = 0;
    std::uint32_t fbo = 0;
    std::uint32_t page_count = 0;
    std::uint32_t fr_max_pages = 0;
    bool fr_remote_access = false;
    std::uint32_t bound_windows = 0;
};

/// A snapshot of a window.
struct window_info {
    window_state state = window_state::free;
    pd_id pd = pd_id::none;
    access rights = access::none;
    std::uint64_t va = 0;
    std::uint64_t length = 0;
    region_id region = region_id::none;
};

class translation_unit;

/// Proof that the caller is inside a unit's access gate as its data path. Lookups and data
/// movement require one. Neither copyable nor movable: it lives in the scope of the thread
/// that took it. The unit's const queries (tokens, describe) may be called while holding one.
class read_guard {
  public:
    /// Leaves the gate (nothing, for a guard nested in another on the same unit).
    ~read_guard();
    read_guard(const read_guard&) = delete;
    read_guard& operator=(const read_guard&) = delete;

    /// The unit this guard is for.
    const translation_unit& unit() const noexcept { return *unit_; }

  private:
    friend class translation_unit;
    explicit read_guard(const translation_unit& unit);

    const translation_unit* unit_;
    util::access_gate::entry how_ = util::access_gate::entry::fast;
    bool nested_ = false;  // this thread already held a guard on the unit: this one took nothing
};

class translation_unit {
  public:
    /// A unit over `host` (normally host_memory::instance()) with the limits of `cfg`.
    explicit translation_unit(host_memory& host, unit_config cfg = {});

    /// Tears the unit down; the frames of every mapping it still holds are unpinned.
    ~translation_unit();

    translation_unit(const translation_unit&) = delete;
    translation_unit& operator=(const translation_unit&) = delete;

    // ---- protection domains -----------------------------------------------------------------

    /// NdkCreatePd: a new PD and its privileged token. insufficient_resources when the token
    /// table is full.
    [[nodiscard]] pd_result create_pd();

    /// Closes a PD: device_busy while regions or windows of it exist; invalid_handle for an
    /// unknown PD; success otherwise (its privileged token stops matching at once).
    [[nodiscard]] status destroy_pd(pd_id pd);

    /// NdkGetPrivilegedMemoryRegionToken: the PD's privileged token (local read/write of
    /// logical addresses only, REFERENCE.md rule 21), or 0 for an unknown PD.
    std::uint32_t privileged_token(pd_id pd) const;

    /// The PD whose privileged token `token` is, or pd_id::none when it is no PD's (the NDK
    /// verifier's rule 21 check; a walk over the PDs, never on the data path).
    pd_id privileged_owner(std::uint32_t token) const;

    // ---- logical address mappings (NdkBuildLam / NdkReleaseLam) -----------------------------

    /// NdkBuildLam: maps the pages of the first `length` bytes of `chain` into this adapter's
    /// IOMMU and writes their logical page addresses to pages_out. Returns, in order:
    /// invalid_parameter (check_chain: not virtually contiguous, length > chain total, ...);
    /// buffer_too_small with `pages` set when pages_out has fewer than `pages` entries (the api
    /// layer turns this into the required *pLAMSize); invalid_parameter for a PFN that is not a
    /// pinned frame; insufficient_resources when the IOMMU or LAM table is full. Nothing stays
    /// mapped on failure (REFERENCE.md rule 24).
    [[nodiscard]] lam_result build_lam(mdl_chain chain, std::uint64_t length,
                                       std::span<std::uint64_t> pages_out);

    /// NdkReleaseLam: unmaps the LAM's pages; its logical addresses never translate again.
    /// Returns false for an unknown id.
    bool release_lam(lam_id id);

    // ---- memory regions ---------------------------------------------------------------------

    /// NdkCreateMr(pd, FastRegister): a new unregistered region. invalid_handle for an unknown
    /// PD; insufficient_resources when the token table is full.
    [[nodiscard]] region_result create_region(pd_id pd, region_kind kind);

    /// Closes a region, deregistering it first when needed. device_busy while windows are bound
    /// to it (the core layer keeps the close pending until they unbind); invalid_handle for an
    /// unknown id.
    [[nodiscard]] status destroy_region(region_id id);

    /// NdkRegisterMr(chain, length, flags) with `rights` = access_from_mr_flags(Flags). In order:
    /// invalid_parameter from check_chain; invalid_handle for an unknown id; check_register
    /// (invalid_device_request, invalid_device_state, invalid_parameter for a zero-based
    /// address); invalid_parameter for an inconsistent or unpinned PFN; insufficient_resources
    /// when the IOMMU is full. On success the region has a new token.
    [[nodiscard]] status register_region(region_id id, mdl_chain chain, std::uint64_t length,
                                         access rights);

    /// NdkDeregisterMr: check_deregister (invalid_device_request, invalid_device_state,
    /// device_busy while windows are bound), then unmaps the region's pages.
    [[nodiscard]] status deregister_region(region_id id);

    /// NdkInitializeFastRegisterMr: check_initialize_fast_register (invalid_device_request,
    /// invalid_parameter, implementation_limit above config().max_fast_register_pages,
    /// invalid_device_state); then the region is free with room for `page_count` pages.
    [[nodiscard]] status initialize_fast_register(region_id id, std::uint32_t page_count,
                                                  bool remote_access);

    /// NdkGetLocalTokenFromMr: the region's current token (0 for an unknown id).
    std::uint32_t local_token(region_id id) const;

    /// NdkGetRemoteTokenFromMr: the same value as local_token (rights decide remote use).
    std::uint32_t remote_token(region_id id) const;

    /// Region snapshot; state unregistered and pd none for an unknown id.
    region_info describe(region_id id) const;

    // ---- memory windows ---------------------------------------------------------------------

    /// NdkCreateMw(pd): a new unbound window. invalid_handle for an unknown PD;
    /// insufficient_resources when the token table is full.
    [[nodiscard]] window_result create_window(pd_id pd);

    /// Closes a window, unbinding it (its region loses the pin). invalid_handle for an unknown id.
    [[nodiscard]] status destroy_window(window_id id);

    /// NdkGetRemoteTokenFromMw: the window's current token (0 for an unknown id).
    std::uint32_t window_token(window_id id) const;

    /// Window snapshot.
    window_info describe(window_id id) const;

    // ---- work requests run on a QP of PD qp_pd (post half, then execute half) ---------------

    /// NdkFastRegister at post: check_fast_register_request (invalid_device_request,
    /// invalid_device_state, access_violation, invalid_parameter) and, on success, issues the
    /// token the request will install; remote_token() returns it from now on.
    [[nodiscard]] token_result post_fast_register(pd_id qp_pd, const fast_register_request& rq);

    /// NdkFastRegister at execution, with the token post_fast_register issued:
    /// check_fast_register (adds invalid_device_state for a valid region and invalid_parameter
    /// for unmapped pages), then installs the registration under `token`.
    [[nodiscard]] status execute_fast_register(pd_id qp_pd, const fast_register_request& rq,
                                               std::uint32_t token);

    /// NdkBind at post: check_bind_request (access_violation, invalid_parameter) and, on
    /// success, issues the window's next token; window_token() returns it from now on.
    [[nodiscard]] token_result post_bind(pd_id qp_pd, const bind_request& rq);

    /// NdkBind at execution: check_bind, then binds under `token` (the old token of a rebound
    /// window stops matching) and moves the window's pin to the new region.
    [[nodiscard]] status execute_bind(pd_id qp_pd, const bind_request& rq, std::uint32_t token);

    /// NdkInvalidate of a region at post: invalid_handle for an unknown id,
    /// invalid_device_request for a normally registered region (REFERENCE.md rule 22),
    /// access_violation for another PD. A window has no post-time checks.
    [[nodiscard]] status post_invalidate(pd_id qp_pd, region_id id) const;

    /// NdkInvalidate of a fast-registered region at execution: check_invalidate(region).
    [[nodiscard]] status execute_invalidate(pd_id qp_pd, region_id id);

    /// NdkInvalidate of a window at execution: check_invalidate(window); unpins its region.
    [[nodiscard]] status execute_invalidate(pd_id qp_pd, window_id id);

    /// Invalidation by token (the receiver's side of NdkSendAndInvalidate): access_violation
    /// when the token names no entry or is stale, invalid_device_request for a privileged
    /// token, otherwise the region or window invalidate above.
    [[nodiscard]] status execute_invalidate_token(pd_id qp_pd, std::uint32_t token);

    // ---- data path --------------------------------------------------------------------------

    /// Enters the unit's access gate as its data path, for a batch of lookups and data
    /// movement: no lock unless a control operation holds the gate (then it waits for it).
    [[nodiscard]] read_guard read() const;

    /// A hint that `token` is about to be looked up (region_table::prefetch): a work request
    /// posted now, or a request frame arriving now, is translated some events later. Any
    /// thread, no gate; it checks nothing and changes nothing.
    void prefetch(std::uint32_t token) const noexcept { table_.prefetch(token_index(token)); }

    /// The lookup (lookup.hpp) of `rq` against this unit. `touch_cache` false repeats the
    /// checks of an access the translation cache already saw without touching it again.
    lookup_result lookup(const read_guard& guard, const access_request& rq,
                         bool touch_cache = true) const noexcept;

    /// The next host-contiguous run of grant `g` (lookup.hpp host_run).
    std::span<std::byte> host_run(const read_guard& guard, const grant& g, std::uint64_t offset,
                                  std::uint64_t max) const noexcept;

    /// The generation grants are compared against.
    std::uint64_t generation(const read_guard& guard) const noexcept;

    // ---- counters and introspection ---------------------------------------------------------

    /// Translation-cache counters (hits, misses, last lookup's misses, stale hits).
    cache_counters cache_stats() const noexcept { return cache_.counters(); }

    /// True while a control operation (or a second data-path reader) holds the unit's access
    /// gate or waits for the data path to leave it (diagnostics and tests; a snapshot).
    bool control_waiting() const noexcept { return gate_.closed(); }

    /// Entries of the translation cache (unit_config::cache).
    std::uint32_t cache_capacity() const noexcept { return cache_.capacity(); }

    /// Pages currently mapped by the IOMMU (regions and LAMs).
    std::uint32_t mapped_pages() const;

    /// Live LAMs.
    std::size_t live_lams() const;

    /// The memory this unit's tables take now, and what they describe.
    unit_footprint footprint() const;

    /// This unit's configuration.
    const unit_config& config() const noexcept { return cfg_; }

    /// The host memory this unit translates into.
    host_memory& host() const noexcept { return host_; }

  private:
    struct pd_record {
        std::uint32_t privileged_index = 0;
        std::uint32_t children = 0;  // regions and windows of the PD
    };

    class exclusive_hold;
    friend class read_guard;

    bool guarded_here() const noexcept;
    bool held_by_this_thread(const char* operation) const noexcept;
    // A control operation's stay: control_ exclusively, then the gate exclusively.
    exclusive_hold exclusive() const noexcept;
    // A query's stay: control_ shared (nothing when this thread holds a read_guard).
    std::shared_lock<std::shared_mutex> query() const;
    slot* region_slot(region_id id) noexcept;
    const slot* region_slot(region_id id) const noexcept;
    slot* window_slot(window_id id) noexcept;
    const slot* window_slot(window_id id) const noexcept;
    // *_exclusive members run inside the gate, entered exclusively.
    status invalidate_region_exclusive(pd_id qp_pd, std::uint32_t index);
    status invalidate_window_exclusive(pd_id qp_pd, std::uint32_t index);
    void unmap_region_exclusive(region& r) noexcept;

    host_memory& host_;
    unit_config cfg_;
    // Control operations hold it exclusively and queries shared; the data path never takes it
    // (lock order: control_, then the gate).
    mutable std::shared_mutex control_;
    mutable util::access_gate gate_;
    region_table table_;
    iommu mmu_;
    std::unordered_map<std::uint32_t, pd_record> pds_;
    std::uint32_t next_pd_ = 1;
    std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> lams_;
    std::uint32_t next_lam_ = 1;
    mutable translation_cache cache_;
    std::uint64_t generation_ = 1;
    std::uint64_t page_list_bytes_ = 0;  // capacity of every region's and LAM's page list
};

}  // namespace ndksim::mem
