// SPDX-License-Identifier: MIT
#include "mem/host_memory.hpp"

#include <new>

#include "mem/page.hpp"
#include "util/log.hpp"

namespace ndksim::mem {

host_memory& host_memory::instance() {
    // Never destroyed: adapters may outlive static destruction order in consumer programs.
    static host_memory* const host = new host_memory();
    return *host;
}

host_memory::host_memory() : host_memory(config{}) {}

host_memory::host_memory(const config& cfg)
    : cfg_{cfg.first_pfn == 0 ? 1 : cfg.first_pfn, cfg.max_frames},
      directory_size_((cfg.max_frames + chunk_frames - 1) >> chunk_shift),
      next_pfn_(cfg.first_pfn) {
    directory_ = std::make_unique<std::atomic<chunk*>[]>(directory_size_);
    for (std::size_t i = 0; i < directory_size_; ++i) {
        directory_[i].store(nullptr, std::memory_order_relaxed);
    }
}

host_memory::~host_memory() = default;

host_memory::frame* host_memory::slot_locked(std::uint64_t pfn) const noexcept {
    if (pfn < cfg_.first_pfn || pfn - cfg_.first_pfn >= cfg_.max_frames) {
        return nullptr;
    }
    const std::uint64_t idx = pfn - cfg_.first_pfn;
    chunk* c = directory_[idx >> chunk_shift].load(std::memory_order_relaxed);
    return c == nullptr ? nullptr : &c->frames[idx & (chunk_frames - 1)];
}

host_memory::frame* host_memory::find_locked(std::uint64_t pfn) const noexcept {
    frame* f = slot_locked(pfn);
    return f != nullptr && f->pins != 0 ? f : nullptr;
}

status host_memory::allocate_locked(std::uint64_t vpn, std::uint64_t& pfn) {
    const bool recycled = free_head_ != no_pfn;
    if (recycled) {
        pfn = free_head_;
    } else if (next_pfn_ - cfg_.first_pfn < cfg_.max_frames) {
        pfn = next_pfn_;
    } else {
        return status::insufficient_resources;
    }
    const std::uint64_t idx = pfn - cfg_.first_pfn;
    std::atomic<chunk*>& slot = directory_[idx >> chunk_shift];
    chunk* c = slot.load(std::memory_order_relaxed);
    if (c == nullptr) {
        chunks_.push_back(std::make_unique<chunk>());
        c = chunks_.back().get();
        slot.store(c, std::memory_order_release);
    }
    page_table_.emplace(vpn, pfn);
    frame& f = c->frames[idx & (chunk_frames - 1)];
    if (recycled) {
        free_head_ = f.next_free;
        if (free_head_ == no_pfn) {
            free_tail_ = no_pfn;
        }
        f.next_free = no_pfn;
    } else {
        ++next_pfn_;
    }
    f.pins = 1;
    f.page.store(static_cast<std::uintptr_t>(vpn << page_shift), std::memory_order_release);
    ++pinned_;
    return status::success;
}

void host_memory::unpin_locked(std::uint64_t pfn) noexcept {
    frame* f = find_locked(pfn);
    if (f == nullptr) {
        ++stray_unpins_;
        return;
    }
    if (--f->pins != 0) {
        return;
    }
    const std::uint64_t vpn = f->page.load(std::memory_order_relaxed) >> page_shift;
    f->page.store(0, std::memory_order_release);
    page_table_.erase(vpn);
    // Oldest-first reuse: a PFN kept past its unpin stays unassigned for as long as possible.
    frame* tail = slot_locked(free_tail_);
    if (tail == nullptr) {
        free_head_ = pfn;
    } else {
        tail->next_free = pfn;
    }
    free_tail_ = pfn;
    --pinned_;
}

status host_memory::pin(const void* address, std::uint64_t length,
                        std::span<std::uint64_t> pfns_out) {
    const auto va = reinterpret_cast<std::uintptr_t>(address);
    if (address == nullptr || !range_fits(va, length) || pfns_out.size() < span_pages(va, length)) {
        return status::invalid_parameter;
    }
    const std::uint64_t pages = span_pages(va, length);
    const std::uint64_t first_vpn = page_number(va);
    std::lock_guard lock(mutex_);
    std::uint64_t done = 0;
    status st = status::success;
    try {
        for (; done < pages; ++done) {
            const std::uint64_t vpn = first_vpn + done;
            const auto it = page_table_.find(vpn);
            if (frame* f = it == page_table_.end() ? nullptr : find_locked(it->second);
                f != nullptr) {
                ++f->pins;
                pfns_out[done] = it->second;
                continue;
            }
            st = allocate_locked(vpn, pfns_out[done]);
            if (st != status::success) {
                break;
            }
        }
    } catch (const std::bad_alloc&) {
        st = status::insufficient_resources;
    }
    if (st != status::success) {
        for (std::uint64_t i = 0; i < done; ++i) {
            unpin_locked(pfns_out[i]);
        }
        NDKSIM_DEBUG("host_memory: pinning {} pages at {:#x} failed: {}", pages, va, st);
    }
    return st;
}

status host_memory::pin_frames(std::span<const std::uint64_t> pfns) noexcept {
    std::lock_guard lock(mutex_);
    for (const std::uint64_t pfn : pfns) {
        if (find_locked(pfn) == nullptr) {
            return status::invalid_parameter;
        }
    }
    for (const std::uint64_t pfn : pfns) {
        if (frame* f = find_locked(pfn); f != nullptr) {
            ++f->pins;
        }
    }
    return status::success;
}

void host_memory::unpin(std::span<const std::uint64_t> pfns) noexcept {
    std::lock_guard lock(mutex_);
    for (const std::uint64_t pfn : pfns) {
        unpin_locked(pfn);
    }
}

std::byte* host_memory::frame_address(std::uint64_t pfn) const noexcept {
    const std::uint64_t idx = pfn - cfg_.first_pfn;
    if (pfn < cfg_.first_pfn || idx >= cfg_.max_frames) {
        return nullptr;
    }
    const chunk* c = directory_[idx >> chunk_shift].load(std::memory_order_acquire);
    if (c == nullptr) {
        return nullptr;
    }
    const std::uintptr_t page =
        c->frames[idx & (chunk_frames - 1)].page.load(std::memory_order_acquire);
    return reinterpret_cast<std::byte*>(page);
}

std::uint64_t host_memory::pfn_of(const void* address) const {
    std::lock_guard lock(mutex_);
    const auto it = page_table_.find(page_number(reinterpret_cast<std::uintptr_t>(address)));
    return it == page_table_.end() ? 0 : it->second;
}

std::uint32_t host_memory::pin_count(std::uint64_t pfn) const {
    std::lock_guard lock(mutex_);
    const frame* f = find_locked(pfn);
    return f == nullptr ? 0 : f->pins;
}

std::uint64_t host_memory::pinned_frames() const {
    std::lock_guard lock(mutex_);
    return pinned_;
}

std::uint64_t host_memory::stray_unpins() const {
    std::lock_guard lock(mutex_);
    return stray_unpins_;
}

}  // namespace ndksim::mem
