// SPDX-License-Identifier: MIT
#include "handshake.hpp"

#include <algorithm>

namespace ndksim::perf {
namespace {

// "NPRF" and the layout's version: a connection from anything else is refused.
constexpr std::uint32_t k_magic = 0x4E505246;
constexpr std::uint8_t k_version = 2;

// Little-endian field writer and reader over a fixed array.
template <std::size_t N>
struct writer {
    std::array<std::byte, N> out{};
    std::size_t at = 0;
    void put(std::uint64_t v, std::size_t bytes) {
        for (std::size_t i = 0; i < bytes; ++i) {
            out[at++] = static_cast<std::byte>(v >> (8 * i));
        }
    }
};

struct reader {
    const std::byte* in;
    std::size_t at = 0;
    std::uint64_t get(std::size_t bytes) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < bytes; ++i) {
            v |= std::to_integer<std::uint64_t>(in[at++]) << (8 * i);
        }
        return v;
    }
};

std::uint32_t fnv1a(const std::vector<std::uint64_t>& sizes) {
    std::uint32_t h = 2166136261U;
    for (std::uint64_t s : sizes) {
        for (int i = 0; i < 8; ++i) {
            h = (h ^ static_cast<std::uint8_t>(s >> (8 * i))) * 16777619U;
        }
    }
    return h;
}

}  // namespace

connect_request request_for(const options& o, remote_buffer client) {
    connect_request r;
    r.test = static_cast<std::uint8_t>(o.test);
    r.mode = static_cast<std::uint8_t>(o.mode);
    r.inline_size = static_cast<std::uint16_t>(o.inline_size);
    r.warmup = o.warmup;
    r.iterations = o.iterations;
    r.qps = o.qps;
    r.outstanding = o.outstanding;
    r.size_count = static_cast<std::uint32_t>(o.sizes.size());
    r.sizes_hash = fnv1a(o.sizes);
    r.largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    r.buffer = client;
    return r;
}

std::array<std::byte, k_request_bytes> encode(const connect_request& r) {
    writer<k_request_bytes> w;
    w.put(k_magic, 4);
    w.put(k_version, 1);
    w.put(r.test, 1);
    w.put(r.mode, 1);
    w.put(r.inline_size, 2);
    w.put(r.warmup, 4);
    w.put(r.iterations, 4);
    w.put(r.qps, 4);
    w.put(r.outstanding, 4);
    w.put(r.size_count, 4);
    w.put(r.sizes_hash, 4);
    w.put(r.largest, 8);
    w.put(r.buffer.address, 8);
    w.put(r.buffer.token, 4);
    return w.out;
}

std::array<std::byte, k_reply_bytes> encode(const remote_buffer& server) {
    writer<k_reply_bytes> w;
    w.put(k_magic, 4);
    w.put(k_version, 1);
    w.at += 3;
    w.put(server.address, 8);
    w.put(server.token, 4);
    return w.out;
}

std::optional<connect_request> decode_request(const std::byte* data, std::size_t length) {
    if (data == nullptr || length != k_request_bytes) {
        return std::nullopt;
    }
    reader r{data};
    if (r.get(4) != k_magic || r.get(1) != k_version) {
        return std::nullopt;
    }
    connect_request q;
    q.test = static_cast<std::uint8_t>(r.get(1));
    q.mode = static_cast<std::uint8_t>(r.get(1));
    q.inline_size = static_cast<std::uint16_t>(r.get(2));
    q.warmup = static_cast<std::uint32_t>(r.get(4));
    q.iterations = static_cast<std::uint32_t>(r.get(4));
    q.qps = static_cast<std::uint32_t>(r.get(4));
    q.outstanding = static_cast<std::uint32_t>(r.get(4));
    q.size_count = static_cast<std::uint32_t>(r.get(4));
    q.sizes_hash = static_cast<std::uint32_t>(r.get(4));
    q.largest = r.get(8);
    q.buffer.address = r.get(8);
    q.buffer.token = static_cast<std::uint32_t>(r.get(4));
    return q;
}

std::optional<remote_buffer> decode_reply(const std::byte* data, std::size_t length) {
    if (data == nullptr || length != k_reply_bytes) {
        return std::nullopt;
    }
    reader r{data};
    if (r.get(4) != k_magic || r.get(1) != k_version) {
        return std::nullopt;
    }
    r.at += 3;
    remote_buffer b;
    b.address = r.get(8);
    b.token = static_cast<std::uint32_t>(r.get(4));
    return b;
}

std::string mismatch(const connect_request& mine, const connect_request& theirs) {
    auto text = [](const char* flag, auto a, auto b) {
        return std::string(flag) + ": " + std::to_string(a) + " here, " + std::to_string(b) +
               " at the client";
    };
    if (mine.test != theirs.test) {
        return std::string("--test: ") + name_of(static_cast<test_kind>(mine.test)) + " here, " +
               name_of(static_cast<test_kind>(theirs.test)) + " at the client";
    }
    if (mine.mode != theirs.mode) {
        return std::string("--mode: ") + name_of(static_cast<run_mode>(mine.mode)) + " here, " +
               name_of(static_cast<run_mode>(theirs.mode)) + " at the client";
    }
    if (mine.inline_size != theirs.inline_size) {
        return text("-I", unsigned{mine.inline_size}, unsigned{theirs.inline_size});
    }
    if (mine.warmup != theirs.warmup) {
        return text("--warmup", mine.warmup, theirs.warmup);
    }
    if (mine.iterations != theirs.iterations) {
        return text("-n", mine.iterations, theirs.iterations);
    }
    if (mine.qps != theirs.qps) {
        return text("-q", mine.qps, theirs.qps);
    }
    if (mine.outstanding != theirs.outstanding) {
        return text("-t", mine.outstanding, theirs.outstanding);
    }
    if (mine.size_count != theirs.size_count || mine.sizes_hash != theirs.sizes_hash ||
        mine.largest != theirs.largest) {
        return text("--sizes (count)", mine.size_count, theirs.size_count) +
               " (or different sizes)";
    }
    return {};
}

}  // namespace ndksim::perf
