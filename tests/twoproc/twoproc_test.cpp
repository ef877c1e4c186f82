// SPDX-License-Identifier: MIT
// Two-process integration tests: the test is the connector, a forked child (UDP, TCP) or a
// thread (in-process wire: the same code without sockets) is the listener of the loopback
// protocol. Every data-path operation goes between the two, and every byte is checked on the
// side that receives it. Statuses are compared exactly (docs/completion-statuses.md).

#include <gtest/gtest.h>
#include <ndkpi.h>
#include <ndksim/ndksim.h>
#include <ndksim/testkit/status_assert.hpp>

#include <memory>
#include <string>

#include "loopback/client.hpp"
#include "loopback/service.hpp"
#include "peer_process.hpp"

namespace ndksim::twoproc {
namespace {

using loopback::check_pattern;
using loopback::fill_pattern;

constexpr std::uint64_t k_mib = 1024 * 1024;

std::string wire_name(const testing::TestParamInfo<ndksim_wire>& info) {
    switch (info.param) {
        case NDKSIM_WIRE_UDP:
            return "Udp";
        case NDKSIM_WIRE_TCP:
            return "Tcp";
        default:
            return "InProc";
    }
}

class TwoProcess : public testing::TestWithParam<ndksim_wire> {
  protected:
    // Starts the peer, connects and reads its hello.
    void connect(std::uint64_t data_size = 2 * k_mib,
                 ULONG ack_timeout_us = peer_process::k_patient_ack_timeout_us,
                 ULONG retry_limit = 0) {
        peer_ = std::make_unique<peer_process>(GetParam(), data_size);
        loopback::endpoint_options o;
        o.name = "test";
        o.address = peer_process::k_local;
        o.wire = GetParam();
        o.data_size = data_size;
        o.ack_timeout_us = ack_timeout_us;
        o.retry_limit = retry_limit;
        o.timeout = peer_process::k_patient_wait;
        ASSERT_EQ("", peer_->start(o, &ep_));
        client_ = std::make_unique<loopback::client>(*ep_);
        std::string reply;
        ASSERT_NT_SUCCESS(client_->connect(peer_process::k_peer, 445, "test connects", &reply))
            << client_->error();
        EXPECT_EQ("listener 127.0.0.2 accepts", reply);
        EXPECT_EQ(data_size, client_->peer().length);
    }

    // Says bye, disconnects, closes, and checks that the peer passed its own checks.
    void finish(bool say_bye = true) {
        if (say_bye) {
            EXPECT_TRUE(client_->bye()) << client_->error();
        }
        EXPECT_NT_SUCCESS(ep_->disconnect()) << ep_->error();
        EXPECT_EQ(0u, ep_->close());
        EXPECT_TRUE(peer_->join(std::chrono::milliseconds(20000)))
            << "the peer reported a failed check (see its [peer] lines)";
    }

    std::uint32_t window() const { return client_->peer().mw_token; }

    std::unique_ptr<peer_process> peer_;
    std::unique_ptr<loopback::endpoint> ep_;
    std::unique_ptr<loopback::client> client_;
};

TEST_P(TwoProcess, RdmaWriteIsPlacedInThePeersWindow) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    fill_pattern(ep_->data(), 64 * 1024, 11);
    ASSERT_NT_SUCCESS(client_->write(0, 64 * 1024, 4096, window()));
    EXPECT_EQ(0u, client_->remote_verify(4096, 64 * 1024, 11));
    finish();
}

TEST_P(TwoProcess, RdmaReadReturnsThePeersBytes) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    ASSERT_TRUE(client_->remote_fill(0, 64 * 1024, 12)) << client_->error();
    ASSERT_NT_SUCCESS(client_->read(0, 64 * 1024, 0, window()));
    EXPECT_EQ(0u, check_pattern(ep_->data(), 64 * 1024, 12));
    finish();
}

TEST_P(TwoProcess, SendOfManyMtusLandsInOnePostedReceive) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    const ULONG length = loopback::k_slot_size - sizeof(loopback::message);  // 16 MTUs
    fill_pattern(ep_->data(), length, 13);
    auto reply = client_->send_payload(0, length, 13);
    ASSERT_TRUE(reply.has_value()) << client_->error();
    EXPECT_EQ(0u, reply->result);
    EXPECT_EQ(length, reply->length);
    finish();
}

TEST_P(TwoProcess, InlineWriteAndInlineSendCarryTheirBytes) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    fill_pattern(ep_->data(), 64, 14);
    ASSERT_NT_SUCCESS(client_->write(0, 64, 128, window(), NDK_OP_FLAG_INLINE));
    // The inline buffer is copied at post time (REFERENCE.md: INLINE), so overwriting the
    // source right after the post must not change what arrives.
    std::memset(ep_->data(), 0, 64);
    EXPECT_EQ(0u, client_->remote_verify(128, 64, 14));
    loopback::message m;
    m.kind = loopback::msg_kind::fill, m.offset = 0, m.length = 64, m.seed = 15;
    ASSERT_NT_SUCCESS(ep_->send_message(m, {}, NDK_OP_FLAG_INLINE));
    auto sent = ep_->next_of(NdkOperationTypeSend);
    ASSERT_TRUE(sent.has_value());
    EXPECT_NT_SUCCESS(sent->Status);
    auto got = ep_->next_of(NdkOperationTypeReceive);
    ASSERT_TRUE(got.has_value());
    ASSERT_NE(nullptr, ep_->received(*got));
    EXPECT_EQ(0u, ep_->received(*got)->result);
    ep_->repost(*got);
    finish();
}

