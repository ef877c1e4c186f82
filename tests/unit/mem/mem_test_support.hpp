// SPDX-License-Identifier: MIT
#pragma once
// Helpers for the src/mem unit tests: guarded host buffers, MDL chains over them (optionally
// with virtual addresses that are not the host addresses, so a dereferenced key would fault),
// and a fixture with a private host and one adapter unit.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "mem/mem.hpp"

namespace ndksim::mem::test {

inline constexpr std::byte canary{0xA5};

/// Page-aligned storage of `guard + size + guard` bytes, all set to the canary; data() is
/// `offset` bytes past the first guard zone.
class guarded_buffer {
  public:
    explicit guarded_buffer(std::size_t size, std::size_t offset = 0, std::size_t guard = 8192)
        : size_(size), offset_(offset), guard_(guard), total_(guard + offset + size + guard) {
        const std::size_t rounded = (total_ + page_size - 1) / page_size * page_size;
        base_ = static_cast<std::byte*>(::operator new (rounded, std::align_val_t{page_size}));
        total_ = rounded;
        std::memset(base_, static_cast<int>(canary), total_);
    }
    ~guarded_buffer() { ::operator delete (base_, std::align_val_t{page_size}); }
    guarded_buffer(const guarded_buffer&) = delete;
    guarded_buffer& operator=(const guarded_buffer&) = delete;

    std::byte* data() const noexcept { return base_ + guard_ + offset_; }
    std::size_t size() const noexcept { return size_; }
    std::span<std::byte> whole() const noexcept { return {base_, total_}; }
    std::uint64_t address() const noexcept { return reinterpret_cast<std::uintptr_t>(data()); }

    /// Fills the usable bytes with a counting pattern starting at `seed`.
    void fill_pattern(std::uint8_t seed) const noexcept {
        for (std::size_t i = 0; i < size_; ++i) {
            data()[i] = static_cast<std::byte>(seed + i * 7);
        }
    }

    /// True when every byte outside [data(), data() + size()) still holds the canary.
    bool guards_intact() const noexcept {
        for (std::size_t i = 0; i < total_; ++i) {
            const std::byte* p = base_ + i;
            if ((p < data() || p >= data() + size_) && *p != canary) {
                return false;
            }
        }
        return true;
    }

  private:
    std::size_t size_;
    std::size_t offset_;
    std::size_t guard_;
    std::size_t total_;
    std::byte* base_;
};

/// A virtual address with the same page offset as `host` but in a range no host object uses,
/// `page_shift_by` pages into it.
inline std::uint64_t fake_va(const void* host, std::uint64_t page_shift_by = 0) {
    return 0x7A0000000000ULL + (page_shift_by << page_shift) +
           byte_offset(reinterpret_cast<std::uintptr_t>(host));
}

/// Builds MDL segments over host bytes, pinning them as MmProbeAndLockPages would; unpins on
/// destruction.
class mdl_builder {
  public:
    explicit mdl_builder(host_memory& host) : host_(host) {}
    ~mdl_builder() {
        for (const auto& p : pfns_) {
            host_.unpin(p);
        }
    }
    mdl_builder(const mdl_builder&) = delete;
    mdl_builder& operator=(const mdl_builder&) = delete;

    /// Appends a segment for host bytes [p, p + len) keyed by `va` (0: the host address).
    mdl_builder& add(const void* p, std::uint32_t len, std::uint64_t va = 0) {
        const auto host_addr = reinterpret_cast<std::uintptr_t>(p);
        const std::uint64_t key = va != 0 ? va : host_addr;
        std::vector<std::uint64_t>& pfns = pfns_.emplace_back(span_pages(host_addr, len));
        EXPECT_EQ(host_.pin(p, len, pfns), status::success);
        segments_.push_back(mdl_segment{key, len, byte_offset(key), pfns});
        return *this;
    }

    mdl_chain chain() const noexcept { return segments_; }
    std::vector<mdl_segment>& segments() noexcept { return segments_; }

  private:
    host_memory& host_;
    std::deque<std::vector<std::uint64_t>> pfns_;
    std::vector<mdl_segment> segments_;
};

/// A unit over a private host, with one PD.
class unit_test : public ::testing::Test {
  protected:
    static unit_config default_config() {
        unit_config cfg;
        cfg.name = "test";
        cfg.max_entries = 256;
        cfg.max_mapped_pages = 4096;
        cfg.max_fast_register_pages = 64;
        cfg.max_lams = 64;
        return cfg;
    }

    explicit unit_test(unit_config cfg = default_config())
        : unit_(host_, std::move(cfg)), pd_(unit_.create_pd().id) {}

    /// A registered normal region over [p, p + len) keyed by `va` (0: the host address).
    region_id registered(const void* p, std::uint32_t len, access rights, std::uint64_t va = 0,
                         pd_id pd = pd_id::none) {
        const region_result r =
            unit_.create_region(pd == pd_id::none ? pd_ : pd, region_kind::normal);
        EXPECT_EQ(r.st, status::success);
        mdl_builder& m =
            builders_.emplace_back(std::make_unique<mdl_builder>(host_))->add(p, len, va);
        EXPECT_EQ(unit_.register_region(r.id, m.chain(), len, rights), status::success);
        return r.id;
    }

    /// A LAM over [p, p + len); its logical pages go to `pages`.
    lam_result lam(const void* p, std::uint32_t len, std::vector<std::uint64_t>& pages) {
        mdl_builder& m = builders_.emplace_back(std::make_unique<mdl_builder>(host_))->add(p, len);
        pages.assign(span_pages(reinterpret_cast<std::uintptr_t>(p), len), 0);
        const lam_result r = unit_.build_lam(m.chain(), len, pages);
        EXPECT_EQ(r.st, status::success);
        return r;
    }

    lookup_result look(std::uint32_t token, access_op op, std::uint64_t address,
                       std::uint64_t length, pd_id pd = pd_id::none) {
        const read_guard g = unit_.read();
        return unit_.lookup(g, {token, pd == pd_id::none ? pd_ : pd, op, address, length});
    }

    /// Copies `len` bytes from host memory through (token, address) into a vector.
    std::vector<std::byte> read_bytes(std::uint32_t token, access_op op, std::uint64_t address,
                                      std::uint32_t len, pd_id pd = pd_id::none) {
        const sge e{address, len, token};
        sge_cursor c(unit_, pd == pd_id::none ? pd_ : pd, op, std::span(&e, 1));
        std::vector<std::byte> out(len);
        const read_guard g = unit_.read();
        const copy_result r = c.copy_from_host(g, out);
        EXPECT_TRUE(r.ok()) << fault_name(r.failed);
        EXPECT_EQ(r.bytes, len);
        return out;
    }

    host_memory host_;
    translation_unit unit_;
    pd_id pd_;
    std::vector<std::unique_ptr<mdl_builder>> builders_;
};

}  // namespace ndksim::mem::test
