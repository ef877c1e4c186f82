// SPDX-License-Identifier: MIT
// Property test: thousands of random regions, fast registrations, windows, LAMs and accesses,
// checked against an independent reference model of what the unit must allow. Every allowed
// access must touch exactly the host bytes the model predicts; every refused access must touch
// none. All host buffers carry guard zones, and the whole of every allocation is compared with
// a shadow copy after each write. The seed is fixed (override with NDKSIM_MEM_SEED) and printed
// with every failure.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

constexpr int k_buffers = 6;
constexpr int k_steps = 40000;
constexpr std::size_t k_max_objects = 48;
constexpr std::uint32_t k_max_fr_pages = 8;

std::uint64_t seed_from_env() {
    if (const char* s = std::getenv("NDKSIM_MEM_SEED"); s != nullptr) {
        return std::strtoull(s, nullptr, 0);
    }
    return 0x6D656D2D70726F70ULL;
}

// ---- the reference model ---------------------------------------------------------------------

struct rights_m {
    bool lr = false;
    bool lw = false;
    bool rr = false;
    bool rw = false;
    bool sink = false;
};

// Rights derived here from the documented flag values (REFERENCE.md 2.3 / 2.4), independently
// of access.cpp.
rights_m rights_from_mr_flags(std::uint32_t f) {
    return {true, (f & 0x1) != 0 || (f & 0x4) != 0, (f & 0x2) != 0, (f & 0x4) != 0, (f & 0x8) != 0};
}
rights_m rights_from_op_flags(std::uint32_t f) {
    return {true, (f & 0x10) != 0 || (f & 0x20) != 0, (f & 0x8) != 0, (f & 0x20) != 0,
            (f & 0x80) != 0};
}
rights_m window_rights_from_op_flags(std::uint32_t f) {
    return {false, false, (f & 0x8) != 0, (f & 0x20) != 0, false};
}

bool allows(const rights_m& r, access_op op, bool sink_not_required) {
    switch (op) {
        case access_op::local_read:
            return r.lr;
        case access_op::local_write:
            return r.lw;
        case access_op::remote_read:
            return r.rr;
        case access_op::remote_write:
            return r.rw;
        case access_op::read_sink:
            return r.lw && (sink_not_required || r.sink);
    }
    return false;
}

enum class kind_m { normal, fr, window };

struct object_m {
    kind_m kind = kind_m::normal;
    bool alive = true;
    pd_id pd{};
    std::uint32_t id = 0;
    std::uint32_t token = 0;
    bool valid = false;
    rights_m rights;
    std::uint64_t base = 0;
    std::uint64_t len = 0;
    std::byte* host_start = nullptr;   // normal
    std::vector<std::uint64_t> pages;  // fr: logical pages
    std::uint32_t fbo = 0;             // fr
    std::uint32_t max_pages = 0;       // fr
    bool remote_access = false;        // fr
    int region = -1;                   // window: bound region object
    int bound_windows = 0;             // regions
};

struct buffer_m {
    std::unique_ptr<guarded_buffer> buf;
    std::vector<std::byte> shadow;  // expected content of buf->whole()
    lam_id lam{};
    std::vector<std::uint64_t> lam_pages;
};

struct params {
    cache_config cache;
    bool sink_not_required;
};

class Property : public ::testing::TestWithParam<params> {
  protected:
    Property()
        : seed_(seed_from_env()),
          rng_(seed_ ^ (GetParam().cache.sets * 31 + GetParam().cache.ways)),
          unit_(host_, config()) {}

    static unit_config config() {
        unit_config cfg;
        cfg.name = "prop";
        cfg.max_entries = 256;
        cfg.max_mapped_pages = 8192;
        cfg.max_fast_register_pages = k_max_fr_pages;
        cfg.read_sink_not_required = GetParam().sink_not_required;
        cfg.cache = GetParam().cache;
        return cfg;
    }

    std::string ctx() const {
        std::ostringstream s;
        s << "seed=0x" << std::hex << seed_ << std::dec << " step=" << step_
          << " (rerun with NDKSIM_MEM_SEED=0x" << std::hex << seed_ << ")";
        return s.str();
    }

    std::uint64_t rnd(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }
    bool chance(int percent) { return static_cast<int>(rnd(100)) < percent; }

    // ---- model queries ---------------------------------------------------------------------

