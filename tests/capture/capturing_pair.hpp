// SPDX-License-Identifier: MIT
#pragma once
// RcPair whose two adapters record to one pcap file: the capture test and the hostile-frame
// tests read back what went over the link (e.g. which NAK a responder sent).

#include <cstdio>
#include <string>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {

class CapturingPair : public RcPair {
  protected:
    /// Creates the loop and both sides recording to `path`, then connects them (RcPair::SetUp
    /// with a capture).
    void start(const std::string& path) {
        path_ = path;
        std::remove(path_.c_str());
        ASSERT_NT_SUCCESS(ndksim_loop_create(&loop_));
        make_capturing_side(a_, "10.0.0.1");
        make_capturing_side(b_, "10.0.0.2");
        connect_pair();
    }

    void make_capturing_side(side& s, const char* address) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.loop = loop_;
        c.address = address;
        c.pcap_path = path_.c_str();
        ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &s.nic));
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        ASSERT_NT_SUCCESS(ndksim_open_ndk_adapter(s.nic, &p, &s.adapter));
        slot ignored;
        ASSERT_NT_SUCCESS(
            s.adapter->Dispatch->NdkCreatePd(s.adapter, slot::on_create, &ignored, &s.pd));
        ASSERT_NT_SUCCESS(s.adapter->Dispatch->NdkCreateCq(
            s.adapter, 1024, [](PVOID, NTSTATUS) {}, nullptr, nullptr, slot::on_create, &ignored,
            &s.cq));
        ASSERT_NT_SUCCESS(s.pd->Dispatch->NdkCreateQp(s.pd, s.cq, s.cq, &s, 64, 64, 4, 4, 128,
                                                      slot::on_create, &ignored, &s.qp));
        s.buf = register_buffer(s, k_buffer,
                                NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                    NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
    }

    std::string path_;
};

}  // namespace ndksim::testkit
