// SPDX-License-Identifier: MIT
#include "mem/translation_unit.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>

#include "mem/token.hpp"
#include "util/log.hpp"

namespace ndksim::mem {
namespace {

std::uint64_t list_bytes(const std::vector<std::uint64_t>& pages) noexcept {
    return pages.capacity() * sizeof(std::uint64_t);
}

// The units whose gate this thread is inside as the data path (read guards nest across units:
// one thread drives every adapter of a deterministic loop).
constexpr std::size_t k_max_nested_guards = 8;
// initial-exec: touched by every read guard, once per packet (see util/irql.hpp).
[[gnu::tls_model(
    "initial-exec")]] thread_local std::array<const translation_unit*, k_max_nested_guards>
    t_guards{};
[[gnu::tls_model("initial-exec")]] thread_local std::size_t t_guard_count = 0;

}  // namespace

read_guard::read_guard(const translation_unit& unit) : unit_(&unit) {
    if (unit.guarded_here()) {
        nested_ = true;  // already inside; entering again would wait for this thread to leave
        return;
    }
    if (t_guard_count == k_max_nested_guards) [[unlikely]] {
        // Unrecorded, a nested guard or a query on this unit would wait for this thread.
        NDKSIM_ERROR("{}: read guards on more than {} units held by one thread", unit.cfg_.name,
                     k_max_nested_guards);
        std::abort();
    }
    how_ = unit.gate_.enter_read();
    t_guards[t_guard_count++] = unit_;
}

read_guard::~read_guard() {
    if (nested_) {
        return;
    }
    for (std::size_t i = t_guard_count; i-- > 0;) {
        if (t_guards[i] == unit_) {
            t_guards[i] = t_guards[--t_guard_count];
            break;
        }
    }
    unit_->gate_.leave(how_);
}

// A control operation's stay: the control lock, so no query reads what it changes, then the
// gate, so the data path is out (members leave in the reverse order).
class translation_unit::exclusive_hold {
  public:
    exclusive_hold(std::shared_mutex& control, util::access_gate& gate) noexcept
        : control_(control), in_(gate, util::access_gate::side::other) {}