    // Host byte behind logical address `la`, or nullptr when the model says it is not mapped.
    std::byte* logical_host(std::uint64_t la) const {
        const auto it = live_lam_.find(page_align(la));
        if (it == live_lam_.end()) {
            return nullptr;
        }
        const buffer_m& b = buffers_[it->second.first];
        std::byte* page0 = reinterpret_cast<std::byte*>(page_align(b.buf->address()));
        std::byte* p = page0 + it->second.second * page_size + byte_offset(la);
        if (p < b.buf->data() || p >= b.buf->data() + b.buf->size()) {
            return nullptr;  // outside the bytes the LAM described
        }
        return p;
    }

    // Host byte behind virtual address `a` of region object `o` (valid, a inside).
    std::byte* region_host(const object_m& o, std::uint64_t a) const {
        if (o.kind == kind_m::normal) {
            return o.host_start + (a - o.base);
        }
        const std::uint64_t pos = o.fbo + (a - o.base);
        return logical_host(o.pages[pos >> page_shift] + byte_offset(pos));
    }

    // The host bytes an access may touch, in order; nullopt when it must be refused.
    std::optional<std::vector<std::byte*>> expect(std::uint32_t token, pd_id pd, access_op op,
                                                  std::uint64_t a, std::uint64_t len) const {
        const bool sink_nr = GetParam().sink_not_required;
        std::vector<std::byte*> bytes;
        for (const auto& [owner, priv] : privileged_) {
            if (priv != token) {
                continue;
            }
            const rights_m r{true, true, false, false, true};
            if (owner != pd || !allows(r, op, sink_nr) || !range_fits(a, len)) {
                return std::nullopt;
            }
            for (std::uint64_t i = 0; i < len; ++i) {
                std::byte* p = logical_host(a + i);
                if (p == nullptr) {
                    return std::nullopt;
                }
                bytes.push_back(p);
            }
            return bytes;
        }
        const object_m* o = nullptr;
        for (const object_m& c : objects_) {
            if (c.alive && c.token == token) {
                o = &c;
            }
        }
        if (o == nullptr || o->pd != pd || !allows(o->rights, op, sink_nr) || !o->valid) {
            return std::nullopt;
        }
        if (!range_fits(a, len) || a < o->base || a + len > o->base + o->len) {
            return std::nullopt;
        }
        const object_m& backing = o->kind == kind_m::window ? objects_[o->region] : *o;
        for (std::uint64_t i = 0; i < len; ++i) {
            std::byte* p = region_host(backing, a + i);
            if (p == nullptr) {
                return std::nullopt;
            }
            bytes.push_back(p);
        }
        return bytes;
    }

    std::byte* shadow_of(std::byte* host) {
        for (buffer_m& b : buffers_) {
            const std::span<std::byte> w = b.buf->whole();
            if (host >= w.data() && host < w.data() + w.size()) {
                return b.shadow.data() + (host - w.data());
            }
        }
        ADD_FAILURE() << "model byte outside every buffer " << ctx();
        return nullptr;
    }

    void verify_arena() {
        for (std::size_t i = 0; i < buffers_.size(); ++i) {
            const std::span<std::byte> w = buffers_[i].buf->whole();
            if (std::memcmp(w.data(), buffers_[i].shadow.data(), w.size()) != 0) {
                std::size_t at = 0;
                while (w[at] == buffers_[i].shadow[at]) {
                    ++at;
                }
                FAIL() << "buffer " << i << " differs from the model at byte " << at << " "
                       << ctx();
            }
        }
    }

    // ---- setup ------------------------------------------------------------------------------

    void build_lam(int b) {
        buffer_m& bm = buffers_[b];
        mdl_builder& m = mdl(bm.buf->data(), static_cast<std::uint32_t>(bm.buf->size()));
        bm.lam_pages.assign(span_pages(bm.buf->address(), bm.buf->size()), 0);
        const lam_result r = unit_.build_lam(m.chain(), bm.buf->size(), bm.lam_pages);
        ASSERT_EQ(r.st, status::success) << ctx();
        bm.lam = r.id;
        for (std::size_t k = 0; k < bm.lam_pages.size(); ++k) {
            live_lam_[bm.lam_pages[k]] = {b, static_cast<int>(k)};
        }
    }

