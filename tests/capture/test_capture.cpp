// SPDX-License-Identifier: MIT
// Capture of a deterministic run between two adapters sharing one pcap file: the operations
// every consumer uses (SEND, SEND-and-invalidate, a multi-packet WRITE, an RDMA READ and their
// ACKs), then a check of the file itself: global header, one record per frame sent, IPv4/UDP
// headers as wire/icrc.cpp's pseudo header assumes them (the ICRC verifies against the
// captured headers), and the operations' fields. The per-frame fields are written next to the
// capture (NDKSIM_CAPTURE_PATH + ".expected") for the tshark check (capture_check.cpp).

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "capture/captured_frame.hpp"
#include "capture/capturing_pair.hpp"
#include "core/qp.hpp"
#include "wire/codec.hpp"
#include "wire/icrc.hpp"

namespace ndksim::testkit {
namespace {

using capture_test::be_at;

constexpr ULONG k_write_size = 3 * 4096 + 100;  // first, two middles... at MTU 4096: 4 packets
constexpr ULONG k_read_size = 2 * 4096 + 8;     // first, middle, last
constexpr std::size_t k_write_offset = 8192;
constexpr std::size_t k_read_offset = 65536;

std::uint32_t qpn_of(NDK_QP* qp) {
    return api::from_ndk<core::qp>(qp, core::object_kind::qp, "capture test")->qpn();
}

std::uint64_t frames_sent(ndksim_adapter* a) {
    return a->link.base->counters().frames_sent.load();
}

class CaptureRun : public CapturingPair {
  protected:
    void SetUp() override {
        ASSERT_NO_FATAL_FAILURE(start(NDKSIM_CAPTURE_PATH));
        a_qpn_ = qpn_of(a_.qp);
        b_qpn_ = qpn_of(b_.qp);
        b_address_ = b_.buf.address();
        b_token_ = b_.buf.remote_token;
    }

    // Closes what sends frames (connectors, QPs), counts the frames both adapters sent, lets
    // the pair tear down (the capture file is closed with the last adapter) and checks it.
    void TearDown() override {
        for (side* s : {&a_, &b_}) {
            if (s->connector != nullptr) {
                close(&s->connector->Header);
                s->connector = nullptr;
            }
            if (s->qp != nullptr) {
                close(&s->qp->Header);
                s->qp = nullptr;
            }
        }
        settle();
        const std::uint64_t sent = frames_sent(a_.nic) + frames_sent(b_.nic);
        RcPair::TearDown();
        check_file(sent);
    }

    void check_file(std::uint64_t sent);