  private:
    std::unique_lock<std::shared_mutex> control_;
    util::access_gate::hold in_;
};

bool translation_unit::guarded_here() const noexcept {
    for (std::size_t i = 0; i < t_guard_count; ++i) {
        if (t_guards[i] == this) {
            return true;
        }
    }
    return false;
}

bool translation_unit::held_by_this_thread(const char* operation) const noexcept {
    if (!guarded_here()) {
        return false;
    }
    NDKSIM_ERROR("{} {}: refused, this thread holds a read_guard on the unit", cfg_.name,
                 operation);
    return true;
}

translation_unit::exclusive_hold translation_unit::exclusive() const noexcept {
    // Control operations refuse a caller inside the gate first (held_by_this_thread): it would
    // wait for itself to leave.
    return exclusive_hold(control_, gate_);
}

std::shared_lock<std::shared_mutex> translation_unit::query() const {
    // Queries only read the tables, and the data path only writes the translation cache
    // model, which no query reads: the two run side by side. Taking the control lock inside
    // the gate could wait behind a control operation that waits for this thread to leave it,
    // and the gate already keeps every control operation out.
    return guarded_here() ? std::shared_lock<std::shared_mutex>(control_, std::defer_lock)
                          : std::shared_lock<std::shared_mutex>(control_);
}

translation_unit::translation_unit(host_memory& host, unit_config cfg)
    : host_(host),
      cfg_(std::move(cfg)),
      table_(cfg_.max_entries),
      mmu_(host, cfg_.max_mapped_pages),
      cache_(cfg_.cache) {}

// The IOMMU's destructor unpins the frames of every slot mapping still held (LAMs); the frames
// of registered regions are unpinned here.
translation_unit::~translation_unit() {
    for (std::uint32_t i = 1; i < table_.extent(); ++i) {
        if (slot* s = table_.find(i, slot_kind::region); s != nullptr) {
            unmap_region_exclusive(s->reg);
        }
    }
}

slot* translation_unit::region_slot(region_id id) noexcept {
    return table_.find(raw(id), slot_kind::region);
}
const slot* translation_unit::region_slot(region_id id) const noexcept {
    return table_.find(raw(id), slot_kind::region);
}
slot* translation_unit::window_slot(window_id id) noexcept {
    return table_.find(raw(id), slot_kind::window);
}
const slot* translation_unit::window_slot(window_id id) const noexcept {
    return table_.find(raw(id), slot_kind::window);
}

// ---- protection domains ----------------------------------------------------------------------

pd_result translation_unit::create_pd() {
    if (held_by_this_thread("create_pd")) {
        return {status::invalid_device_state, pd_id::none};
    }
    const exclusive_hold hold = exclusive();
    const std::uint32_t index = table_.allocate(slot_kind::privileged);
    if (index == 0) {
        NDKSIM_DEBUG("{} create_pd: token table full", cfg_.name);
        return {status::insufficient_resources, pd_id::none};
    }
    const std::uint32_t id = next_pd_++;
    try {
        pds_.emplace(id, pd_record{index, 0});
    } catch (const std::bad_alloc&) {
        table_.release(index);
        return {status::insufficient_resources, pd_id::none};
    }
    table_.find(index)->pd = pd_id{id};
    return {status::success, pd_id{id}};
}

status translation_unit::destroy_pd(pd_id pd) {
    if (held_by_this_thread("destroy_pd")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    const auto it = pds_.find(raw(pd));
    if (it == pds_.end()) {
        return status::invalid_handle;
    }
    // Children pin their PD (STYLE.md habit 5).
    if (it->second.children != 0) {
        return status::device_busy;
    }
    const std::uint32_t index = it->second.privileged_index;
    table_.release(index);
    pds_.erase(it);
    cache_.invalidate_index(index);
    ++generation_;
    return status::success;
}

std::uint32_t translation_unit::privileged_token(pd_id pd) const {
    const auto hold = query();
    const auto it = pds_.find(raw(pd));
    return it == pds_.end() ? 0 : table_.active_token(it->second.privileged_index);
}

pd_id translation_unit::privileged_owner(std::uint32_t token) const {
    const auto hold = query();
    for (const auto& [id, entry] : pds_) {
        if (table_.active_token(entry.privileged_index) == token) {
            return pd_id{id};
        }
    }
    return pd_id::none;
}

// ---- logical address mappings ----------------------------------------------------------------

lam_result translation_unit::build_lam(mdl_chain chain, std::uint64_t length,
                                       std::span<std::uint64_t> pages_out) {
    lam_result out;
    if (held_by_this_thread("build_lam")) {
        out.st = status::invalid_device_state;
        return out;
    }
    const chain_geometry geo = chain_page_count(chain, length);
    if (geo.st != status::success) {
        out.st = geo.st;
        return out;
    }
    out.pages = geo.pages;
    out.fbo = geo.fbo;
    // ddi/nc-ndkpi-ndk_fn_build_lam.md: STATUS_BUFFER_TOO_SMALL when *pLAMSize cannot hold it.
    if (pages_out.size() < geo.pages) {
        out.st = status::buffer_too_small;
        return out;
    }
    std::vector<std::uint64_t> pfns;
    std::vector<std::uint64_t> logical;
    try {
        pfns.resize(geo.pages);
        logical.resize(geo.pages);
    } catch (const std::bad_alloc&) {
        out.st = status::insufficient_resources;
        return out;
    }
    if (out.st = chain_frames(chain, length, pfns); out.st != status::success) {
        return out;
    }
    const exclusive_hold hold = exclusive();
    if (lams_.size() >= cfg_.max_lams) {
        out.st = status::insufficient_resources;
        return out;
    }
    // All or nothing: a failed map leaves no page mapped (REFERENCE.md rule 24).
    if (out.st = mmu_.map(pfns, geo.fbo, length, mapping_use::lam, logical);
        out.st != status::success) {
        NDKSIM_DEBUG("{} build_lam: mapping {} pages failed: {}", cfg_.name, geo.pages, out.st);
        return out;
    }
    std::uint32_t id = next_lam_;
    while (id == 0 || lams_.contains(id)) {
        ++id;
    }
    next_lam_ = id + 1;
    std::copy(logical.begin(), logical.end(), pages_out.begin());
    const std::uint64_t lam_bytes = list_bytes(logical);
    try {
        lams_.emplace(id, std::move(logical));
    } catch (const std::bad_alloc&) {
        mmu_.unmap(std::span<const std::uint64_t>(pages_out.data(), geo.pages));
        out.st = status::insufficient_resources;
        return out;
    }
    page_list_bytes_ += lam_bytes;
    out.id = lam_id{id};
    return out;
}

bool translation_unit::release_lam(lam_id id) {
    if (held_by_this_thread("release_lam")) {
        return false;
    }
    std::vector<std::uint64_t> pages;
    {
        const exclusive_hold hold = exclusive();
        const auto it = lams_.find(raw(id));
        if (it == lams_.end()) {
            return false;
        }
        pages = std::move(it->second);
        page_list_bytes_ -= list_bytes(pages);
        lams_.erase(it);
        mmu_.unmap(pages);
        cache_.flush();
        ++generation_;
    }
    return true;
}

// ---- memory regions --------------------------------------------------------------------------

region_result translation_unit::create_region(pd_id pd, region_kind kind) {
    if (held_by_this_thread("create_region")) {
        return {status::invalid_device_state, region_id::none};
    }
    const exclusive_hold hold = exclusive();
    const auto it = pds_.find(raw(pd));
    if (it == pds_.end()) {
        return {status::invalid_handle, region_id::none};
    }
    const std::uint32_t index = table_.allocate(slot_kind::region);
    if (index == 0) {
        NDKSIM_DEBUG("{} create_region: token table full", cfg_.name);
        return {status::insufficient_resources, region_id::none};
    }
    region& r = table_.find(index)->reg;
    r.kind = kind;
    r.pd = pd;
    ++it->second.children;
    return {status::success, region_id{index}};
}

void translation_unit::unmap_region_exclusive(region& r) noexcept {
    if (r.kind == region_kind::normal && r.state == region_state::valid) {
        mmu_.unmap_frames(std::span<const std::uint64_t>(r.pages.data(), r.page_count));
        // Taking pages out of the adapter's reach flushes the translation cache, as any IOMMU
        // unmap does.
        cache_.flush();
    }
}

status translation_unit::destroy_region(region_id id) {
    if (held_by_this_thread("destroy_region")) {
        return status::invalid_device_state;
    }
    page_list released;
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    if (const status st = check_destroy(s->reg); st != status::success) {
        return st;
    }
    unmap_region_exclusive(s->reg);
    page_list_bytes_ -= s->reg.pages.bytes();
    released.swap(s->reg.pages);
    --pds_.at(raw(s->reg.pd)).children;
    table_.release(raw(id));
    cache_.invalidate_index(raw(id));
    ++generation_;
    return status::success;
}

status translation_unit::register_region(region_id id, mdl_chain chain, std::uint64_t length,
                                         access rights) {
    if (held_by_this_thread("register_region")) {
        return status::invalid_device_state;
    }
    const chain_geometry geo = chain_page_count(chain, length);
    if (geo.st != status::success) {
        NDKSIM_DEBUG("{} register_region #{}: bad MDL chain: {}", cfg_.name, raw(id), geo.st);
        return geo.st;
    }
    // The page list holds the frames themselves (region.hpp page_list): built here, outside
    // the gate, and swapped in once the checks pass.
    page_list frames;
    if (!frames.assign(geo.pages)) {
        return status::insufficient_resources;
    }
    const std::span<std::uint64_t> pfns(frames.data(), geo.pages);
    if (const status st = chain_frames(chain, length, pfns); st != status::success) {
        return st;
    }
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    region& r = s->reg;
    if (const status st = check_register(r, geo.virtual_address); st != status::success) {
        NDKSIM_DEBUG("{} register_region #{}: {}", cfg_.name, raw(id), st);
        return st;
    }
    if (const status st = mmu_.map_frames(pfns); st != status::success) {
        NDKSIM_DEBUG("{} register_region #{}: mapping {} pages: {}", cfg_.name, raw(id), geo.pages,
                     st);
        return st;
    }
    page_list_bytes_ += frames.bytes() - r.pages.bytes();
    r.pages.swap(frames);
    r.page_count = geo.pages;
    r.base_va = geo.virtual_address;
    r.length = length;
    r.fbo = geo.fbo;
    r.rights = normalize(rights);
    r.state = region_state::valid;
    s->key = next_key(s->issued_key);
    s->issued_key = s->key;
    cache_.invalidate_index(raw(id));
    ++generation_;
    return status::success;
}

status translation_unit::deregister_region(region_id id) {
    if (held_by_this_thread("deregister_region")) {
        return status::invalid_device_state;
    }
    page_list released;
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    region& r = s->reg;
    if (const status st = check_deregister(r); st != status::success) {
        NDKSIM_DEBUG("{} deregister_region #{}: {}", cfg_.name, raw(id), st);
        return st;
    }
    unmap_region_exclusive(r);
    page_list_bytes_ -= r.pages.bytes();
    released.swap(r.pages);
    r.page_count = 0;
    r.length = 0;
    r.state = region_state::unregistered;
    ++generation_;
    return status::success;
}

status translation_unit::initialize_fast_register(region_id id, std::uint32_t page_count,
                                                  bool remote_access) {
    if (held_by_this_thread("initialize_fast_register")) {
        return status::invalid_device_state;
    }
    page_list pages;
    if (!pages.assign(std::min(page_count, cfg_.max_fast_register_pages))) {
        return status::insufficient_resources;
    }
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    region& r = s->reg;
    if (const status st =
            check_initialize_fast_register(r, page_count, cfg_.max_fast_register_pages);
        st != status::success) {
        NDKSIM_DEBUG("{} initialize_fast_register #{} ({} pages): {}", cfg_.name, raw(id),
                     page_count, st);
        return st;
    }
    page_list_bytes_ += pages.bytes() - r.pages.bytes();
    r.pages.swap(pages);
    r.fr_max_pages = page_count;
    r.fr_remote_access = remote_access;
    r.state = region_state::free;
    return status::success;
}

std::uint32_t translation_unit::local_token(region_id id) const {
    const auto hold = query();
    return region_slot(id) == nullptr ? 0 : table_.issued_token(raw(id));
}

std::uint32_t translation_unit::remote_token(region_id id) const {
    return local_token(id);
}

region_info translation_unit::describe(region_id id) const {
    const auto hold = query();
    const slot* s = region_slot(id);
    if (s == nullptr) {
        return {};
    }
    const region& r = s->reg;
    return {r.kind, r.state,      r.pd,           r.rights,           r.base_va,      r.length,
            r.fbo,  r.page_count, r.fr_max_pages, r.fr_remote_access, r.bound_windows};
}

// ---- memory windows --------------------------------------------------------------------------

window_result translation_unit::create_window(pd_id pd) {
    if (held_by_this_thread("create_window")) {
        return {status::invalid_device_state, window_id::none};
    }
    const exclusive_hold hold = exclusive();
    const auto it = pds_.find(raw(pd));
    if (it == pds_.end()) {
        return {status::invalid_handle, window_id::none};
    }
    const std::uint32_t index = table_.allocate(slot_kind::window);
    if (index == 0) {
        NDKSIM_DEBUG("{} create_window: token table full", cfg_.name);
        return {status::insufficient_resources, window_id::none};
    }
    table_.find(index)->win.pd = pd;
    ++it->second.children;
    return {status::success, window_id{index}};
}

status translation_unit::destroy_window(window_id id) {
    if (held_by_this_thread("destroy_window")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    slot* s = window_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    window& w = s->win;
    if (w.state == window_state::bound) {
        if (slot* r = table_.find(w.region_index, slot_kind::region); r != nullptr) {
            apply_invalidate(w, r->reg);
        }
    }
    --pds_.at(raw(w.pd)).children;
    table_.release(raw(id));
    cache_.invalidate_index(raw(id));
    ++generation_;
    return status::success;
}

std::uint32_t translation_unit::window_token(window_id id) const {
    const auto hold = query();
    return window_slot(id) == nullptr ? 0 : table_.issued_token(raw(id));
}

window_info translation_unit::describe(window_id id) const {
    const auto hold = query();
    const slot* s = window_slot(id);
    if (s == nullptr) {
        return {};
    }
    const window& w = s->win;
    return {w.state, w.pd, w.rights, w.va, w.length, region_id{w.region_index}};
}

// ---- work requests ---------------------------------------------------------------------------

token_result translation_unit::post_fast_register(pd_id qp_pd, const fast_register_request& rq) {
    if (held_by_this_thread("post_fast_register")) {
        return {status::invalid_device_state, 0};
    }
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(rq.region);
    if (s == nullptr) {
        return {status::invalid_handle, 0};
    }
    if (const status st = check_fast_register_request(s->reg, qp_pd, rq); st != status::success) {
        NDKSIM_DEBUG("{} post_fast_register #{}: {}", cfg_.name, raw(rq.region), st);
        return {st, 0};
    }
    if (cfg_.rotate_fast_register_tokens) {
        s->issued_key = next_key(s->issued_key);
    }
    return {status::success, table_.issued_token(raw(rq.region))};
}

status translation_unit::execute_fast_register(pd_id qp_pd, const fast_register_request& rq,
                                               std::uint32_t token) {
    if (held_by_this_thread("execute_fast_register")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    slot* s = region_slot(rq.region);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    if (token_index(token) != raw(rq.region)) {
        return status::invalid_parameter;
    }
    if (const status st = check_fast_register(s->reg, qp_pd, rq, mmu_); st != status::success) {
        NDKSIM_DEBUG("{} execute_fast_register #{}: {}", cfg_.name, raw(rq.region), st);
        return st;
    }
    apply_fast_register(s->reg, rq);
    s->key = token_key(token);
    cache_.invalidate_index(raw(rq.region));
    ++generation_;
    return status::success;
}

token_result translation_unit::post_bind(pd_id qp_pd, const bind_request& rq) {
    if (held_by_this_thread("post_bind")) {
        return {status::invalid_device_state, 0};
    }
    const exclusive_hold hold = exclusive();
    slot* ws = window_slot(rq.window);
    const slot* rs = region_slot(rq.region);
    if (ws == nullptr || rs == nullptr) {
        return {status::invalid_handle, 0};
    }
    if (const status st = check_bind_request(ws->win, rs->reg, qp_pd, rq); st != status::success) {
        NDKSIM_DEBUG("{} post_bind mw#{} -> mr#{}: {}", cfg_.name, raw(rq.window), raw(rq.region),
                     st);
        return {st, 0};
    }
    ws->issued_key = next_key(ws->issued_key);
    return {status::success, table_.issued_token(raw(rq.window))};
}

status translation_unit::execute_bind(pd_id qp_pd, const bind_request& rq, std::uint32_t token) {
    if (held_by_this_thread("execute_bind")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    slot* ws = window_slot(rq.window);
    slot* rs = region_slot(rq.region);
    if (ws == nullptr || rs == nullptr) {
        return status::invalid_handle;
    }
    if (token_index(token) != raw(rq.window)) {
        return status::invalid_parameter;
    }
    if (const status st = check_bind(ws->win, rs->reg, qp_pd, rq); st != status::success) {
        NDKSIM_DEBUG("{} execute_bind mw#{} -> mr#{}: {}", cfg_.name, raw(rq.window),
                     raw(rq.region), st);
        return st;
    }
    region* previous = nullptr;
    if (ws->win.state == window_state::bound) {
        if (slot* old = table_.find(ws->win.region_index, slot_kind::region); old != nullptr) {
            previous = &old->reg;
        }
    }
    apply_bind(ws->win, rs->reg, raw(rq.region), previous, rq);
    ws->key = token_key(token);
    cache_.invalidate_index(raw(rq.window));
    ++generation_;
    return status::success;
}

status translation_unit::post_invalidate(pd_id qp_pd, region_id id) const {
    const auto hold = query();
    const slot* s = region_slot(id);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    // REFERENCE.md rule 22: never on a normally registered MR.
    if (s->reg.kind != region_kind::fast_register) {
        return status::invalid_device_request;
    }
    return s->reg.pd == qp_pd ? status::success : status::access_violation;
}

status translation_unit::invalidate_region_exclusive(pd_id qp_pd, std::uint32_t index) {
    slot* s = table_.find(index, slot_kind::region);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    if (const status st = check_invalidate(s->reg, qp_pd); st != status::success) {
        NDKSIM_DEBUG("{} invalidate mr#{}: {}", cfg_.name, index, st);
        return st;
    }
    apply_invalidate(s->reg);
    cache_.invalidate_index(index);
    ++generation_;
    return status::success;
}

status translation_unit::invalidate_window_exclusive(pd_id qp_pd, std::uint32_t index) {
    slot* s = table_.find(index, slot_kind::window);
    if (s == nullptr) {
        return status::invalid_handle;
    }
    if (const status st = check_invalidate(s->win, qp_pd); st != status::success) {
        NDKSIM_DEBUG("{} invalidate mw#{}: {}", cfg_.name, index, st);
        return st;
    }
    slot* r = table_.find(s->win.region_index, slot_kind::region);
    if (r == nullptr) {
        return status::invalid_device_state;
    }
    apply_invalidate(s->win, r->reg);
    cache_.invalidate_index(index);
    ++generation_;
    return status::success;
}

status translation_unit::execute_invalidate(pd_id qp_pd, region_id id) {
    if (held_by_this_thread("execute_invalidate")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    return invalidate_region_exclusive(qp_pd, raw(id));
}

status translation_unit::execute_invalidate(pd_id qp_pd, window_id id) {
    if (held_by_this_thread("execute_invalidate")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    return invalidate_window_exclusive(qp_pd, raw(id));
}

status translation_unit::execute_invalidate_token(pd_id qp_pd, std::uint32_t token) {
    if (held_by_this_thread("execute_invalidate_token")) {
        return status::invalid_device_state;
    }
    const exclusive_hold hold = exclusive();
    const slot* s = check_entry(table_, token);
    if (check_key(s, token) != fault::none) {
        return status::access_violation;
    }
    switch (s->kind) {
        case slot_kind::region:
            return invalidate_region_exclusive(qp_pd, token_index(token));
        case slot_kind::window:
            return invalidate_window_exclusive(qp_pd, token_index(token));
        case slot_kind::privileged:
        case slot_kind::free:
            break;
    }
    return status::invalid_device_request;
}

// ---- data path -------------------------------------------------------------------------------

read_guard translation_unit::read() const {
    return read_guard(*this);
}

lookup_result translation_unit::lookup(const read_guard& guard, const access_request& rq,
                                       bool touch_cache) const noexcept {
    static_cast<void>(guard);
    const lookup_context ctx{table_,      mmu_,       host_, cache_, cfg_.read_sink_not_required,
                             generation_, touch_cache};
    return mem::lookup(ctx, rq);
}

std::span<std::byte> translation_unit::host_run(const read_guard& guard, const grant& g,
                                                std::uint64_t offset,
                                                std::uint64_t max) const noexcept {
    static_cast<void>(guard);
    return mem::host_run(mmu_, host_, g, offset, max);
}

std::uint64_t translation_unit::generation(const read_guard& guard) const noexcept {
    static_cast<void>(guard);
    return generation_;
}

std::uint32_t translation_unit::mapped_pages() const {
    const auto hold = query();
    return mmu_.mapped_pages();
}

std::size_t translation_unit::live_lams() const {
    const auto hold = query();
    return lams_.size();
}

unit_footprint translation_unit::footprint() const {
    const auto hold = query();
    return {table_.live(), table_.bytes(), mmu_.mapped_pages(), mmu_.bytes() + page_list_bytes_};
}

}  // namespace ndksim::mem