    mdl_builder& mdl(const std::byte* p, std::uint32_t len, std::uint64_t va = 0) {
        builders_.push_back(std::make_unique<mdl_builder>(host_));
        mdl_builder& m = *builders_.back();
        // Split the range into up to three contiguous segments.
        const std::uint32_t cut1 =
            len > 2 && chance(40) ? 1 + static_cast<std::uint32_t>(rnd(len - 1)) : len;
        const std::uint32_t cut2 = cut1 < len - 1 && chance(50)
                                       ? cut1 + 1 + static_cast<std::uint32_t>(rnd(len - cut1 - 1))
                                       : len;
        const std::uint64_t key = va != 0 ? va : reinterpret_cast<std::uintptr_t>(p);
        m.add(p, cut1, key);
        if (cut1 < len) {
            m.add(p + cut1, cut2 - cut1, key + cut1);
        }
        if (cut2 < len) {
            m.add(p + cut2, len - cut2, key + cut2);
        }
        return m;
    }

    void SetUp() override {
        pds_ = {unit_.create_pd().id, unit_.create_pd().id};
        for (const pd_id pd : pds_) {
            privileged_.emplace_back(pd, unit_.privileged_token(pd));
        }
        for (int b = 0; b < k_buffers; ++b) {
            buffer_m bm;
            bm.buf = std::make_unique<guarded_buffer>(1 + rnd(6 * page_size), rnd(page_size),
                                                      page_size + rnd(page_size));
            bm.buf->fill_pattern(static_cast<std::uint8_t>(b * 40));
            const std::span<std::byte> w = bm.buf->whole();
            bm.shadow.assign(w.begin(), w.end());
            buffers_.push_back(std::move(bm));
            build_lam(b);
        }
    }

    // ---- control operations with predicted statuses ---------------------------------------

    int random_object(kind_m kind, bool alive_only = true) {
        std::vector<int> picks;
        for (std::size_t i = 0; i < objects_.size(); ++i) {
            if ((!alive_only || objects_[i].alive) && objects_[i].kind == kind) {
                picks.push_back(static_cast<int>(i));
            }
        }
        return picks.empty() ? -1 : picks[rnd(picks.size())];
    }

    std::size_t live_objects() const {
        return static_cast<std::size_t>(std::count_if(objects_.begin(), objects_.end(),
                                                      [](const object_m& o) { return o.alive; }));
    }

    pd_id other(pd_id pd) const { return pd == pds_[0] ? pds_[1] : pds_[0]; }

    void register_normal(object_m& o) {
        const buffer_m& b = buffers_[rnd(k_buffers)];
        const std::uint64_t off = rnd(b.buf->size());
        const auto len = static_cast<std::uint32_t>(1 + rnd(b.buf->size() - off));
        std::byte* p = b.buf->data() + off;
        const std::uint64_t va = chance(30) ? reinterpret_cast<std::uintptr_t>(p)
                                            : ((0x100000 + rnd(0x7FF00000)) << page_shift) +
                                                  byte_offset(reinterpret_cast<std::uintptr_t>(p));
        const auto flags = static_cast<std::uint32_t>(rnd(16));
        mdl_builder& m = mdl(p, len, va);
        ASSERT_EQ(
            unit_.register_region(region_id{o.id}, m.chain(), len, access_from_mr_flags(flags)),
            status::success)
            << ctx();
        o.valid = true;
        o.base = va;
        o.len = len;
        o.host_start = p;
        o.rights = rights_from_mr_flags(flags);
        o.token = unit_.local_token(region_id{o.id});
        tokens_seen_.push_back(o.token);
    }

    void op_create_normal() {
        ++created_;
        object_m o;
        o.kind = kind_m::normal;
        o.pd = pds_[rnd(2)];
        const region_result r = unit_.create_region(o.pd, region_kind::normal);
        ASSERT_EQ(r.st, status::success) << ctx();
        o.id = raw(r.id);
        register_normal(o);
        objects_.push_back(std::move(o));
    }

    void op_deregister() {
        const int i = random_object(kind_m::normal);
        if (i < 0) {
            return;
        }
        object_m& o = objects_[i];
        const status want = !o.valid              ? status::invalid_device_state
                            : o.bound_windows > 0 ? status::device_busy
                                                  : status::success;
        ASSERT_EQ(unit_.deregister_region(region_id{o.id}), want) << ctx();
        if (want == status::success) {
            o.valid = false;
            o.rights = {};
            if (chance(50)) {
                register_normal(o);
            }
        } else if (!o.valid) {
            register_normal(o);
        }
    }

