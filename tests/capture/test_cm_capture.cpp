// SPDX-License-Identifier: MIT
// Capture of the connection manager: two adapters on one pcap file connect (REQ, REP, RTU,
// each with the consumers' private data), refuse a request for a port nobody listens on (REJ,
// invalid service id), reject a request in the consumer's name with private data (REJ,
// consumer reject) and disconnect (DREQ, DREP). The test checks that every CM datagram in the
// file decodes with the codec, in the order and with the fields the calls imply, and writes
// what tshark must show for each (NDKSIM_CM_CAPTURE_PATH + ".expected", read by
// cm_capture_check.cpp): the message's name, its communication ids, the reject reason, the IP
// CM addresses and the private data.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "capture/captured_frame.hpp"
#include "capture/capturing_pair.hpp"
#include "wire/cm_proto.hpp"
#include "wire/codec.hpp"

namespace ndksim::testkit {
namespace {

// What tshark 4.0's InfiniBand dissector calls each message (its "CM <name>" tree item).
constexpr const char* k_tshark_names[] = {
    "",
    "ConnectRequest",
    "ConnectReply",
    "ReadyToUse",
    "ConnectReject",
    "DisconnectRequest",
    "DisconnectReply",
};
static_assert(std::size(k_tshark_names) == wire::cm_type_count);

constexpr char k_hello[] = "hello from a";        // RcPair's connect private data
constexpr char k_welcome[] = "hello from b";      // RcPair's accept private data
constexpr char k_refusal[] = "not on this port";  // the reject's private data

std::string hex(std::span<const std::byte> bytes) {
    std::ostringstream o;
    for (const std::byte b : bytes) {
        constexpr const char* digits = "0123456789abcdef";
        const auto v = std::to_integer<unsigned>(b);
        o << digits[v >> 4] << digits[v & 0xF];
    }
    return o.str();
}

std::string hex32(std::uint32_t v) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", v);
    return text;
}

std::span<const std::byte> bytes_of(const char* text, std::size_t n) {
    return {reinterpret_cast<const std::byte*>(text), n};
}

class CmCaptureRun : public CapturingPair {
  protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(start(NDKSIM_CM_CAPTURE_PATH)); }

    NTSTATUS connect_from_a(NDK_CONNECTOR* c, NDK_QP* qp, USHORT port, slot& done) {
        SOCKADDR_IN src = ipv4("10.0.0.1", 0);
        SOCKADDR_IN dst = ipv4("10.0.0.2", port);
        return c->Dispatch->NdkConnect(c, qp, reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                                       reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, 8, 8, nullptr,
                                       0, slot::on_request, &done);
    }

    void TearDown() override {
        for (side* s : {&a_, &b_}) {
            if (s->connector != nullptr) {
                close(&s->connector->Header);
                s->connector = nullptr;
            }
        }
        settle();
        RcPair::TearDown();
        check_file();
    }

    void check_file();
};

