// SPDX-License-Identifier: MIT
// The host window of a threaded in-process pair (docs/engine.md, "Host window"). Each adapter's
// engine runs on its own thread; a receiving engine slower than its sender (the host, not the
// model) kept a deep queue of large writes in its inbox past the ACK timeout, and go-back-N
// resent everything behind. So a threaded in-process QP keeps at most
// nic::k_inproc_host_window_packets request packets unacknowledged, as the socket wires keep
// theirs, while deterministic and synchronized time, whose figures are the model's alone, have
// no window. Threaded, so the TSan build runs it too.
//
// Whether a run of this test resends anything depends on the host's load, so it asserts the
// window and the bytes, not the absence of retransmissions; ndksim-perf shows the speed
// (docs/performance.md, "Threaded in process").

#include <cstdint>
#include <cstring>

#include "api/adapter_state.hpp"
#include "nic/engine.hpp"
#include "threaded_pair/adapter_pair.hpp"
#include "threaded_pair/pattern.hpp"

namespace ndksim::integration {
namespace {

using threaded::board;
using threaded::fill;

constexpr ULONG k_length = 1024 * 1024;

class InprocThreadedWindow : public ::testing::Test, protected threaded::adapter_pair {
  protected:
    InprocThreadedWindow()
        : adapter_pair({"10.0.7.1", "10.0.7.2", k_length, 64, "hello from a", "hello from b"}) {}

    void SetUp() override {
        make_inproc_adapter(a_.nic, shape().a_address, NDKSIM_POLL_BLOCK,
                            board::k_patient_ack_timeout_us);
        make_inproc_adapter(b_.nic, shape().b_address, NDKSIM_POLL_BLOCK,
                            board::k_patient_ack_timeout_us);
        ASSERT_FALSE(HasFatalFailure());
        open_and_connect();
    }

    void TearDown() override { close_all(); }
};

// Twelve writes of 1 MiB outstanding are 3,072 packets, more than the window: the requester
// stops at its end and goes on as ACKs come, and every byte arrives.
TEST_F(InprocThreadedWindow, ADeepQueueOfLargeWritesPassesThroughTheHostWindow) {
    EXPECT_EQ(nic::k_inproc_host_window_packets, a_.nic->engine->config().host_window_packets);
    EXPECT_EQ(nic::k_inproc_host_window_packets, b_.nic->engine->config().host_window_packets);
    constexpr std::size_t k_writes = 12;
    static_assert(k_writes * (k_length / 4096) > nic::k_inproc_host_window_packets);
    fill(a_.buf.bytes, k_length, 31);
    ASSERT_NO_FATAL_FAILURE(write_queue_a_to_b(k_writes, k_length));
    // b's engine placed the last write before its ACK left; the completion came through a's
    // engine, which the results' lock orders after it.
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_length));
}

// The window of an adapter created with `c` (destroyed again).
std::uint32_t window_of(const ndksim_adapter_config& c) {
    ndksim_adapter* nic = nullptr;
    if (ndksim_adapter_create(&c, &nic) != STATUS_SUCCESS) {
        ADD_FAILURE() << "creating the adapter at " << c.address;
        return UINT32_MAX;
    }
    const std::uint32_t window = nic->engine->config().host_window_packets;
    ndksim_adapter_destroy(nic);
    return window;
}

// Time modes whose figures are the model's own keep no window.
TEST(InprocWindow, NeitherDeterministicNorSynchronizedTimeHasOne) {
    ndksim_loop* loop = nullptr;
    ASSERT_NT_SUCCESS(ndksim_loop_create(&loop));
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "10.0.7.3";
    c.loop = loop;
    EXPECT_EQ(0U, window_of(c));
    ndksim_loop_destroy(loop);

    ndksim_adapter_config_init(&c);
    c.address = "10.0.7.4";
    c.time_mode = NDKSIM_TIME_SYNCHRONIZED;
    EXPECT_EQ(0U, window_of(c));
}

}  // namespace
}  // namespace ndksim::integration