    void op_destroy_region() {
        const int i = chance(50) ? random_object(kind_m::normal) : random_object(kind_m::fr);
        if (i < 0) {
            return;
        }
        object_m& o = objects_[i];
        const status want = o.bound_windows > 0 ? status::device_busy : status::success;
        ASSERT_EQ(unit_.destroy_region(region_id{o.id}), want) << ctx();
        if (want == status::success) {
            o.alive = false;
        }
    }

    void op_create_fr() {
        ++created_;
        object_m o;
        o.kind = kind_m::fr;
        o.pd = pds_[rnd(2)];
        const region_result r = unit_.create_region(o.pd, region_kind::fast_register);
        ASSERT_EQ(r.st, status::success) << ctx();
        o.id = raw(r.id);
        if (chance(10)) {
            ASSERT_EQ(unit_.initialize_fast_register(r.id, k_max_fr_pages + 1, true),
                      status::implementation_limit)
                << ctx();
        }
        o.max_pages = 1 + static_cast<std::uint32_t>(rnd(k_max_fr_pages));
        o.remote_access = chance(60);
        ASSERT_EQ(unit_.initialize_fast_register(r.id, o.max_pages, o.remote_access),
                  status::success)
            << ctx();
        objects_.push_back(std::move(o));
    }

    void op_fast_register() {
        const int i = random_object(kind_m::fr);
        if (i < 0) {
            return;
        }
        object_m& o = objects_[i];
        const buffer_m& b = buffers_[rnd(k_buffers)];
        const std::size_t avail = b.lam_pages.size();
        const std::size_t n = 1 + rnd(std::min<std::size_t>(avail, o.max_pages + 1));
        const std::size_t start = rnd(avail - n + 1);
        std::vector<std::uint64_t> pages(
            b.lam_pages.begin() + static_cast<std::ptrdiff_t>(start),
            b.lam_pages.begin() + static_cast<std::ptrdiff_t>(start + n));
        if (chance(30)) {
            std::shuffle(pages.begin(), pages.end(), rng_);
        }
        const auto fbo = static_cast<std::uint32_t>(rnd(page_size));
        const std::uint64_t len = rnd((n << page_shift) - fbo + 1);
        const std::uint64_t base = ((1 + rnd(0x3FFFFFFF)) << page_shift) + fbo;
        static constexpr std::uint32_t k_flag_bits[] = {0x8, 0x10, 0x30, 0x80};
        std::uint32_t flags = 0;
        for (const std::uint32_t f : k_flag_bits) {
            if (chance(50)) {
                flags |= f;
            }
        }
        const pd_id qp = chance(90) ? o.pd : other(o.pd);
        const fast_register_request rq{
            region_id{o.id}, pages, fbo, len, base, access_from_op_flags(flags)};
        const bool remote = (flags & 0x28) != 0;
        const status post_want = qp != o.pd                   ? status::access_violation
                                 : remote && !o.remote_access ? status::access_violation
                                 : n > o.max_pages            ? status::invalid_parameter
                                                              : status::success;
        const token_result t = unit_.post_fast_register(qp, rq);
        ASSERT_EQ(t.st, post_want) << ctx();
        if (t.st != status::success) {
            return;
        }
        EXPECT_EQ(unit_.remote_token(region_id{o.id}), t.token) << ctx();
        const status exec_want = o.valid ? status::invalid_device_state : status::success;
        ASSERT_EQ(unit_.execute_fast_register(qp, rq, t.token), exec_want) << ctx();
        tokens_seen_.push_back(t.token);
        if (exec_want != status::success) {
            return;
        }
        o.valid = true;
        o.pages = std::move(pages);
        o.fbo = fbo;
        o.len = len;
        o.base = base;
        o.rights = rights_from_op_flags(flags);
        o.token = t.token;
    }

    void op_invalidate_fr() {
        const int i = random_object(kind_m::fr);
        if (i < 0) {
            return;
        }
        object_m& o = objects_[i];
        const status want = !o.valid              ? status::invalid_device_state
                            : o.bound_windows > 0 ? status::device_busy
                                                  : status::success;
        if (chance(50)) {
            ASSERT_EQ(unit_.execute_invalidate(o.pd, region_id{o.id}), want) << ctx();
        } else {
            ASSERT_EQ(unit_.execute_invalidate_token(o.pd, o.token),
                      o.token == 0 ? status::access_violation : want)
                << ctx();
        }
        if (want == status::success && o.token != 0) {
            o.valid = false;
        }
    }