    std::uint32_t a_qpn_ = 0;
    std::uint32_t b_qpn_ = 0;
    std::uint64_t b_address_ = 0;  // b's buffer, remembered: TearDown releases it before the check
    std::uint32_t b_token_ = 0;
    std::uint32_t invalidated_token_ = 0;
};

// One line per record: frame number, then the InfiniBand fields tshark shows for it (empty
// when the packet has no such header), tab-separated, numbers in decimal.
std::string expected_line(std::size_t number, const wire::decoded_packet& p) {
    std::ostringstream o;
    const wire::opcode_info& i = *p.info;
    o << number << '\t' << static_cast<unsigned>(p.headers.bth.op) << '\t' << p.headers.bth.dest_qp
      << '\t' << p.headers.bth.psn << '\t';
    if (i.has(wire::ext::reth)) {
        o << p.headers.reth.va << '\t' << p.headers.reth.rkey << '\t' << p.headers.reth.dma_length;
    } else {
        o << "\t\t";
    }
    o << '\t';
    if (i.has(wire::ext::aeth)) {
        o << static_cast<unsigned>(p.headers.aeth.syndrome) << '\t' << p.headers.aeth.msn;
    } else {
        o << '\t';
    }
    o << '\t';
    if (i.has(wire::ext::ieth)) {
        o << p.headers.invalidate_rkey;
    }
    return o.str();
}

void CaptureRun::check_file(std::uint64_t sent) {
    const capture_test::pcap_file f = capture_test::read_pcap(NDKSIM_CAPTURE_PATH);
    ASSERT_TRUE(f.ok) << f.error;
    EXPECT_EQ(0xA1B23C4Du, f.magic);  // nanosecond timestamps, written in host order
    EXPECT_EQ(2, f.major);
    EXPECT_EQ(4, f.minor);
    EXPECT_EQ(1u, f.linktype);  // LINKTYPE_ETHERNET
    // Both adapters share the file: every frame is recorded once, by its sender.
    EXPECT_EQ(sent, f.records.size());

    std::ofstream expected(NDKSIM_CAPTURE_PATH ".expected");
    std::multiset<wire::opcode> seen;
    bool write_first_ok = false;
    bool read_request_ok = false;
    bool invalidate_ok = false;
    std::uint64_t previous_ns = 0;
    std::size_t number = 0;
    for (const capture_test::pcap_record& r : f.records) {
        ++number;
        SCOPED_TRACE("record " + std::to_string(number));
        ASSERT_GE(r.bytes.size(), 14u + 20 + 8 + 12);
        const std::byte* eth = r.bytes.data();
        ASSERT_EQ(0x0800u, be_at(eth + 12, 2));
        EXPECT_EQ(0x02u, be_at(eth, 1)) << "locally administered destination MAC";
        const std::byte* ip = eth + 14;
        const std::size_t frame_size = r.bytes.size() - 42;
        EXPECT_EQ(0x45u, be_at(ip, 1));
        EXPECT_EQ(20 + 8 + frame_size, be_at(ip + 2, 2));
        EXPECT_EQ(0u, be_at(ip + 4, 2)) << "identification";
        EXPECT_EQ(0x4000u, be_at(ip + 6, 2)) << "DF, fragment offset 0";
        EXPECT_EQ(17u, be_at(ip + 9, 1));
        std::uint32_t sum = 0;
        for (std::size_t k = 0; k < 20; k += 2) {
            sum += be_at(ip + k, 2);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        EXPECT_EQ(0xFFFFu, sum) << "IPv4 header checksum";
        const std::byte* udp = ip + 20;
        EXPECT_EQ(4791u, be_at(udp + 2, 2));
        EXPECT_EQ(8 + frame_size, be_at(udp + 4, 2));
        // The ICRC verifies over the headers as captured: what Wireshark would check.
        const wire::decode_result d =
            wire::decode_frame(capture_test::ipv4_frame(r), capture_test::ipv4_flow(r));
        ASSERT_TRUE(d.ok()) << wire::decode_error_name(d.error);
        const wire::decoded_packet& p = d.packet;
        expected << expected_line(number, p) << '\n';
        seen.insert(p.headers.bth.op);
        const std::uint64_t ns = std::uint64_t{r.seconds} * 1'000'000'000 + r.fraction;
        EXPECT_LT(r.fraction, 1'000'000'000u);
        previous_ns = std::max(previous_ns, ns);
        if (p.headers.bth.op == wire::opcode::rc_write_first) {
            write_first_ok = p.headers.bth.dest_qp == b_qpn_ &&
                             p.headers.reth.va == b_address_ + k_write_offset &&
                             p.headers.reth.rkey == b_token_ &&
                             p.headers.reth.dma_length == k_write_size;
        }
        if (p.headers.bth.op == wire::opcode::rc_read_request) {
            read_request_ok = p.headers.bth.dest_qp == b_qpn_ &&
                              p.headers.reth.va == b_address_ + k_read_offset &&
                              p.headers.reth.rkey == b_token_ &&
                              p.headers.reth.dma_length == k_read_size;
        }
        if (p.headers.bth.op == wire::opcode::rc_send_only_inv) {
            invalidate_ok = p.headers.invalidate_rkey == invalidated_token_;
        }
    }
    EXPECT_GT(previous_ns, 0u) << "timestamps are simulated times";
    using wire::opcode;
    for (opcode op : {opcode::rc_send_only, opcode::rc_send_only_inv, opcode::rc_write_first,
                      opcode::rc_write_middle, opcode::rc_write_last, opcode::rc_read_request,
                      opcode::rc_read_response_first, opcode::rc_read_response_middle,
                      opcode::rc_read_response_last, opcode::rc_ack, opcode::ud_send_only}) {
        EXPECT_GE(seen.count(op), 1u)
            << "no " << wire::opcode_table[static_cast<std::size_t>(op)].name;
    }
    EXPECT_EQ(2u, seen.count(opcode::rc_write_middle));
    EXPECT_TRUE(write_first_ok);
    EXPECT_TRUE(read_request_ok);
    EXPECT_TRUE(invalidate_ok);
}

TEST_F(CaptureRun, SendInvalidateWriteReadAndAcks) {
    // SEND.
    NDK_SGE rsge = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    NDK_SGE ssge = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
    // Multi-packet WRITE: first, middle, middle, last.
    NDK_SGE wsge = a_.buf.sge(0, k_write_size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(
        a_.qp, nullptr, &wsge, 1, b_.buf.address() + k_write_offset, b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    // RDMA READ: request, then first, middle, last responses.
    NDK_SGE readsge = a_.buf.sge(k_read_offset, k_read_size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(
        a_.qp, nullptr, &readsge, 1, b_.buf.address() + k_read_offset, b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    // SEND-and-invalidate of a memory window b bound for a.
    NDK_MW* mw = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.pd->Dispatch->NdkCreateMw(b_.pd, slot::on_create, &created, &mw));
    track(&mw->Header);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkBind(b_.qp, nullptr, b_.buf.mr, mw, b_.buf.bytes, 4096,
                                               NDK_OP_FLAG_ALLOW_REMOTE_READ));
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
    invalidated_token_ = mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &ssge, 1, 0, invalidated_token_));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    const NDK_RESULT_EX r = next(b_.cq);
    EXPECT_NT_SUCCESS(r.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, r.Type);
    settle();
}

// Only the receiver records: the sender, with no capture of its own, lends its frames (their
// payload stays in its memory until the receiver places it, wire/lent_frames.hpp), and the
// receiver's capture copies each payload in before it records the frame. The file is read once
// the pair is gone and the capture closed.
class ReceiverOnlyCapture : public CapturingPair {
  protected:
    void SetUp() override {
        path_ = NDKSIM_CAPTURE_PATH ".receiver";
        std::remove(path_.c_str());
        ASSERT_NT_SUCCESS(ndksim_loop_create(&loop_));
        make_side(a_, "10.0.0.1");
        make_capturing_side(b_, "10.0.0.2");
        connect_pair();
    }

    void TearDown() override {
        RcPair::TearDown();
        const capture_test::pcap_file f = capture_test::read_pcap(path_);
        ASSERT_TRUE(f.ok) << f.error;
        std::vector<std::byte> written;
        for (const capture_test::pcap_record& r : f.records) {
            const wire::decode_result d =
                wire::decode_frame(capture_test::ipv4_frame(r), capture_test::ipv4_flow(r));
            ASSERT_TRUE(d.ok()) << wire::decode_error_name(d.error)
                                << ": the ICRC covers the payload recorded";
            const wire::opcode op = d.packet.headers.bth.op;
            if (op == wire::opcode::rc_write_first || op == wire::opcode::rc_write_middle ||
                op == wire::opcode::rc_write_last) {
                written.insert(written.end(), d.packet.payload.begin(), d.packet.payload.end());
            }
        }
        EXPECT_EQ(written, sent_);
    }

    std::vector<std::byte> sent_;
};

TEST_F(ReceiverOnlyCapture, AWriteFromALendingSenderIsRecordedWithItsPayload) {
    for (std::size_t i = 0; i < k_write_size; ++i) {
        a_.buf.bytes[i] = static_cast<std::byte>(i * 7 + 1);
    }
    sent_.assign(a_.buf.bytes, a_.buf.bytes + k_write_size);
    NDK_SGE wsge = a_.buf.sge(0, k_write_size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(
        a_.qp, nullptr, &wsge, 1, b_.buf.address() + k_write_offset, b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(std::memcmp(b_.buf.bytes + k_write_offset, a_.buf.bytes, k_write_size), 0);
    settle();
}

TEST(CapturePath, UnopenablePathFailsTheCreateWithInvalidParameter) {
    ndksim_loop* loop = nullptr;
    ASSERT_NT_SUCCESS(ndksim_loop_create(&loop));
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.loop = loop;
    c.address = "10.0.0.7";
    c.pcap_path = "/nonexistent-directory/capture.pcap";
    ndksim_adapter* nic = nullptr;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_create(&c, &nic));
    EXPECT_EQ(nullptr, nic);
    // The address was given back: the same configuration without the capture works.
    c.pcap_path = nullptr;
    ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &nic));
    ndksim_adapter_destroy(nic);
    ndksim_loop_destroy(loop);
}

}  // namespace
}  // namespace ndksim::testkit
