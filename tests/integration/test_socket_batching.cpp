// SPDX-License-Identifier: MIT
// The socket wires move a message's frames in batches: sixteen outstanding writes arrive
// intact with fewer system calls than frames each way, over UDP with the kernel's offloads
// (UDP_SEGMENT, UDP_GRO), over UDP without them (NDKSIM_UDP_OFFLOAD=off: one datagram per
// message of a sendmmsg/recvmmsg, as on a kernel that lacks them) and over TCP (gathered
// writes, 64 KiB reads). A UDP receive buffer far too small for the burst
// (NDKSIM_UDP_BUFFER) loses datagrams in the kernel, and the reliable connection sends them
// again until every write completed with its bytes in place.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "api/adapter_state.hpp"
#include "integration/engine_hold.hpp"
#include "integration/socket_pair.hpp"
#include "nic/engine.hpp"
#include "wire/socket_transport.hpp"
#include "wire/udp_transport.hpp"

namespace ndksim::integration {
namespace {

constexpr ULONG k_write = 256 * 1024;   // 64 frames of 4 KiB
constexpr unsigned k_outstanding = 16;  // 4 MiB: the pair's whole buffer

/// A socket pair whose adapters are created with `env` set to `value` (read when the UDP
/// transport is built), restored afterwards.
class EnvSocketPair : public SocketPair {
  protected:
    EnvSocketPair(const char* env, const char* value) : env_(env), value_(value) {}

    void SetUp() override {
        const char* old = std::getenv(env_);
        had_ = old != nullptr;
        old_ = had_ ? old : "";
        ::setenv(env_, value_, 1);
        SocketPair::SetUp();
        restore();
    }

    void TearDown() override {
        restore();
        SocketPair::TearDown();
    }

    const wire::socket_counters& socket_stats(pair_side& s) {
        return dynamic_cast<wire::socket_transport&>(*s.nic->link.base).socket_stats();
    }

    const wire::udp_transport* udp(pair_side& s) {
        return dynamic_cast<const wire::udp_transport*>(s.nic->link.base);
    }

    /// Posts k_outstanding writes of k_write bytes, each from and to its own slice of the
    /// buffers, runs `after_posting`, waits for every completion, and checks their status and
    /// the bytes at b.
    void write_burst(const std::function<void()>& after_posting = {}) {
        const std::size_t first = result_count(a_) + 1;
        for (unsigned i = 0; i < k_outstanding; ++i) {
            fill(a_.buf.bytes + i * k_write, k_write, 40 + i);
        }
        for (unsigned i = 0; i < k_outstanding; ++i) {
            NDK_SGE s = a_.buf.sge(i * k_write, k_write);
            ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(
                a_.qp, nullptr, &s, 1, b_.buf.address() + i * k_write, b_.buf.remote_token, 0));
        }
        if (after_posting) {
            after_posting();
        }
        const std::vector<NDK_RESULT_EX> got =
            results(a_, first + k_outstanding - 1, "the burst's completions");
        ASSERT_GE(got.size(), first + k_outstanding - 1);
        for (unsigned i = 0; i < k_outstanding; ++i) {
            EXPECT_NT_SUCCESS(got[first - 1 + i].Status) << "write " << i;
        }
        settle_b();
        EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_outstanding * k_write));
    }

    /// What a's sending and b's receiving took for one write_burst().
    struct burst_traffic {
        std::uint64_t frames_sent = 0;      ///< by a
        std::uint64_t send_calls = 0;       ///< by a
        std::uint64_t frames_received = 0;  ///< by b
        std::uint64_t receive_calls = 0;    ///< by b
    };

    /// Runs write_burst() and returns the frames and system calls it took.
    burst_traffic measured_burst() {
        auto now = [&] {
            return burst_traffic{a_.nic->link.base->counters().frames_sent.load(),
                                 socket_stats(a_).send_calls.load(),
                                 b_.nic->link.base->counters().frames_received.load(),
                                 socket_stats(b_).receive_calls.load()};
        };
        const burst_traffic before = now();
        write_burst();
        const burst_traffic after = now();
        return {after.frames_sent - before.frames_sent, after.send_calls - before.send_calls,
                after.frames_received - before.frames_received,
                after.receive_calls - before.receive_calls};
    }

    /// Returns once b's engine has run every task due so far, so its placement is ordered
    /// before the test reads b's buffer.
    void settle_b() {
        auto ran = std::make_shared<bool>(false);
        board* bd = &board_;
        b_.nic->dev.sched().post([ran, bd] {
            std::lock_guard lock(bd->m);
            *ran = true;
            bd->cv.notify_all();
        });
        board_.wait([&] { return *ran; }, "a task on b's engine");
    }

  private:
    void restore() {
        if (had_) {
            ::setenv(env_, old_.c_str(), 1);
        } else {
            ::unsetenv(env_);
        }
    }

    const char* env_;
    const char* value_;
    bool had_ = false;
    std::string old_;
};