    void op_create_window() {
        ++created_;
        object_m o;
        o.kind = kind_m::window;
        o.pd = pds_[rnd(2)];
        const window_result w = unit_.create_window(o.pd);
        ASSERT_EQ(w.st, status::success) << ctx();
        o.id = raw(w.id);
        o.token = unit_.window_token(w.id);
        objects_.push_back(std::move(o));
    }

    void op_bind() {
        const int wi = random_object(kind_m::window);
        const int ri = chance(60) ? random_object(kind_m::normal) : random_object(kind_m::fr);
        if (wi < 0 || ri < 0) {
            return;
        }
        object_m& w = objects_[wi];
        object_m& r = objects_[ri];
        const std::uint64_t region_len = std::max<std::uint64_t>(r.len, 1);
        std::uint64_t off = rnd(region_len);
        std::uint64_t len = rnd(region_len - off + 1);
        if (chance(10)) {
            len += 1 + rnd(64);  // beyond the region
        }
        if (r.base == 0) {
            return;  // never registered: no address to bind to
        }
        const std::uint64_t va = r.base + off;
        const std::uint32_t flags = (chance(60) ? 0x8u : 0u) | (chance(50) ? 0x30u : 0u);
        const pd_id qp = chance(90) ? w.pd : other(w.pd);
        const bind_request rq{window_id{w.id}, region_id{r.id}, va, len,
                              access_from_op_flags(flags)};
        const bool inside = off + len <= r.len;
        const status post_want = (w.pd != qp || r.pd != qp)              ? status::access_violation
                                 : !r.valid                              ? status::success
                                 : !inside                               ? status::invalid_parameter
                                 : ((flags & 0x20) != 0 && !r.rights.lw) ? status::access_violation
                                                                         : status::success;
        const token_result t = unit_.post_bind(qp, rq);
        ASSERT_EQ(t.st, post_want) << ctx();
        if (t.st != status::success) {
            return;
        }
        EXPECT_EQ(unit_.window_token(window_id{w.id}), t.token) << ctx();
        status exec_want = status::success;
        if (!r.valid) {
            exec_want = status::invalid_device_state;
        }
        ASSERT_EQ(unit_.execute_bind(qp, rq, t.token), exec_want) << ctx();
        tokens_seen_.push_back(t.token);
        if (exec_want != status::success) {
            return;
        }
        if (w.valid) {
            --objects_[w.region].bound_windows;
        }
        ++r.bound_windows;
        w.valid = true;
        w.region = ri;
        w.base = va;
        w.len = len;
        w.rights = window_rights_from_op_flags(flags);
        w.token = t.token;
    }

    void op_invalidate_window() {
        const int i = random_object(kind_m::window);
        if (i < 0) {
            return;
        }
        object_m& w = objects_[i];
        const status want = w.valid ? status::success : status::invalid_device_state;
        ASSERT_EQ(unit_.execute_invalidate(w.pd, window_id{w.id}), want) << ctx();
        if (w.valid) {
            --objects_[w.region].bound_windows;
            w.valid = false;
        }
    }

    void op_destroy_window() {
        const int i = random_object(kind_m::window);
        if (i < 0) {
            return;
        }
        object_m& w = objects_[i];
        ASSERT_EQ(unit_.destroy_window(window_id{w.id}), status::success) << ctx();
        if (w.valid) {
            --objects_[w.region].bound_windows;
        }
        w.alive = false;
    }

    void op_relam() {
        const int b = static_cast<int>(rnd(k_buffers));
        ASSERT_TRUE(unit_.release_lam(buffers_[b].lam)) << ctx();
        for (const std::uint64_t la : buffers_[b].lam_pages) {
            live_lam_.erase(la);
        }
        build_lam(b);
    }

    // ---- accesses ---------------------------------------------------------------------------

