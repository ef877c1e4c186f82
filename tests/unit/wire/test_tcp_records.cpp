// SPDX-License-Identifier: MIT
// The TCP wire's record stream without a socket: the writer gathers a batch of frames behind
// their length prefixes and resumes after a partial write from the exact byte the kernel
// stopped at, gathering a lent frame's payload from the sender's memory (or from the frame's
// copy once it was materialized); the reader splits records out of reads cut anywhere, keeps a
// partial record for the next read, and stops at a length prefix out of bounds.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "wire/lent_frames.hpp"
#include "wire/socket_common.hpp"
#include "wire/tcp_record_reader.hpp"
#include "wire/tcp_record_writer.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

// Queues `lengths.size()` frames, frame i filled with the byte i + 1.
void queue_frames(frame_pool& pool, frame_queue& q, const std::vector<std::uint32_t>& lengths) {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        frame* f = pool.take();
        f->length = lengths[i];
        std::memset(f->data, static_cast<int>(i + 1), lengths[i]);
        q.push(f);
    }
}

// One write of at most `budget` bytes of what the writer has pending, into `stream`, as a
// kernel with a small send buffer would take it.
void write_some(tcp_record_writer& w, std::vector<std::byte>& stream, std::size_t budget) {
    std::size_t took = 0;
    const iovec* pending = w.pending();
    for (std::size_t i = 0; i < w.pending_count() && budget > 0; ++i) {
        const std::size_t n = std::min(budget, pending[i].iov_len);
        const auto* p = static_cast<const std::byte*>(pending[i].iov_base);
        stream.insert(stream.end(), p, p + n);
        budget -= n;
        took += n;
    }
    w.wrote(took);
}

// Writes what the writer has pending into `stream`, at most `chunk` bytes per write.
void drain(tcp_record_writer& w, std::vector<std::byte>& stream, std::size_t chunk) {
    while (!w.empty()) {
        write_some(w, stream, chunk);
    }
}

TEST(TcpRecords, AWriterResumesAtTheByteTheKernelStoppedAtAndAReaderSplitsAnyCut) {
    const std::vector<std::uint32_t> lengths = {min_socket_body, 4150, 100, max_socket_body, 64};
    for (const std::size_t chunk : {1UL, 3UL, 1000UL, 5000UL, 1UL << 20}) {
        auto pool = frame_pool::create(8);
        frame_queue q;
        queue_frames(*pool, q, lengths);
        tcp_record_writer w;
        w.fill(q);
        EXPECT_EQ(lengths.size(), w.frames());
        std::vector<std::byte> stream;
        drain(w, stream, chunk);
        EXPECT_EQ(0U, w.frames()) << "written frames go back to their pool";
        EXPECT_EQ(0U, pool->outstanding());

        // Read back in pieces of `chunk` bytes.
        tcp_record_reader r;
        std::vector<std::vector<std::byte>> records;
        for (std::size_t at = 0; at < stream.size();) {
            const std::size_t n = std::min({chunk, stream.size() - at, r.space().size()});
            std::memcpy(r.space().data(), stream.data() + at, n);
            r.filled(n);
            at += n;
            std::size_t length = 0;
            ASSERT_EQ(tcp_record_reader::outcome::more,
                      r.split(
                          [&](const std::byte* body, std::size_t size) {
                              records.emplace_back(body, body + size);
                              return true;
                          },
                          length));
        }
        EXPECT_EQ(0U, r.held()) << "chunk " << chunk;
        ASSERT_EQ(lengths.size(), records.size()) << "chunk " << chunk;
        for (std::size_t i = 0; i < lengths.size(); ++i) {
            EXPECT_EQ(lengths[i], records[i].size());
            EXPECT_EQ(std::vector<std::byte>(lengths[i], std::byte(i + 1)), records[i]);
        }
    }
}

TEST(TcpRecords, AReaderStopsAtALengthOutOfBoundsAndWhenItsHandlerSaysSo) {
    tcp_record_reader r;
    std::vector<std::byte> bytes(4 + min_socket_body + 4, std::byte{0});
    store_be<tcp_prefix_size>(bytes.data(), min_socket_body);
    store_be<tcp_prefix_size>(bytes.data() + 4 + min_socket_body, min_socket_body - 1);
    std::memcpy(r.space().data(), bytes.data(), bytes.size());
    r.filled(bytes.size());
    std::size_t seen = 0;
    std::size_t length = 0;
    EXPECT_EQ(tcp_record_reader::outcome::bad_length, r.split(
                                                          [&](const std::byte*, std::size_t) {
                                                              ++seen;
                                                              return true;
                                                          },
                                                          length));
    EXPECT_EQ(1U, seen) << "the record before the bad prefix was handed on";
    EXPECT_EQ(min_socket_body - 1, length);

    tcp_record_reader stop;
    std::memcpy(stop.space().data(), bytes.data(), 4 + min_socket_body);
    stop.filled(4 + min_socket_body);
    EXPECT_EQ(tcp_record_reader::outcome::stopped,
              stop.split([](const std::byte*, std::size_t) { return false; }, length));
}

