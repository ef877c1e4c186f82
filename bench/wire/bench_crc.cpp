// SPDX-License-Identifier: MIT
// CRC-32 for the ICRC: the library the wire uses (wire::crc32, Intel ISA-L's
// crc32_gzip_refl) against zlib's crc32 on the same buffers, and the ICRC of a whole frame
// (pseudo header + frame). Both compute the reflected Ethernet CRC (polynomial 0x04C11DB7,
// initial value and final XOR all ones), so the figures compare like for like.

#include <benchmark/benchmark.h>
#include <isa-l/crc.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/icrc.hpp"

namespace {

std::vector<std::byte> buffer(std::size_t n) {
    std::vector<std::byte> b(n);
    std::uint32_t x = 0x12345678;
    for (std::byte& v : b) {
        x = x * 1'664'525U + 1'013'904'223U;
        v = static_cast<std::byte>(x >> 24);
    }
    return b;
}

void BM_Crc32Isal(benchmark::State& state) {
    const auto b = buffer(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        benchmark::DoNotOptimize(crc32_gzip_refl(0,
                                                 reinterpret_cast<const unsigned char*>(b.data()),
                                                 static_cast<std::uint64_t>(b.size())));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}
BENCHMARK(BM_Crc32Isal)->Arg(12)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096);

void BM_Crc32Zlib(benchmark::State& state) {
    const auto b = buffer(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            ::crc32(0, reinterpret_cast<const Bytef*>(b.data()), static_cast<uInt>(b.size())));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}
BENCHMARK(BM_Crc32Zlib)->Arg(12)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096);

// The library's CRC-32 entry (what the ICRC runs on).
void BM_Crc32Wire(benchmark::State& state) {
    const auto b = buffer(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        benchmark::DoNotOptimize(ndksim::wire::crc32(b));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}
BENCHMARK(BM_Crc32Wire)->Arg(12)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096);

// The ICRC of a frame of the given length (BTH + payload, without the ICRC word): the pseudo
// IP/UDP header is built and covered first.
void BM_Icrc(benchmark::State& state) {
    const auto b = buffer(static_cast<std::size_t>(state.range(0)));
    ndksim::wire::flow f;
    f.src = ndksim::wire::ip_address::v4(10, 0, 0, 1);
    f.dst = ndksim::wire::ip_address::v4(10, 0, 0, 2);
    for (auto _ : state) {
        benchmark::DoNotOptimize(ndksim::wire::compute_icrc(f, b));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}
BENCHMARK(BM_Icrc)->Arg(28)->Arg(92)->Arg(4124);

}  // namespace

BENCHMARK_MAIN();