    // A random SGE aimed at some object; `hint` receives the rights of the object aimed at
    // (nullptr for stale or garbage tokens).
    sge random_sge(pd_id& pd, const rights_m*& hint) {
        static const rights_m k_privileged{true, true, false, false, true};
        hint = nullptr;
        std::uint32_t token = 0;
        std::uint64_t base = 0;
        std::uint64_t len = 0;
        const int pick = static_cast<int>(rnd(100));
        int oi = static_cast<int>(rnd(objects_.size() + 1)) - 1;
        if (chance(85)) {
            std::vector<int> usable;
            for (std::size_t i = 0; i < objects_.size(); ++i) {
                if (objects_[i].alive && objects_[i].valid) {
                    usable.push_back(static_cast<int>(i));
                }
            }
            if (!usable.empty()) {
                oi = usable[rnd(usable.size())];
            }
        }
        if (pick < 65 && oi >= 0) {
            const object_m& o = objects_[oi];
            token = o.token;
            pd = chance(90) ? o.pd : other(o.pd);
            base = o.base;
            len = o.len;
            hint = &o.rights;
        } else if (pick < 85) {
            const int which = static_cast<int>(rnd(2));
            token = privileged_[which].second;
            pd = chance(90) ? privileged_[which].first : other(privileged_[which].first);
            const buffer_m& b = buffers_[rnd(k_buffers)];
            base = b.lam_pages[rnd(b.lam_pages.size())];
            len = page_size;
            hint = &k_privileged;
            if (chance(10)) {
                base = b.buf->address();  // a virtual address with the privileged token
            }
        } else if (pick < 95 && !tokens_seen_.empty()) {
            token = tokens_seen_[rnd(tokens_seen_.size())];
            pd = pds_[rnd(2)];
            const object_m& o = objects_[rnd(objects_.size())];
            base = o.base;
            len = o.len;
        } else {
            token = static_cast<std::uint32_t>(rng_());
            pd = pds_[rnd(2)];
            base = buffers_[0].buf->address();
            len = 64;
        }
        std::uint64_t n = 0;
        const int size_class = static_cast<int>(rnd(100));
        if (size_class < 5) {
            n = 0;
        } else if (size_class < 45) {
            n = 1 + rnd(64);
        } else if (size_class < 75) {
            n = 1 + rnd(page_size);
        } else {
            n = 1 + rnd(3 * page_size);
        }
        std::uint64_t a = base;
        const int where = static_cast<int>(rnd(100));
        if (where < 70 && len > 0) {
            a = base + rnd(len);
            if (chance(70)) {
                n = std::min<std::uint64_t>(n, base + len - a);
            }
        } else if (where < 85) {
            a = base - std::min<std::uint64_t>(base, 1 + rnd(64));
        } else {
            a = base + len + rnd(64) - 32;
        }
        return sge{a, static_cast<std::uint32_t>(n), token};
    }

    // An operation the rights allow with 60% probability, otherwise any.
    access_op pick_op(const rights_m* hint) {
        if (hint != nullptr && chance(60)) {
            std::vector<access_op> ok;
            for (int i = 0; i < 5; ++i) {
                if (allows(*hint, static_cast<access_op>(i), GetParam().sink_not_required)) {
                    ok.push_back(static_cast<access_op>(i));
                }
            }
            if (!ok.empty()) {
                return ok[rnd(ok.size())];
            }
        }
        return static_cast<access_op>(rnd(5));
    }

    void one_access() {
        const std::size_t count = chance(10) ? 2 + rnd(2) : 1;
        pd_id pd{};
        access_op op{};
        std::vector<sge> list;
        std::vector<std::byte*> expected;
        bool allowed = true;
        for (std::size_t i = 0; i < count; ++i) {
            pd_id this_pd{};
            const rights_m* hint = nullptr;
            sge e = random_sge(this_pd, hint);
            if (i == 0) {
                pd = this_pd;
                op = pick_op(hint);
            }
            list.push_back(e);
            const auto want = expect(e.token, pd, op, e.address, e.length);
            {
                const read_guard g = unit_.read();
                const lookup_result r = unit_.lookup(g, {e.token, pd, op, e.address, e.length});
                ASSERT_EQ(r.ok(), want.has_value())
                    << "lookup of token " << std::hex << e.token << " at " << e.address << " len "
                    << std::dec << e.length << " op " << op_traits(op).name << " fault "
                    << fault_name(r.failed) << " " << ctx();
                if (!r.ok()) {
                    ASSERT_EQ(r.st(), status::access_violation) << ctx();
                }
            }
            if (e.length != 0) {
                if (want.has_value()) {
                    expected.insert(expected.end(), want->begin(), want->end());
                } else {
                    allowed = false;
                }
            }
        }
        const bool writes = op_traits(op).writes_host;
        sge_cursor c(unit_, pd, op, list);
        const read_guard g = unit_.read();
        const copy_result v = c.validate(g);
        ASSERT_EQ(v.ok(), allowed) << ctx();
        if (!allowed) {
            ++refused_;
            return;  // the engine stops at validate(); nothing may have been touched
        }
        if (writes) {
            std::vector<std::byte> src(expected.size());
            for (std::byte& x : src) {
                x = static_cast<std::byte>(rng_());
            }
            const copy_result r = c.copy_to_host(g, src);
            ASSERT_TRUE(r.ok()) << fault_name(r.failed) << " " << ctx();
            ASSERT_EQ(r.bytes, src.size()) << ctx();
            for (std::size_t i = 0; i < expected.size(); ++i) {
                std::byte* s = shadow_of(expected[i]);
                ASSERT_NE(s, nullptr);
                *s = src[i];
            }
            ++writes_done_;
        } else {
            std::vector<std::byte> out(expected.size());
            const copy_result r = c.copy_from_host(g, out);
            ASSERT_TRUE(r.ok()) << fault_name(r.failed) << " " << ctx();
            ASSERT_EQ(r.bytes, out.size()) << ctx();
            for (std::size_t i = 0; i < expected.size(); ++i) {
                ASSERT_EQ(out[i], *shadow_of(expected[i])) << "byte " << i << " " << ctx();
            }
            ++reads_done_;
        }
    }