/// The wire as the library builds it (NDKSIM_UDP_OFFLOAD=on, the default, for both wires).
class BatchedWire : public EnvSocketPair {
  protected:
    BatchedWire() : EnvSocketPair("NDKSIM_UDP_OFFLOAD", "on") {}
};

TEST_P(BatchedWire, SixteenOutstandingWritesArriveIntactInFewerSystemCallsThanFrames) {
    if (GetParam() == NDKSIM_WIRE_UDP) {
        // This kernel has both offloads (Linux 5.0 on); the library found and used them.
        EXPECT_TRUE(udp(a_)->in_use().segmentation);
        EXPECT_TRUE(udp(b_)->in_use().receive_offload);
    }
    const auto [frames, calls, received, reads] = measured_burst();
    EXPECT_GE(frames, k_outstanding * k_write / 4096);
    // A message's 64 frames leave together: even if every write went out on its own, the
    // sender made no more calls than writes (plus a few for the ACKs' turns).
    EXPECT_LE(calls * 8, frames) << calls << " send calls for " << frames << " frames";
    EXPECT_LE(reads * 4, received) << reads << " receive calls for " << received << " frames";
    EXPECT_EQ(0U, socket_stats(b_).bad_frames.load());
}

INSTANTIATE_TEST_SUITE_P(Wires, BatchedWire, ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);

/// The UDP wire with the offloads off, as on a kernel without them.
class UdpWithoutOffload : public EnvSocketPair {
  protected:
    UdpWithoutOffload() : EnvSocketPair("NDKSIM_UDP_OFFLOAD", "off") {}
};

TEST_P(UdpWithoutOffload, BatchesByMessagesAndStillDeliversEveryWriteIntact) {
    EXPECT_FALSE(udp(a_)->in_use().segmentation);
    EXPECT_FALSE(udp(a_)->in_use().receive_offload);
    EXPECT_FALSE(udp(b_)->in_use().segmentation);
    EXPECT_FALSE(udp(b_)->in_use().receive_offload);
    const auto [frames, calls, received, reads] = measured_burst();
    // One datagram per message, up to 64 messages per sendmmsg: a 64-frame write is one call.
    EXPECT_LE(calls * 8, frames) << calls << " send calls for " << frames << " frames";
    // The receiver reads up to 64 datagrams per recvmmsg, but takes what is there: with a
    // busy engine thread a burst waits and is read in full batches, with an idle one the
    // datagrams may be read as they come. Every frame was read by some call.
    EXPECT_LE(reads, received);
    EXPECT_GT(reads, 0U);
}

INSTANTIATE_TEST_SUITE_P(Wires, UdpWithoutOffload, ::testing::Values(NDKSIM_WIRE_UDP), wire_name);

/// The UDP wire with socket buffers of 64 KiB: a 4 MiB burst cannot fit.
class UdpSmallBuffer : public EnvSocketPair {
  protected:
    UdpSmallBuffer() : EnvSocketPair("NDKSIM_UDP_BUFFER", "65536") {}
};

TEST_P(UdpSmallBuffer, DatagramsTheKernelDroppedAreSentAgainUntilEveryWriteCompletes) {
    const std::uint64_t resent_before = a_.nic->engine->counters().retransmitted_packets.load();
    // 4 MiB of frames against a receive buffer of 64 KiB (the kernel grants twice that for its
    // bookkeeping). b's engine, which reads b's socket, is held until a's transport timer has
    // sent the oldest request again: by then a has long handed the kernel every frame of the
    // burst, so the buffer overflowed whatever the host's speed. Without the hold a receiver
    // that kept pace with a slow sender lost nothing, and the test failed about once in fifty.
    engine_hold hold(b_.nic->dev.sched());  // b's engine also reads its socket
    write_burst([&] {
        const auto deadline = std::chrono::steady_clock::now() + board::k_timeout;
        while (a_.nic->engine->counters().retransmitted_packets.load() == resent_before) {
            if (std::chrono::steady_clock::now() > deadline) {
                ADD_FAILURE() << "a's transport timer never resent while b was held";
                break;
            }
            std::this_thread::yield();
        }
        hold.release();
    });
    // The kernel dropped frames, and every write still completed with its bytes in place
    // (write_burst): the connection sent the lost frames again.
    EXPECT_GT(socket_stats(b_).receive_overruns.load(), 0U);
}

INSTANTIATE_TEST_SUITE_P(Wires, UdpSmallBuffer, ::testing::Values(NDKSIM_WIRE_UDP), wire_name);

}  // namespace
}  // namespace ndksim::integration
