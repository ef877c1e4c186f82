// SPDX-License-Identifier: MIT
#include "mem/lookup.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "mem/host_memory.hpp"
#include "mem/page.hpp"
#include "mem/region.hpp"
#include "mem/region_table.hpp"
#include "mem/translation_cache.hpp"

namespace ndksim::mem {
namespace {

struct fault_info {
    fault value;
    std::string_view name;
    status reported;
};

constexpr std::array k_faults{
    fault_info{fault::none, "none", status::success},
    fault_info{fault::unknown_token, "unknown_token", status::access_violation},
    fault_info{fault::stale_token, "stale_token", status::access_violation},
    fault_info{fault::wrong_pd, "wrong_pd", status::access_violation},
    fault_info{fault::access_denied, "access_denied", status::access_violation},
    fault_info{fault::invalid_state, "invalid_state", status::access_violation},
    fault_info{fault::out_of_bounds, "out_of_bounds", status::access_violation},
    fault_info{fault::unmapped, "unmapped", status::access_violation},
};

consteval bool faults_indexed() {
    for (std::size_t i = 0; i < k_faults.size(); ++i) {
        if (static_cast<std::size_t>(k_faults[i].value) != i) {
            return false;
        }
    }
    return true;
}
static_assert(faults_indexed(), "k_faults must be indexed by fault");

// What steps 2-5 need to know about an entry, whatever its kind.
struct entry_view {
    pd_id pd = pd_id::none;
    access rights = access::none;
    bool usable = false;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    const region* backing = nullptr;  // region whose page list translates; nullptr: logical
};

entry_view view_of(const region_table& table, const slot& s) noexcept {
    switch (s.kind) {
        case slot_kind::region:
            return {s.reg.pd,      s.reg.rights, s.reg.state == region_state::valid,
                    s.reg.base_va, s.reg.length, &s.reg};
        case slot_kind::window: {
            const slot* r = table.find(s.win.region_index, slot_kind::region);
            const bool bound = s.win.state == window_state::bound && r != nullptr &&
                               r->reg.state == region_state::valid;
            return {s.win.pd, s.win.rights, bound,
                    s.win.va, s.win.length, bound ? &r->reg : nullptr};
        }
        case slot_kind::privileged:
            // REFERENCE.md rule 21: SGEs with the privileged token carry logical addresses;
            // the whole logical space is in bounds and the IOMMU decides (step 6).
            return {s.pd,   privileged_rights, true, 0, std::numeric_limits<std::uint64_t>::max(),
                    nullptr};
        case slot_kind::free:
            break;
    }
    return {};
}

std::byte* page_host(const iommu& mmu, const host_memory& host, const grant& g,
                     std::uint64_t position) noexcept {
    std::uint64_t pfn = 0;
    if (g.frames) {
        pfn = g.pages[page_number(position)];
    } else {
        const std::uint64_t logical =
            g.pages != nullptr ? g.pages[page_number(position)] : page_align(position);
        const iommu::page_mapping* m = mmu.translate(logical);
        if (m == nullptr) {
            return nullptr;
        }
        pfn = m->pfn;
    }
    std::byte* frame = host.frame_address(pfn);
    return frame == nullptr ? nullptr : frame + byte_offset(position);
}

}  // namespace

std::string_view fault_name(fault f) noexcept {
    return k_faults[static_cast<std::size_t>(f)].name;
}

status fault_status(fault f) noexcept {
    return k_faults[static_cast<std::size_t>(f)].reported;
}

const slot* check_entry(const region_table& table, std::uint32_t token) noexcept {
    return table.find(token_index(token));
}

fault check_key(const slot* entry, std::uint32_t token) noexcept {
    if (entry == nullptr) {
        return fault::unknown_token;
    }
    // token.hpp: the key byte changes on every activation of a slot.
    return entry->key == token_key(token) ? fault::none : fault::stale_token;
}

fault check_pd(pd_id owner, pd_id requester) noexcept {
    return owner == requester ? fault::none : fault::wrong_pd;
}

fault check_rights(access granted, access_op op, bool read_sink_not_required) noexcept {
    return rights_allow(granted, op, read_sink_not_required) ? fault::none : fault::access_denied;
}

fault check_state(bool usable) noexcept {
    return usable ? fault::none : fault::invalid_state;
}

fault check_bounds(std::uint64_t base, std::uint64_t size, std::uint64_t address,
                   std::uint64_t length) noexcept {
    return range_fits(address, length) && range_inside(base, size, address, length)
               ? fault::none
               : fault::out_of_bounds;
}

fault check_page(const iommu::page_mapping* m, bool direct, std::uint32_t offset,
                 std::uint64_t n) noexcept {
    if (m == nullptr || offset < m->lo || offset + n > m->hi ||
        (direct && m->use != mapping_use::lam)) {
        return fault::unmapped;
    }
    return fault::none;
}

lookup_result lookup(const lookup_context& ctx, const access_request& rq) noexcept {
    lookup_result out;
    // 1. token -> entry: index, then full-token match.
    const slot* entry = check_entry(ctx.table, rq.token);
    if (out.failed = check_key(entry, rq.token); out.failed != fault::none) {
        return out;
    }
    const entry_view e = view_of(ctx.table, *entry);
    // 2. protection domain.
    if (out.failed = check_pd(e.pd, rq.pd); out.failed != fault::none) {
        return out;
    }
    // 3. access rights for the operation.
    if (out.failed = check_rights(e.rights, rq.op, ctx.read_sink_not_required);
        out.failed != fault::none) {
        return out;
    }
    // 4. state.
    if (out.failed = check_state(e.usable); out.failed != fault::none) {
        return out;
    }
    // 5. bounds.
    if (out.failed = check_bounds(e.base, e.size, rq.address, rq.length);
        out.failed != fault::none) {
        return out;
    }
    // 6. translation, page by page.
    grant g;
    g.length = rq.length;
    g.generation = ctx.generation;
    if (e.backing != nullptr) {
        g.pages = e.backing->pages.data();
        g.frames = e.backing->kind == region_kind::normal;
        g.position = e.backing->fbo + (rq.address - e.backing->base_va);
    } else {
        g.position = rq.address;
    }
    if (rq.length != 0) {
        // The probes of this lookup, unless it repeats one the cache already saw.
        std::optional<translation_cache::session> probes;
        if (ctx.touch_cache) {
            probes.emplace(ctx.cache);
        }
        const std::uint64_t end = g.position + rq.length;
        for (std::uint64_t pos = g.position; pos < end;) {
            const std::uint32_t offset = byte_offset(pos);
            const std::uint64_t n = std::min<std::uint64_t>(end - pos, page_size - offset);
            std::uint64_t pfn = 0;
            std::uint64_t page = page_number(pos);  // the cache's page: list index or logical
            if (g.frames) {
                // A normal region's frames are pinned while it is valid, and step 5 kept the
                // access inside the bytes its registration described.
                pfn = g.pages[page];
            } else {
                const std::uint64_t logical = g.pages != nullptr ? g.pages[page] : page_align(pos);
                const iommu::page_mapping* m = ctx.mmu.translate(logical);
                if (out.failed = check_page(m, g.pages == nullptr, offset, n);
                    out.failed != fault::none) {
                    out.cache_misses = probes ? probes->misses() : 0;
                    return out;
                }
                pfn = m->pfn;
                if (g.pages == nullptr) {
                    page = page_number(logical);
                }
            }
            if (pos == g.position) {
                g.first_page = ctx.host.frame_address(pfn);
            }
            if (probes) {
                probes->touch(rq.token, page, pfn);
            } else if (g.frames) {
                break;  // nothing more to check, and nothing to record
            }
            pos += n;
        }
        out.cache_misses = probes ? probes->misses() : 0;
    }
    out.range = g;
    return out;
}

std::span<std::byte> host_run(const iommu& mmu, const host_memory& host, const grant& g,
                              std::uint64_t offset, std::uint64_t max) noexcept {
    if (offset >= g.length || max == 0) {
        return {};
    }
    const std::uint64_t want = std::min(max, g.length - offset);
    const std::uint64_t start = g.position + offset;
    std::byte* first = g.first_page != nullptr && page_number(start) == page_number(g.position)
                           ? g.first_page + byte_offset(start)
                           : page_host(mmu, host, g, start);
    if (first == nullptr) {
        return {};
    }
    std::uint64_t run = std::min<std::uint64_t>(want, page_size - byte_offset(start));
    const auto first_addr = reinterpret_cast<std::uintptr_t>(first);
    while (run < want) {
        const std::byte* next = page_host(mmu, host, g, start + run);
        if (reinterpret_cast<std::uintptr_t>(next) != first_addr + run) {
            break;
        }
        run += std::min<std::uint64_t>(want - run, page_size);
    }
    return {first, static_cast<std::size_t>(run)};
}

}  // namespace ndksim::mem
