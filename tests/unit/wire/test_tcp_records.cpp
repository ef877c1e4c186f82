// SPDX-License-Identifier: MIT
// The TCP wire's record stream without a socket: the writer gathers a batch of frames behind
// their length prefixes and resumes after a partial write from the exact byte the kernel
// stopped at; the reader splits records out of reads cut anywhere, keeps a partial record for
// the next read, and stops at a length prefix out of bounds.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "wire/socket_common.hpp"
#include "wire/tcp_record_reader.hpp"
#include "wire/tcp_record_writer.hpp"

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

// Writes what the writer has pending into `stream`, at most `chunk` bytes per call, as a
// kernel with a small send buffer would take it.
void drain(tcp_record_writer& w, std::vector<std::byte>& stream, std::size_t chunk) {
    while (!w.empty()) {
        std::size_t budget = chunk;
        std::size_t took = 0;
        for (std::size_t i = 0; i < w.pending_count() && budget > 0; ++i) {
            const iovec& v = w.pending()[i];
            const std::size_t n = std::min(budget, v.iov_len);
            const auto* p = static_cast<const std::byte*>(v.iov_base);
            stream.insert(stream.end(), p, p + n);
            budget -= n;
            took += n;
        }
        w.wrote(took);
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

}  // namespace
}  // namespace ndksim::wire
