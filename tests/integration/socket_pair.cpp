// SPDX-License-Identifier: MIT
#include "integration/socket_pair.hpp"

#include <unistd.h>

namespace ndksim::integration {

using testkit::status_string;

std::string wire_name(const ::testing::TestParamInfo<ndksim_wire>& info) {
    return info.param == NDKSIM_WIRE_UDP ? "Udp" : "Tcp";
}

SocketPair::SocketPair()
    : adapter_pair({"127.0.0.1", "127.0.0.2", 4 * 1024 * 1024, 256, "hello from a over a socket",
                    "and hello from b"}) {}

void SocketPair::SetUp() {
    ASSERT_TRUE(create_adapters());
    open_and_connect();
}

bool SocketPair::create_adapters() {
    constexpr int k_attempts = 200;
    // A per-process start spreads parallel test processes over the range.
    USHORT port = static_cast<USHORT>(20000 + (static_cast<unsigned>(getpid()) * 7) % 30000);
    for (int attempt = 0; attempt < k_attempts; ++attempt, ++port) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.wire = GetParam();
        c.port = port;
        c.cm_timeout_ms = board::k_cm_timeout_ms;
        c.ack_timeout_us = board::k_patient_ack_timeout_us;
        c.address = shape().a_address;
        c.name = "a";
        NTSTATUS s = ndksim_adapter_create(&c, &a_.nic);
        if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
            continue;
        }
        if (s != STATUS_SUCCESS) {
            ADD_FAILURE() << "creating a: " << status_string(s);
            return false;
        }
        c.address = shape().b_address;
        c.name = "b";
        s = ndksim_adapter_create(&c, &b_.nic);
        if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
            ndksim_adapter_destroy(a_.nic);
            a_.nic = nullptr;
            continue;
        }
        if (s != STATUS_SUCCESS) {
            ADD_FAILURE() << "creating b: " << status_string(s);
            return false;
        }
        port_ = port;
        return true;
    }
    ADD_FAILURE() << "no free port in " << k_attempts << " attempts";
    return false;
}

void SocketPair::TearDown() {
    close_all();
}

NTSTATUS SocketPair::write_from_a(std::size_t src, ULONG length, UINT64 address, UINT32 token,
                                  ULONG flags) {
    const std::size_t n = result_count(a_) + 1;
    NDK_SGE s = a_.buf.sge(src, length);
    const NTSTATUS posted = a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, address, token, flags);
    if (posted != STATUS_SUCCESS) {
        return posted;
    }
    const NDK_RESULT_EX r = result(a_, n, "a write's completion");
    EXPECT_EQ(NdkOperationTypeWrite, r.Type);
    return r.Status;
}

UINT32 SocketPair::bind_window_on_b(std::size_t offset, SIZE_T length, NDK_MW*& mw) {
    NDK_PD* pd = b_.pd;
    mw = create<NDK_MW>("NdkCreateMw", [&](auto done, auto ctx, NDK_MW** out) {
        return pd->Dispatch->NdkCreateMw(pd, done, ctx, out);
    });
    if (mw == nullptr) {
        return 0;
    }
    b_.windows.push_back(mw);
    const std::size_t n = result_count(b_) + 1;
    EXPECT_NT_SUCCESS(
        b_.qp->Dispatch->NdkBind(b_.qp, mw, b_.buf.mr, mw, b_.buf.bytes + offset, length,
                                 NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    const UINT32 token = mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
    const NDK_RESULT_EX r = result(b_, n, "the bind's completion");
    EXPECT_NT_SUCCESS(r.Status);
    EXPECT_EQ(NdkOperationTypeBind, r.Type);
    return token;
}

}  // namespace ndksim::integration