    void run() {
        for (step_ = 0; step_ < k_steps; ++step_) {
            const int dice = static_cast<int>(rnd(100));
            const bool room = live_objects() < k_max_objects;
            if (dice < 5 && room) {
                op_create_normal();
            } else if (dice < 9) {
                op_deregister();
            } else if (dice < 13) {
                op_destroy_region();
            } else if (dice < 16 && room) {
                op_create_fr();
            } else if (dice < 22) {
                op_fast_register();
            } else if (dice < 25) {
                op_invalidate_fr();
            } else if (dice < 28 && room) {
                op_create_window();
            } else if (dice < 33) {
                op_bind();
            } else if (dice < 35) {
                op_invalidate_window();
            } else if (dice < 37) {
                op_destroy_window();
            } else if (dice < 38) {
                op_relam();
            } else {
                one_access();
            }
            if (HasFatalFailure()) {
                return;
            }
            verify_arena();
            if (HasFatalFailure()) {
                return;
            }
        }
    }

    std::uint64_t seed_;
    std::mt19937_64 rng_;
    host_memory host_;
    translation_unit unit_;
    std::vector<std::unique_ptr<mdl_builder>> builders_;
    std::vector<buffer_m> buffers_;
    std::vector<pd_id> pds_;
    std::vector<std::pair<pd_id, std::uint32_t>> privileged_;
    std::unordered_map<std::uint64_t, std::pair<int, int>> live_lam_;
    std::vector<object_m> objects_;
    std::vector<std::uint32_t> tokens_seen_;
    int step_ = 0;
    int writes_done_ = 0;
    int reads_done_ = 0;
    int refused_ = 0;
    int created_ = 0;
};

TEST_P(Property, EveryAllowedAccessTouchesExactlyItsBytesAndEveryRefusedOneNone) {
    run();
    if (HasFatalFailure()) {
        return;
    }
    const cache_counters c = unit_.cache_stats();
    EXPECT_EQ(c.stale_hits, 0u) << ctx();
    // The random mix must exercise both outcomes, and many objects, in volume.
    EXPECT_GT(writes_done_, 1000) << ctx();
    EXPECT_GT(reads_done_, 1000) << ctx();
    EXPECT_GT(refused_, 2000) << ctx();
    EXPECT_GT(created_, 1000) << ctx();
    std::cout << "[ property ] seed=0x" << std::hex << seed_ << std::dec << " objects=" << created_
              << " allowed writes=" << writes_done_ << " allowed reads=" << reads_done_
              << " refused=" << refused_ << " cache hits=" << c.hits << " misses=" << c.misses
              << "\n";
}

INSTANTIATE_TEST_SUITE_P(CacheAndReadSink, Property,
                         ::testing::Values(params{{64, 8}, true}, params{{1, 2}, false},
                                           params{{0, 0}, true}),
                         [](const ::testing::TestParamInfo<params>& p) {
                             return "sets" + std::to_string(p.param.cache.sets) + "_ways" +
                                    std::to_string(p.param.cache.ways) +
                                    (p.param.sink_not_required ? "_sink_not_required"
                                                               : "_sink_required");
                         });

}  // namespace
}  // namespace ndksim::mem::test
