// SPDX-License-Identifier: MIT
// The live-responder fuzzer without libFuzzer, for every compiler and for ctest: feeds each
// seed of a corpus directory in every input mode, then mutations of the seeds (bit flips, byte
// stores, truncations, extensions, header-field stores), drawn from a seeded generator, until a
// time or input budget runs out. Exits 1 at the first input that breaks a check, after writing
// it to the file named by --crash (default: live-responder-crash.bin), so it can be replayed.
//
//   live_responder_driver CORPUS_DIR [--seconds N] [--inputs N] [--seed S] [--crash FILE]

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "live_responder.hpp"

namespace {

using input = std::vector<std::uint8_t>;

std::vector<input> read_corpus(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            if (e->d_name[0] != '.') {
                names.emplace_back(e->d_name);
            }
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    std::vector<input> out;
    for (const std::string& n : names) {
        std::ifstream in(dir + "/" + n, std::ios::binary);
        out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return out;
}

// One to four random edits of a frame; header offsets (BTH opcode, QPN, PSN, RETH) are drawn
// more often than the rest, since that is where the checks are.
input mutate(const input& seed, std::mt19937_64& rng) {
    input f = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        const auto pick = [&](std::size_t n) { return n == 0 ? 0 : rng() % n; };
        switch (rng() % 6) {
            case 0:
                if (!f.empty()) {
                    f[pick(f.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
                }
                break;
            case 1:
                if (!f.empty()) {
                    f[pick(f.size())] = static_cast<std::uint8_t>(rng());
                }
                break;
            case 2:
                if (f.size() > 1) {
                    f.resize(1 + pick(f.size() - 1));
                }
                break;
            case 3:
                f.resize(f.size() + 1 + pick(64), static_cast<std::uint8_t>(rng()));
                break;
            default: {
                static constexpr std::size_t k_fields[] = {0,  4,  5,  6,  7,  8,  9,
                                                           10, 11, 12, 16, 20, 24, 27};
                const std::size_t at = k_fields[pick(std::size(k_fields))];
                if (at < f.size()) {
                    f[at] = static_cast<std::uint8_t>(rng());
                }
                break;
            }
        }
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: %s CORPUS_DIR [--seconds N] [--inputs N] [--seed S] [--crash FILE]\n",
                     argv[0]);
        return 2;
    }
    const std::string corpus_dir = argv[1];
    double seconds = 20;
    std::uint64_t max_inputs = UINT64_MAX;
    std::uint64_t seed = 1;
    std::string crash = "live-responder-crash.bin";
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string opt = argv[i];
        const char* value = argv[i + 1];
        if (opt == "--seconds") {
            seconds = std::strtod(value, nullptr);
        } else if (opt == "--inputs") {
            max_inputs = std::strtoull(value, nullptr, 10);
        } else if (opt == "--seed") {
            seed = std::strtoull(value, nullptr, 10);
        } else if (opt == "--crash") {
            crash = value;
        } else {
            std::fprintf(stderr, "unknown option %s\n", opt.c_str());
            return 2;
        }
    }
    const std::vector<input> seeds = read_corpus(corpus_dir);
    if (seeds.empty()) {
        std::fprintf(stderr, "no seeds in %s\n", corpus_dir.c_str());
        return 2;
    }
    ndksim::fuzz::live_responder responder;
    std::mt19937_64 rng(seed);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    const auto feed = [&](const input& frame, std::uint8_t mode) {
        input in;
        in.reserve(frame.size() + 1);
        in.push_back(mode);
        in.insert(in.end(), frame.begin(), frame.end());
        const std::string broke = responder.feed(in);
        if (broke.empty()) {
            return true;
        }
        std::ofstream(crash, std::ios::binary)
            .write(reinterpret_cast<const char*>(in.data()),
                   static_cast<std::streamsize>(in.size()));
        std::fprintf(stderr, "input %llu broke a check: %s (written to %s)\n",
                     static_cast<unsigned long long>(responder.inputs()), broke.c_str(),
                     crash.c_str());
        return false;
    };
    for (const input& s : seeds) {
        for (std::uint8_t mode = 0; mode < 4; ++mode) {
            if (!feed(s, mode)) {
                return 1;
            }
        }
    }
    while (responder.inputs() < max_inputs && std::chrono::steady_clock::now() < deadline) {
        const input& s = seeds[rng() % seeds.size()];
        if (!feed(mutate(s, rng), static_cast<std::uint8_t>(rng() % 4))) {
            return 1;
        }
    }
    std::printf(
        "live responder: %llu inputs (%zu seeds), the victim connection rebuilt %llu "
        "times, every check held\n",
        static_cast<unsigned long long>(responder.inputs()), seeds.size(),
        static_cast<unsigned long long>(responder.rebuilt()));
    return 0;
}