TEST(TcpRecords, AWriterGathersUpToItsLimitAndCountsFramesNotWhollyWrittenWhenDropped) {
    auto pool = frame_pool::create(64);
    frame_queue q;
    queue_frames(*pool, q, std::vector<std::uint32_t>(tcp_record_writer::k_frames + 3, 100));
    tcp_record_writer w;
    w.fill(q);
    EXPECT_EQ(tcp_record_writer::k_frames, w.frames());
    EXPECT_EQ(2 * tcp_record_writer::k_frames, w.pending_count());
    // Two records and half of the third's body reach the kernel; the connection then breaks.
    w.wrote(2 * (4 + 100) + 4 + 50);
    std::atomic<std::uint64_t> lost{0};
    w.drop(lost);
    EXPECT_EQ(tcp_record_writer::k_frames - 2, lost.load());
    EXPECT_TRUE(w.empty());
    EXPECT_EQ(3U, pool->outstanding()) << "only the three still queued are out";
    q.drop_all(lost);
}

// A writer's batch of `count` lent frames of `size`-byte payloads taken from `memory` (frame
// i's payload is memory[i * size, (i + 1) * size)), each behind a 40-byte head of the byte
// 0x11 and before a 12-byte tail of 0x22.
struct lent_batch {
    lent_batch(std::vector<std::byte>& memory, std::size_t count, std::uint32_t size) {
        for (std::size_t i = 0; i < count; ++i) {
            frame* f = pool->take();
            f->length = 40 + size + 12;
            std::memset(f->data, 0x11, 40);
            std::memset(f->data + 40, 0, size);
            std::memset(f->data + 40 + size, 0x22, 12);
            lent.lend(*f, memory.data() + i * size, 40, size, static_cast<std::uint32_t>(i));
            queue.push(f);
        }
        writer.fill(queue);
    }

    std::shared_ptr<frame_pool> pool = frame_pool::create(8);
    frame_queue queue;
    lent_frames lent;
    tcp_record_writer writer;
};

// The stream of records the frames of a lent_batch make, from `memory` as it is.
std::vector<std::byte> lent_stream(const std::vector<std::byte>& memory, std::size_t count,
                                   std::uint32_t size) {
    std::vector<std::byte> out;
    for (std::size_t i = 0; i < count; ++i) {
        std::array<std::byte, tcp_prefix_size> prefix{};
        store_be<tcp_prefix_size>(prefix.data(), 40 + size + 12);
        out.insert(out.end(), prefix.begin(), prefix.end());
        out.insert(out.end(), 40, std::byte{0x11});
        const auto* p = memory.data() + i * size;
        out.insert(out.end(), p, p + size);
        out.insert(out.end(), 12, std::byte{0x22});
    }
    return out;
}

TEST(TcpRecords, ALentFramesPayloadIsGatheredFromTheSendersMemory) {
    constexpr std::uint32_t k_size = 1024;
    constexpr std::size_t k_count = 5;
    std::vector<std::byte> memory = test::pattern(k_count * k_size);
    for (const std::size_t chunk : {1UL, 700UL, 5000UL, 1UL << 20}) {
        lent_batch b(memory, k_count, k_size);
        EXPECT_EQ(4 * k_count, b.writer.pending_count()) << "prefix, head, payload, tail";
        EXPECT_EQ(static_cast<const void*>(memory.data()), b.writer.pending()[2].iov_base);
        std::vector<std::byte> stream;
        drain(b.writer, stream, chunk);
        EXPECT_EQ(lent_stream(memory, k_count, k_size), stream) << "chunk " << chunk;
        EXPECT_TRUE(b.lent.empty()) << "written frames went back to their pool";
        EXPECT_EQ(0U, b.pool->outstanding());
    }
}

TEST(TcpRecords, AFrameMaterializedBetweenTwoWritesSendsTheRestFromItsCopy) {
    // A flush completes the request while its frames wait in a half-written batch: the memory
    // is the consumer's again, and what is left of each payload comes from the frame.
    constexpr std::uint32_t k_size = 1024;
    constexpr std::size_t k_count = 3;
    std::vector<std::byte> memory = test::pattern(k_count * k_size);
    const std::vector<std::byte> expected = lent_stream(memory, k_count, k_size);
    lent_batch b(memory, k_count, k_size);
    // The first record and half of the second one's payload reach the kernel.
    std::vector<std::byte> stream;
    write_some(b.writer, stream, 4 + 40 + k_size + 12 + 4 + 40 + k_size / 2);
    EXPECT_EQ(b.lent.materialize_all(), 3U);
    std::fill(memory.begin(), memory.end(), std::byte{0});  // the consumer reuses it
    drain(b.writer, stream, 100);
    EXPECT_EQ(expected, stream);
    EXPECT_EQ(0U, b.pool->outstanding());
}

TEST(TcpRecords, ADroppedBatchCountsTheLentFramesNotWhollyWritten) {
    std::vector<std::byte> memory = test::pattern(4 * 1024);
    lent_batch b(memory, 4, 1024);
    b.writer.wrote(4 + 40 + 1024 + 12 + 4 + 40 + 10);  // one record and part of the second
    std::atomic<std::uint64_t> lost{0};
    b.writer.drop(lost);
    EXPECT_EQ(3U, lost.load());
    EXPECT_TRUE(b.lent.empty());
    EXPECT_EQ(0U, b.pool->outstanding());
}

}  // namespace
}  // namespace ndksim::wire
