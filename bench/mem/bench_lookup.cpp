// SPDX-License-Identifier: MIT
// The data path of every NIC access: read_guard + lookup (token, PD, rights, state, bounds,
// page-by-page translation with the translation-cache model) + copy out of host memory, for
// 64 B and 64 KiB accesses. Each size runs three ways in the same binary:
//   memcpy      the same copies with plain memcpy (the baseline for ratios)
//   cache_hit   two alternating ranges whose pages all stay in a 64x8 cache
//   cache_miss  the same two ranges through a cache too small to keep them (every page misses)
// Counters: per_access is the time of one access (the figure to quote; equal to Time, since one
// iteration is one access); misses_per_access confirms the case.

#include <benchmark/benchmark.h>

#include <cstring>
#include <new>
#include <vector>

#include "mem/mem.hpp"

namespace {

using namespace ndksim;
using namespace ndksim::mem;

constexpr std::size_t k_region = 4 * 65536;

struct page_buffer {
    explicit page_buffer(std::size_t n)
        : data(static_cast<std::byte*>(::operator new (n, std::align_val_t{page_size}))), size(n) {
        std::memset(data, 0x3C, n);
    }
    ~page_buffer() { ::operator delete (data, std::align_val_t{page_size}); }
    page_buffer(const page_buffer&) = delete;
    page_buffer& operator=(const page_buffer&) = delete;
    std::byte* data;
    std::size_t size;
};

// One adapter with one PD and one region over a 256 KiB host buffer.
struct setup {
    explicit setup(cache_config cache)
        : buf(k_region),
          pfns(span_pages(reinterpret_cast<std::uintptr_t>(buf.data), k_region)),
          unit(host, config(cache)),
          pd(unit.create_pd().id) {
        if (host.pin(buf.data, k_region, pfns) != status::success) {
            std::abort();
        }
        const mdl_segment seg{reinterpret_cast<std::uintptr_t>(buf.data),
                              static_cast<std::uint32_t>(k_region), 0, pfns};
        region = unit.create_region(pd, region_kind::normal).id;
        if (unit.register_region(region, std::span(&seg, 1), k_region,
                                 access_from_mr_flags(ndk_flags::mr_allow_local_write)) !=
            status::success) {
            std::abort();
        }
        token = unit.local_token(region);
    }
    ~setup() {
        static_cast<void>(unit.destroy_region(region));
        host.unpin(pfns);
    }

    static unit_config config(cache_config cache) {
        unit_config cfg;
        cfg.cache = cache;
        return cfg;
    }

    page_buffer buf;
    std::vector<std::uint64_t> pfns;
    host_memory host;
    translation_unit unit;
    pd_id pd;
    region_id region{};
    std::uint32_t token = 0;
};

// The two source offsets an access alternates between: a page apart for small accesses, one
// access size apart for large ones, so a miss-case cache cannot keep both.
std::size_t second_offset(std::size_t size) {
    return size < page_size ? page_size : size;
}

void finish(benchmark::State& state, std::size_t size, std::uint64_t misses) {
    const auto n = static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(size));
    state.counters["per_access"] =
        benchmark::Counter(n, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["misses_per_access"] = static_cast<double>(misses) / n;
}

void bm_memcpy(benchmark::State& state) {
    const auto size = static_cast<std::size_t>(state.range(0));
    page_buffer src(k_region);
    std::vector<std::byte> dst(size);
    const std::size_t offsets[2] = {0, second_offset(size)};
    std::size_t i = 0;
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data + offsets[i++ & 1], size);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    finish(state, size, 0);
}

void run_lookup_copy(benchmark::State& state, cache_config cache) {
    const auto size = static_cast<std::size_t>(state.range(0));
    setup s(cache);
    std::vector<std::byte> dst(size);
    const auto base = reinterpret_cast<std::uintptr_t>(s.buf.data);
    const sge list[2] = {{base, static_cast<std::uint32_t>(size), s.token},
                         {base + second_offset(size), static_cast<std::uint32_t>(size), s.token}};
    std::size_t i = 0;
    for (int warm = 0; warm < 4; ++warm) {
        const read_guard g = s.unit.read();
        sge_cursor c(s.unit, s.pd, access_op::local_read, std::span(&list[warm & 1], 1));
        static_cast<void>(c.copy_from_host(g, dst));
    }
    const std::uint64_t misses_before = s.unit.cache_stats().misses;
    for (auto _ : state) {
        const read_guard g = s.unit.read();
        sge_cursor c(s.unit, s.pd, access_op::local_read, std::span(&list[i++ & 1], 1));
        const copy_result r = c.copy_from_host(g, dst);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    finish(state, size, s.unit.cache_stats().misses - misses_before);
}

void bm_lookup_copy_cache_hit(benchmark::State& state) {
    run_lookup_copy(state, cache_config{64, 8});
}

void bm_lookup_copy_cache_miss(benchmark::State& state) {
    // 1 set: for 64 B one way alternating between two pages; for 64 KiB 16 ways cycling
    // through 32 pages in LRU order. Every probe misses.
    const auto size = static_cast<std::size_t>(state.range(0));
    run_lookup_copy(state, cache_config{1, size < page_size ? 1u : 16u});
}

BENCHMARK(bm_memcpy)->Arg(64)->Arg(65536);
BENCHMARK(bm_lookup_copy_cache_hit)->Arg(64)->Arg(65536);
BENCHMARK(bm_lookup_copy_cache_miss)->Arg(64)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();