TEST_P(TwoProcess, OneMebibyteWriteAndReadRoundTrip) {
    connect(2 * k_mib);
    if (HasFatalFailure()) {
        return;
    }
    fill_pattern(ep_->data(), k_mib, 16);
    ASSERT_NT_SUCCESS(client_->write(0, k_mib, k_mib, window()));
    EXPECT_EQ(0u, client_->remote_verify(k_mib, k_mib, 16));
    ASSERT_TRUE(client_->remote_fill(0, k_mib, 17));
    ASSERT_NT_SUCCESS(client_->read(k_mib, k_mib, 0, window()));
    EXPECT_EQ(0u, check_pattern(ep_->data() + k_mib, k_mib, 17));
    finish();
}

TEST_P(TwoProcess, RegionTokenReachesTheWholeRegion) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    fill_pattern(ep_->data(), 8192, 18);
    ASSERT_NT_SUCCESS(client_->write(0, 8192, 0, client_->peer().mr_token));
    EXPECT_EQ(0u, client_->remote_verify(0, 8192, 18));
    finish();
}

TEST_P(TwoProcess, WindowReboundAfterSendAndInvalidateTakesANewToken) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    const std::uint32_t old_token = window();
    ASSERT_TRUE(client_->send_and_invalidate(19)) << client_->error();
    ASSERT_TRUE(client_->rebind()) << client_->error();
    EXPECT_NE(old_token, window());
    fill_pattern(ep_->data(), 4096, 20);
    ASSERT_NT_SUCCESS(client_->write(0, 4096, 0, window()));
    EXPECT_EQ(0u, client_->remote_verify(0, 4096, 20));
    finish();
}

// The connector invalidates the listener's window with SendAndInvalidate; the next write with
// the old token is refused by the listener's memory unit (NAK remote access error), the exact
// completion status is STATUS_ACCESS_VIOLATION, and the listener's bytes stay as they were
// (the peer checks them after the disconnect and exits non-zero otherwise).
TEST_P(TwoProcess, WriteWithAnInvalidatedWindowTokenIsRefused) {
    connect();
    if (HasFatalFailure()) {
        return;
    }
    ASSERT_TRUE(client_->send_and_invalidate(21)) << client_->error();
    fill_pattern(ep_->data(), 4096, 22);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, client_->write(0, 4096, 0, window()));
    // Both QPs are now in error (docs/completion-statuses.md): posts fail inline.
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, ep_->post_write(0, 64, 0, window()));
    finish(/*say_bye=*/false);
}

// Fault tests: a short ACK timeout and retry limit, so a silent peer is detected quickly.
class TwoProcessFaults : public TwoProcess {
  protected:
    // 100 ms doubling over 3 retries: a silent peer is declared gone 1.5 s after the last
    // progress. The same timer runs from the handshake on, through the hello and the first
    // write, and a peer process starved for a few hundred milliseconds on a loaded host must
    // not be taken for a dead one.
    void connect_fast_timeout() { connect(2 * k_mib, 100'000, 3); }

    // Posts `n` writes nobody will answer: the first fails with STATUS_IO_TIMEOUT after the
    // retry limit, the others are flushed with STATUS_CANCELLED, and the disconnect event fires
    // (docs/engine.md, retry limit).
    void expect_timeout_then_cancelled(unsigned n) {
        for (unsigned i = 0; i < n; ++i) {
            ASSERT_NT_SUCCESS(ep_->post_write(0, 64 * 1024, client_->peer().address, window()));
        }
        for (unsigned i = 0; i < n; ++i) {
            auto r = ep_->next_of(NdkOperationTypeWrite);
            ASSERT_TRUE(r.has_value()) << "write " << i << " never completed";
            EXPECT_NT_STATUS(i == 0 ? STATUS_IO_TIMEOUT : STATUS_CANCELLED, r->Status)
                << "write " << i;
        }
        EXPECT_TRUE(ep_->wait_peer_disconnect()) << "no disconnect event";
        ep_->disconnect();
        EXPECT_EQ(0u, ep_->close());
    }
};

// Only a forked peer can be killed, so this suite runs on the socket wires alone.
class TwoProcessKill : public TwoProcessFaults {};

TEST_P(TwoProcessKill, PeerKilledMidTransferTimesOutAndDisconnects) {
    connect_fast_timeout();
    if (HasFatalFailure()) {
        return;
    }
    fill_pattern(ep_->data(), 64 * 1024, 23);
    ASSERT_NT_SUCCESS(client_->write(0, 64 * 1024, 0, window()));
    peer_->kill_now();
    expect_timeout_then_cancelled(8);
}

TEST_P(TwoProcessFaults, CutLinkTimesOutAndDisconnects) {
    connect_fast_timeout();
    if (HasFatalFailure()) {
        return;
    }
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(ep_->nic(), TRUE));
    expect_timeout_then_cancelled(8);
    // The peer never hears from us again; it is not judged here.
    peer_->kill_now();
}

INSTANTIATE_TEST_SUITE_P(Wires, TwoProcess,
                         testing::Values(NDKSIM_WIRE_INPROC, NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);
INSTANTIATE_TEST_SUITE_P(Wires, TwoProcessFaults,
                         testing::Values(NDKSIM_WIRE_INPROC, NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);
INSTANTIATE_TEST_SUITE_P(Wires, TwoProcessKill, testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);

}  // namespace
}  // namespace ndksim::twoproc