void CmCaptureRun::check_file() {
    const capture_test::pcap_file f = capture_test::read_pcap(NDKSIM_CM_CAPTURE_PATH);
    ASSERT_TRUE(f.ok) << f.error;
    std::ofstream expected(NDKSIM_CM_CAPTURE_PATH ".expected");
    std::vector<wire::cm_message> seen;
    std::size_t number = 0;
    for (const capture_test::pcap_record& r : f.records) {
        ++number;
        ASSERT_GE(r.bytes.size(), capture_test::ipv4_headers_size);
        const wire::decode_result d =
            wire::decode_frame(capture_test::ipv4_frame(r), capture_test::ipv4_flow(r));
        ASSERT_TRUE(d.ok()) << "record " << number << ": " << wire::decode_error_name(d.error);
        if (!wire::is_cm_packet(d.packet)) {
            continue;
        }
        EXPECT_EQ(d.packet.payload.size(), wire::cm_mad_size) << "record " << number;
        const wire::cm_decode_result c = wire::decode_cm(d.packet);
        ASSERT_TRUE(c.ok()) << "record " << number << ": " << wire::cm_error_name(c.error);
        const wire::cm_message& m = c.message;
        seen.push_back(m);

        // What tshark -V must show for this frame, tab-separated after the frame number.
        expected << number << "\tCM " << k_tshark_names[static_cast<std::size_t>(m.type)]
                 << "\tLocal Communication ID: " << hex32(m.local_connection_id);
        if (m.type == wire::cm_type::request) {
            expected << "\tIP CM Source IP: 10.0.0.1\tIP CM Destination IP: 10.0.0.2"
                     << "\tPrimary Local Port GID: 10.0.0.1";
        } else {
            expected << "\tRemote Communication ID: " << hex32(m.remote_connection_id);
        }
        if (m.type == wire::cm_type::reject) {
            // tshark 4.0 prints the reason and the rejected message as numbers.
            char reason[64];
            std::snprintf(reason, sizeof reason, "\tReason: 0x%04x\t= Message REJected: 0x%x",
                          m.reject_reason, static_cast<unsigned>(m.rejected_message));
            expected << reason;
        }
        if (m.private_data_length != 0) {
            expected << "\t" << hex(m.private_data_view());
        }
        expected << '\n';
    }

    // The calls' messages in order: the pair's handshake, the refused request, the rejected
    // one, the disconnect.
    using wire::cm_type;
    const std::vector<cm_type> order = {cm_type::request,         cm_type::reply,
                                        cm_type::ready_to_use,    cm_type::request,
                                        cm_type::reject,          cm_type::request,
                                        cm_type::reject,          cm_type::disconnect_request,
                                        cm_type::disconnect_reply};
    ASSERT_EQ(order.size(), seen.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        EXPECT_EQ(order[i], seen[i].type) << "CM message " << i;
    }
    EXPECT_EQ(hex(seen[0].private_data_view()), hex(bytes_of(k_hello, sizeof k_hello)));
    EXPECT_EQ(hex(seen[1].private_data_view()), hex(bytes_of(k_welcome, sizeof k_welcome)));
    EXPECT_EQ(seen[1].remote_connection_id, seen[0].local_connection_id);
    EXPECT_EQ(seen[2].transaction_id, seen[0].transaction_id) << "one exchange, one id";
    EXPECT_EQ(seen[4].reject_reason,
              static_cast<std::uint16_t>(wire::cm_reject_reason::invalid_service_id));
    EXPECT_EQ(seen[4].rejected_message, wire::cm_rejected::request);
    EXPECT_EQ(seen[4].remote_connection_id, seen[3].local_connection_id);
    EXPECT_EQ(seen[6].reject_reason, static_cast<std::uint16_t>(wire::cm_reject_reason::consumer));
    EXPECT_EQ(hex(seen[6].private_data_view()), hex(bytes_of(k_refusal, sizeof k_refusal)));
    EXPECT_EQ(seen[8].transaction_id, seen[7].transaction_id) << "a DREP answers its DREQ";
}

TEST_F(CmCaptureRun, HandshakeRefusalRejectAndDisconnect) {
    // A request for a port nobody listens on: refused by b's CM.
    NDK_QP* qp = make_qp(a_, a_.cq);
    NDK_CONNECTOR* lost = make_connector(a_);
    slot refused;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     connect_from_a(lost, qp, static_cast<USHORT>(port_ + 1), refused));
    ASSERT_TRUE(wait(refused, "the refused Connect"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, refused.status);

    // A request the consumer rejects, with private data.
    NDK_QP* qp2 = make_qp(a_, a_.cq);
    NDK_CONNECTOR* turned_away = make_connector(a_);
    slot rejected;
    ASSERT_NT_STATUS(STATUS_PENDING, connect_from_a(turned_away, qp2, port_, rejected));
    ASSERT_TRUE(drive([&] { return incoming_ != nullptr; }, "the connect event"));
    NDK_CONNECTOR* passive = incoming_;
    incoming_ = nullptr;
    track(&passive->Header);
    char why[] = "not on this port";
    static_assert(sizeof why == sizeof k_refusal);
    EXPECT_NT_SUCCESS(passive->Dispatch->NdkReject(passive, why, sizeof why));
    ASSERT_TRUE(wait(rejected, "the rejected Connect"));
    EXPECT_NT_STATUS(STATUS_CONNECTION_REFUSED, rejected.status);

    // The pair's own connection ends with a graceful disconnect.
    slot disconnected;
    ASSERT_NT_STATUS(STATUS_PENDING, a_.connector->Dispatch->NdkDisconnect(
                                         a_.connector, slot::on_request, &disconnected));
    ASSERT_TRUE(wait(disconnected, "the Disconnect"));
    EXPECT_NT_SUCCESS(disconnected.status);
    settle();
}

}  // namespace
}  // namespace ndksim::testkit
