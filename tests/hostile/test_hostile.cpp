// SPDX-License-Identifier: MIT
// Hostile frames against a live responder. Two adapters are connected twice (a -> b on the
// pair's QPs, and a second connection between two more QPs); b's buffers are canary-guarded.
// Each test injects one forged frame into b as if it came from a (ndksim_adapter_inject_frame)
// and checks that it was refused with the right NAK or dropped, that no byte outside the
// target window moved, that at most the attacked connection died (the second connection
// still carries a SEND), and that the process lives on. The NAKs b sent are read back from
// the pair's capture after teardown.

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "capture/capturing_pair.hpp"
#include "capture/pcap_reader.hpp"
#include "core/connector.hpp"
#include "core/qp.hpp"
#include "nic/engine.hpp"
#include "nic/qp_context.hpp"
#include "wire/cm_proto.hpp"
#include "wire/codec.hpp"
#include "wire/icrc.hpp"

namespace ndksim::wire {
// Names a CM message type in test output ("reject", not a byte dump).
void PrintTo(cm_type t, std::ostream* os) {
    *os << cm_type_table[static_cast<std::size_t>(t)].name;
}
}  // namespace ndksim::wire

namespace ndksim::testkit {
namespace {

using wire::opcode;

constexpr std::size_t k_page = 4096;
constexpr std::byte k_canary{0xA5};

core::qp& core_qp(NDK_QP* qp) {
    return *api::from_ndk<core::qp>(qp, core::object_kind::qp, "hostile test");
}

core::connector& core_connector(NDK_CONNECTOR* c) {
    return *api::from_ndk<core::connector>(c, core::object_kind::connector, "hostile test");
}

// "10.0.0.9" as a wire address.
wire::ip_address ip_of(const char* text) {
    unsigned o[4] = {};
    std::sscanf(text, "%u.%u.%u.%u", &o[0], &o[1], &o[2], &o[3]);
    return wire::ip_address::v4(static_cast<std::uint8_t>(o[0]), static_cast<std::uint8_t>(o[1]),
                                static_cast<std::uint8_t>(o[2]), static_cast<std::uint8_t>(o[3]));
}

// A page-sized window registered for remote read and write, with an unregistered canary page
// on each side of it.
struct guarded {
    std::byte* block = nullptr;
    MDL* mdl = nullptr;
    NDK_MR* mr = nullptr;
    UINT32 token = 0;
    std::byte* window() const { return block + k_page; }
    UINT64 address() const { return reinterpret_cast<UINT64>(window()); }
};

class Hostile : public CapturingPair {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info->test_suite_name()) + "_" + info->name();
        std::replace(name.begin(), name.end(), '/', '_');
        ASSERT_NO_FATAL_FAILURE(start(std::string(NDKSIM_HOSTILE_DIR "/") + name + ".pcap"));
        // The second connection, which must survive whatever happens to the first.
        a2_ = make_qp(a_, a_.cq);
        b2_ = make_qp(b_, b_.cq);
        connect_qps(a2_, b2_);
        make_guarded();
        snapshot();
    }

    void TearDown() override {
        RcPair::TearDown();
        check_naks();
    }

    void make_guarded() {
        g_.block = static_cast<std::byte*>(std::aligned_alloc(k_page, 3 * k_page));
        std::fill(g_.block, g_.block + 3 * k_page, k_canary);
        g_.mdl = IoAllocateMdl(g_.window(), k_page, FALSE, FALSE, nullptr);
        MmBuildMdlForNonPagedPool(g_.mdl);
        slot created;
        ASSERT_NT_SUCCESS(
            b_.pd->Dispatch->NdkCreateMr(b_.pd, FALSE, slot::on_create, &created, &g_.mr));
        slot registered;
        ASSERT_NT_SUCCESS(g_.mr->Dispatch->NdkRegisterMr(g_.mr, g_.mdl, k_page,
                                                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                                             NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                                             NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                                         slot::on_request, &registered));
        g_.token = g_.mr->Dispatch->NdkGetRemoteTokenFromMr(g_.mr);
        at_teardown([this] {
            slot deregistered;
            if (g_.mr->Dispatch->NdkDeregisterMr(g_.mr, slot::on_request, &deregistered) ==
                STATUS_PENDING) {
                wait(deregistered, "deregistration");
            }
            close(&g_.mr->Header);
            IoFreeMdl(g_.mdl);
            std::free(g_.block);
        });
    }

    /// Remembers every byte of b's memory, to compare after the attack.
    void snapshot() {
        guarded_before_.assign(g_.block, g_.block + 3 * k_page);
        buffer_before_.assign(b_.buf.bytes, b_.buf.bytes + b_.buf.size);
    }

    /// Every byte of b's memory is as before, except [first, first + n) of the window.
    void expect_untouched(std::size_t first = 0, std::size_t n = 0) {
        for (std::size_t i = 0; i < 3 * k_page; ++i) {
            const bool target = i >= k_page + first && i < k_page + first + n;
            if (!target && g_.block[i] != guarded_before_[i]) {
                ADD_FAILURE() << "byte " << i << " of the guarded block changed";
                return;
            }
        }
        EXPECT_TRUE(std::equal(buffer_before_.begin(), buffer_before_.end(), b_.buf.bytes))
            << "b's other buffer changed";
    }

    nic::engine_counters& counters() { return b_.nic->engine->counters(); }

    std::uint64_t bad(wire::decode_error e) {
        return counters().bad_frames[static_cast<std::size_t>(e)].load();
    }

    /// A frame from a's flow to b's first QP at its expected PSN, with a correct ICRC.
    std::vector<std::byte> forge(wire::packet_headers h, std::size_t payload_size = 0,
                                 const char* from = "10.0.0.1") {
        core::qp& q = core_qp(b_.qp);
        if (h.bth.dest_qp == 0) {
            h.bth.dest_qp = q.qpn();
        }
        h.bth.psn = wire::psn_add(nic::context_of(q).resp.expected_psn, h.bth.psn);
        std::vector<std::byte> payload(payload_size, std::byte{0x5A});
        std::vector<std::byte> frame(wire::max_frame_size);
        const wire::flow f{ip_of(from), wire::ip_address::v4(10, 0, 0, 2)};
        const wire::encode_result r = wire::encode_frame(h, payload, f, frame);
        EXPECT_TRUE(r.ok());
        frame.resize(r.frame_size);
        return frame;
    }

    static wire::packet_headers write_only(UINT64 va, UINT32 rkey, UINT32 length) {
        wire::packet_headers h;
        h.bth.op = opcode::rc_write_only;
        h.bth.ack_req = true;
        h.reth = wire::reth_fields{va, rkey, length};
        return h;
    }

    void inject(const std::vector<std::byte>& frame, const char* from = "10.0.0.1") {
        inject_into(b_, frame, from);
    }

    void inject_into(side& s, const std::vector<std::byte>& frame, const char* from) {
        ASSERT_NT_SUCCESS(ndksim_adapter_inject_frame(s.nic, frame.data(),
                                                      static_cast<ULONG>(frame.size()), from));
        settle();
    }

    /// A CM message of `type` on the connection of `victim`'s connector, as its peer would
    /// send it: both communication ids, the peer's QP where the type names one.
    static wire::cm_message cm_to(wire::cm_type type, NDK_CONNECTOR* victim) {
        const core::connector& c = core_connector(victim);
        wire::cm_message m;
        m.type = type;
        m.local_connection_id = c.remote_id;
        m.remote_connection_id = c.local_id;
        m.qp_number = type == wire::cm_type::disconnect_request ? c.bound_qp()->qpn() : c.peer_qpn;
        return m;
    }

    /// `m` as a CM datagram from `from` to `to` (the ICRC over that flow).
    static std::vector<std::byte> forge_cm(const wire::cm_message& m, const char* from,
                                           const char* to) {
        std::vector<std::byte> frame(wire::cm_frame_size);
        const wire::cm_encode_result r =
            wire::encode_cm_frame(m, 0, wire::flow{ip_of(from), ip_of(to)}, frame);
        EXPECT_TRUE(r.ok());
        frame.resize(r.size);
        return frame;
    }

    std::uint64_t cm_bad(side& s) { return s.nic->engine->counters().cm_bad_messages.load(); }

    /// Both ends of the first connection are still connected, without a disconnect event, and
    /// it carries a SEND.
    void expect_first_connection_intact() {
        EXPECT_EQ(core::connector_state::connected, core_connector(a_.connector).state());
        EXPECT_EQ(core::connector_state::connected, core_connector(b_.connector).state());
        EXPECT_EQ(0, a_.disconnect_events);
        EXPECT_EQ(0, b_.disconnect_events);
        expect_victim_alive();
    }

    /// A SEND of 64 bytes from `aqp` to `bqp`; returns the receive's status.
    NTSTATUS send_over(NDK_QP* aqp, NDK_QP* bqp) {
        NDK_SGE r = b_.buf.sge(b_.buf.size - 4096, 64);
        EXPECT_NT_SUCCESS(bqp->Dispatch->NdkReceive(bqp, nullptr, &r, 1));
        NDK_SGE s = a_.buf.sge(0, 64);
        EXPECT_NT_SUCCESS(aqp->Dispatch->NdkSend(aqp, nullptr, &s, 1, 0));
        const NDK_RESULT_EX sent = next(a_.cq);
        const NDK_RESULT_EX received = next(b_.cq);
        EXPECT_NT_STATUS(sent.Status, received.Status);
        return received.Status;
    }

    /// The second connection carries a SEND (bad input kills at most its own connection).
    void expect_second_connection_works() { EXPECT_NT_SUCCESS(send_over(a2_, b2_)); }

    /// The attacked connection is dead on b's side: its QP is in error and a post on it
    /// completes with a flush status.
    void expect_victim_killed() {
        EXPECT_EQ(core::qp_state::error, core_qp(b_.qp).state());
        NDK_SGE r = b_.buf.sge(0, 64);
        ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
        EXPECT_NT_STATUS(STATUS_CANCELLED, next(b_.cq).Status);
    }

    /// The attacked connection still works.
    void expect_victim_alive() {
        EXPECT_EQ(core::qp_state::connected, core_qp(b_.qp).state());
        EXPECT_NT_SUCCESS(send_over(a_.qp, b_.qp));
    }

    // Reads the capture after teardown: b sent exactly the NAKs expected_naks_ names (and, when
    // expected_read_responses_ is set, exactly that many READ response packets).
    void check_naks() {
        if (!check_naks_) {
            return;
        }
        const capture_test::pcap_file f = capture_test::read_pcap(path_);
        ASSERT_TRUE(f.ok) << f.error;
        std::vector<wire::nak_code> naks;
        std::size_t read_responses = 0;
        for (const capture_test::pcap_record& r : f.records) {
            if (r.bytes.size() < 42 + 16 ||
                capture_test::be_at(r.bytes.data() + 26, 4) != 0x0A000002u) {
                continue;  // not from b
            }
            const std::byte* bth = r.bytes.data() + 42;
            const wire::opcode_info& info =
                wire::opcode_lookup(static_cast<std::uint32_t>(std::to_integer<unsigned>(bth[0])));
            if (info.valid && info.cls == wire::op_class::read_response) {
                ++read_responses;
            }
            if (std::to_integer<unsigned>(bth[0]) != static_cast<unsigned>(opcode::rc_ack)) {
                continue;
            }
            const auto syndrome = static_cast<std::uint8_t>(std::to_integer<unsigned>(bth[12]));
            if (wire::syndrome_type(syndrome) == wire::aeth_type::nak) {
                naks.push_back(static_cast<wire::nak_code>(wire::syndrome_value(syndrome)));
            }
        }
        EXPECT_EQ(expected_naks_, naks);
        if (expected_read_responses_) {
            EXPECT_EQ(*expected_read_responses_, read_responses);
        }
    }

    NDK_QP* a2_ = nullptr;
    NDK_QP* b2_ = nullptr;
    guarded g_;
    std::vector<std::byte> guarded_before_;
    std::vector<std::byte> buffer_before_;
    std::vector<wire::nak_code> expected_naks_;
    std::optional<std::size_t> expected_read_responses_;
    bool check_naks_ = true;
};

// ---- dropped by the decoder (never reach a QP) ------------------------------------------

TEST_F(Hostile, TruncatedFrameIsDropped) {
    const auto frame = forge(write_only(g_.address(), g_.token, 0));
    inject(std::vector<std::byte>(frame.begin(), frame.begin() + 5));
    inject(std::vector<std::byte>(frame.begin(), frame.begin() + 20));
    EXPECT_EQ(1u, bad(wire::decode_error::truncated));
    EXPECT_EQ(1u, bad(wire::decode_error::bad_length));
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, BadVersionIsDropped) {
    auto frame = forge(write_only(g_.address(), g_.token, 16), 16);
    frame[1] |= std::byte{0x01};  // TVer 1
    inject(frame);
    EXPECT_EQ(1u, bad(wire::decode_error::bad_version));
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, UnknownOpcodeIsDropped) {
    auto frame = forge(write_only(g_.address(), g_.token, 16), 16);
    frame[0] = std::byte{0x15};  // reserved RC opcode
    inject(frame);
    EXPECT_EQ(1u, bad(wire::decode_error::bad_opcode));
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, BadIcrcIsDropped) {
    auto frame = forge(write_only(g_.address(), g_.token, 16), 16);
    frame[30] ^= std::byte{0x01};  // a payload bit
    inject(frame);
    EXPECT_EQ(1u, bad(wire::decode_error::bad_icrc));
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, WrongDestinationQpIsDropped) {
    wire::packet_headers h = write_only(g_.address(), g_.token, 16);
    h.bth.dest_qp = 0xABCDE;
    inject(forge(h, 16));
    EXPECT_EQ(1u, counters().frames_for_unknown_qp.load());
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, FrameFromAStrangerIsDropped) {
    // Correct ICRC for the stranger's flow, right QP and PSN: only the source is wrong.
    inject(forge(write_only(g_.address(), g_.token, 16), 16, "10.0.0.9"), "10.0.0.9");
    EXPECT_EQ(1u, counters().protocol_errors.load());
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, FramePretendingToComeFromTheStrangerFailsTheIcrc) {
    // a's ICRC, stranger's address: the ICRC covers the source address.
    inject(forge(write_only(g_.address(), g_.token, 16), 16), "10.0.0.9");
    EXPECT_EQ(1u, bad(wire::decode_error::bad_icrc));
    expect_untouched();
    expect_victim_alive();
}

// ---- partition key ------------------------------------------------------------------------

// IBA vol. 1 9.6.1.1 (header validation, "P_Key check"): a packet whose BTH P_Key does not match
// the QP's is silently dropped and the violation counted; it must not touch the connection.
TEST_F(Hostile, ForeignPartitionKeyIsDroppedAndCounted) {
    wire::packet_headers h = write_only(g_.address(), g_.token, 16);
    h.bth.pkey = 0x8123;  // a full member of another partition: QPN, PSN and rkey are right
    inject(forge(h, 16));
    EXPECT_EQ(1u, counters().pkey_violations.load());
    EXPECT_EQ(0u, counters().protocol_errors.load());
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, LimitedMemberOfTheDefaultPartitionIsAccepted) {
    // 0x7FFF (limited member) matches the QP's 0xFFFF (full member): one of the two is full.
    wire::packet_headers h = write_only(g_.address() + 100, g_.token, 16);
    h.bth.pkey = 0x7FFF;
    inject(forge(h, 16));
    EXPECT_EQ(0u, counters().pkey_violations.load());
    EXPECT_EQ(std::byte{0x5A}, g_.window()[100]);
    expect_untouched(100, 16);
    expect_second_connection_works();
}

// ---- PSN ----------------------------------------------------------------------------------

TEST_F(Hostile, PsnFarInTheFutureGetsOneSequenceNakAndPlacesNothing) {
    wire::packet_headers h = write_only(g_.address(), g_.token, 16);
    h.bth.psn = 1'000'000;  // forge() adds the expected PSN
    inject(forge(h, 16));
    inject(forge(h, 16));
    EXPECT_EQ(2u, counters().out_of_sequence_packets.load());
    expected_naks_ = {wire::nak_code::psn_sequence_error};
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

// ---- refused by the responder: NAK, the attacked connection ends ----------------------

TEST_F(Hostile, AtomicRequestIsRefusedWithInvalidRequest) {
    wire::packet_headers h;
    h.bth.op = opcode::rc_fetch_add;
    h.bth.ack_req = true;
    h.atomic_eth.va = g_.address();
    h.atomic_eth.rkey = g_.token;
    h.atomic_eth.swap_add = 1;
    inject(forge(h));
    expected_naks_ = {wire::nak_code::invalid_request};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, ForgedRkeyIsRefusedWithRemoteAccessError) {
    inject(forge(write_only(g_.address(), g_.token ^ 0x5A5A00, 16), 16));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, AddressBeforeTheWindowIsRefused) {
    inject(forge(write_only(g_.address() - 8, g_.token, 16), 16));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, AddressAfterTheWindowIsRefused) {
    inject(forge(write_only(g_.address() + k_page - 8, g_.token, 16), 16));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, RethRangeThatWrapsIsRefused) {
    inject(forge(write_only(0xFFFF'FFFF'FFFF'FFF0ull, g_.token, 0x100), 0));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, RethLengthBeyondTheRegionIsRefused) {
    // A WRITE FIRST announcing two pages into a one-page window, carrying one packet.
    wire::packet_headers h = write_only(g_.address(), g_.token, 2 * k_page);
    h.bth.op = opcode::rc_write_first;
    inject(forge(h, 64));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, PayloadLongerThanTheRethLengthIsRefused) {
    inject(forge(write_only(g_.address(), g_.token, 16), 64));
    expected_naks_ = {wire::nak_code::invalid_request};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, ReadOutsideTheWindowIsRefused) {
    wire::packet_headers h = write_only(g_.address() + 16, g_.token, k_page);
    h.bth.op = opcode::rc_read_request;
    inject(forge(h));
    expected_naks_ = {wire::nak_code::remote_access_error};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

// IBA vol. 1 9.7.5.2 (NAK codes; responder error class C): an RDMA READ request beyond the
// responder's resources (the inbound read limit negotiated at connection, IRD) is answered with
// NAK Invalid Request, which the requester completes with STATUS_REMOTE_RESOURCES
// (docs/completion-statuses.md), and both QPs go to error. A requester whose outbound limit is
// raised above the negotiated one (a peer that ignores it) pipelines 16 reads at an IRD of 4:
// exactly 4 are answered, the fifth is refused, and nothing after it is served.
TEST_F(Hostile, ReadsBeyondTheNegotiatedIrdAreRefusedWithInvalidRequest) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    connect_qps(aqp, bqp, 8, 8, /*b_ird=*/4, 8);
    ASSERT_EQ(4u, nic::context_of(core_qp(bqp)).ird);
    ASSERT_EQ(4u, nic::context_of(core_qp(aqp)).ord);
    nic::context_of(core_qp(aqp)).ord = 64;  // the hostile peer ignores the negotiated limit
    constexpr ULONG reads = 16;
    constexpr ULONG length = 4096;  // one response packet each
    for (ULONG i = 0; i < reads; ++i) {
        NDK_SGE s = a_.buf.sge(i * length, length);
        ASSERT_NT_SUCCESS(
            aqp->Dispatch->NdkRead(aqp, reinterpret_cast<PVOID>(std::uintptr_t{i} + 1), &s, 1,
                                   b_.buf.address() + i * length, b_.buf.remote_token, 0));
    }
    for (ULONG i = 0; i < reads; ++i) {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_EQ(reinterpret_cast<PVOID>(std::uintptr_t{i} + 1), r.RequestContext);
        const NTSTATUS expected = i < 4    ? STATUS_SUCCESS
                                  : i == 4 ? STATUS_REMOTE_RESOURCES
                                           : STATUS_CANCELLED;
        EXPECT_NT_STATUS(expected, r.Status) << "read " << i;
        if (i == 4) {
            EXPECT_EQ(0x100u | static_cast<unsigned>(wire::nak_code::invalid_request),
                      r.ProviderErrorCode);
        }
    }
    settle();
    EXPECT_EQ(1u, counters().protocol_errors.load());
    EXPECT_EQ(core::qp_state::error, core_qp(bqp).state());
    EXPECT_EQ(core::qp_state::error, core_qp(aqp).state());
    expected_naks_ = {wire::nak_code::invalid_request};
    expected_read_responses_ = 4;
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

// A duplicate READ (a PSN already passed) is served again, since the requester resends a read
// whose responses were lost (IBA vol. 1 9.7.5.1). Without a bound of its own, a peer could
// send duplicates for ever and have each answered, around the IRD limit on new reads: replays
// in flight are bounded by the IRD too, and one beyond them is dropped quietly (the requester's
// timer asks again). 16 duplicates injected at once at an IRD of 8: 8 are answered.
TEST_F(Hostile, DuplicateReadsBeyondTheIrdAreDroppedQuietly) {
    ASSERT_EQ(8u, nic::context_of(core_qp(b_.qp)).ird);
    wire::packet_headers h = write_only(b_.buf.address(), b_.buf.remote_token, 4096);
    h.bth.op = opcode::rc_read_request;
    h.bth.psn = wire::psn_mask;  // forge() adds the expected PSN: one behind it
    const std::vector<std::byte> frame = forge(h);
    for (int i = 0; i < 16; ++i) {
        ASSERT_NT_SUCCESS(ndksim_adapter_inject_frame(
            b_.nic, frame.data(), static_cast<ULONG>(frame.size()), "10.0.0.1"));
    }
    settle();
    EXPECT_EQ(16u, counters().duplicate_packets.load());
    expected_read_responses_ = 8;
    expect_untouched();
    expect_victim_alive();
    expect_second_connection_works();
}

TEST_F(Hostile, ValidWriteLandsOnlyInItsWindow) {
    // The control case: the same forging machinery produces a frame the responder accepts.
    inject(forge(write_only(g_.address() + 100, g_.token, 64), 64));
    EXPECT_EQ(std::byte{0x5A}, g_.window()[100]);
    EXPECT_EQ(std::byte{0x5A}, g_.window()[163]);
    expect_untouched(100, 64);
    // RoCE has no authentication: a frame with the peer's address, QP, PSN and a valid ICRC
    // is the peer's. It consumed a's next PSN, so a's own next packet is now a duplicate there.
    EXPECT_EQ(core::qp_state::connected, core_qp(b_.qp).state());
    expect_second_connection_works();
}

// IBA vol. 1 chapter 9 (responder length checks): a packet longer than the path MTU is
// malformed, and the responder answers with a NAK invalid request before placing any of it.
TEST_F(Hostile, PayloadLongerThanTheMtuIsRefused) {
    // 4160 bytes in one packet (the frame still fits a pool frame) into a region large enough.
    constexpr UINT32 n = 4160;
    inject(forge(write_only(b_.buf.address(), b_.buf.remote_token, n), n));
    expected_naks_ = {wire::nak_code::invalid_request};
    expect_untouched();
    expect_victim_killed();
    expect_second_connection_works();
}

TEST_F(Hostile, InjectRefusesBadArguments) {
    const std::byte bytes[16] = {};
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(nullptr, bytes, 16, "10.0.0.1"));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(b_.nic, nullptr, 16, "10.0.0.1"));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(b_.nic, bytes, 16, nullptr));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(b_.nic, bytes, 16, "not an address"));
    // An empty frame: nothing to deliver (and nothing to copy from).
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(b_.nic, bytes, 0, "10.0.0.1"));
    std::vector<std::byte> big(wire::k_max_frame_bytes + 1);
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_adapter_inject_frame(b_.nic, big.data(), static_cast<ULONG>(big.size()),
                                                 "10.0.0.1"));
    settle();
    expect_victim_alive();
}

// ---- connection management from a stranger ------------------------------------------------
// Every CM message must come from the connection's peer address and name both of the
// connection's communication ids; anything else is dropped and counted in cm_bad_messages, and
// the connection it aims at goes on.

class HostileCm : public Hostile, public ::testing::WithParamInterface<wire::cm_type> {};

TEST_P(HostileCm, MessageFromAStrangerAddressLeavesTheConnection) {
    // The stranger knows both ids; only its address differs.
    const std::uint64_t before_a = cm_bad(a_);
    const std::uint64_t before_b = cm_bad(b_);
    inject_into(b_, forge_cm(cm_to(GetParam(), b_.connector), "10.0.0.9", "10.0.0.2"), "10.0.0.9");
    inject_into(a_, forge_cm(cm_to(GetParam(), a_.connector), "10.0.0.9", "10.0.0.1"), "10.0.0.9");
    EXPECT_EQ(before_a + 1, cm_bad(a_));
    EXPECT_EQ(before_b + 1, cm_bad(b_));
    expect_first_connection_intact();
    expect_second_connection_works();
}

TEST_P(HostileCm, MessageWithAGuessedIdFromThePeerAddressLeavesTheConnection) {
    // Sent from the peer's own address (a forged source) but with the sender's id guessed
    // wrong: the receiver's id alone does not identify the connection.
    const std::uint64_t before_a = cm_bad(a_);
    const std::uint64_t before_b = cm_bad(b_);
    wire::cm_message to_b = cm_to(GetParam(), b_.connector);
    to_b.local_connection_id ^= 1;
    inject_into(b_, forge_cm(to_b, "10.0.0.1", "10.0.0.2"), "10.0.0.1");
    wire::cm_message to_a = cm_to(GetParam(), a_.connector);
    to_a.local_connection_id ^= 1;
    inject_into(a_, forge_cm(to_a, "10.0.0.2", "10.0.0.1"), "10.0.0.2");
    EXPECT_EQ(before_a + 1, cm_bad(a_));
    EXPECT_EQ(before_b + 1, cm_bad(b_));
    expect_first_connection_intact();
}

TEST_P(HostileCm, MessageMixingTheIdsOfTwoConnectionsOfThePeerLeavesBoth) {
    // From the peer's own address, with real ids of both of its connections: the receiver's id
    // of the first and the sender's id of the second. Both ids must belong to one connection.
    const std::uint64_t before_a = cm_bad(a_);
    const std::uint64_t before_b = cm_bad(b_);
    wire::cm_message to_b = cm_to(GetParam(), b_.connector);
    to_b.local_connection_id = core_connector(links_.back().active).local_id;
    inject_into(b_, forge_cm(to_b, "10.0.0.1", "10.0.0.2"), "10.0.0.1");
    wire::cm_message to_a = cm_to(GetParam(), a_.connector);
    to_a.local_connection_id = core_connector(links_.back().passive).local_id;
    inject_into(a_, forge_cm(to_a, "10.0.0.2", "10.0.0.1"), "10.0.0.2");
    EXPECT_EQ(before_a + 1, cm_bad(a_));
    EXPECT_EQ(before_b + 1, cm_bad(b_));
    expect_first_connection_intact();
    expect_second_connection_works();
}

INSTANTIATE_TEST_SUITE_P(EveryType, HostileCm,
                         ::testing::Values(wire::cm_type::reply, wire::cm_type::ready_to_use,
                                           wire::cm_type::reject, wire::cm_type::disconnect_request,
                                           wire::cm_type::disconnect_reply),
                         [](const ::testing::TestParamInfo<wire::cm_type>& i) {
                             return ::testing::PrintToString(i.param);
                         });

// IBA 12.6.5: a requester that has not yet seen the REP sends its REQ again, with the same
// Local Communication ID. The passive side keeps one connection per (requester address, id):
// a repeat, even one arriving after the connection is up, reaches no listener.
TEST_F(Hostile, RepeatedConnectionRequestMakesNoSecondConnection) {
    const core::connector& active = core_connector(a_.connector);
    wire::cm_message req;
    req.type = wire::cm_type::request;
    req.transaction_id = active.local_id;
    req.local_connection_id = active.local_id;
    req.src_ip = ip_of("10.0.0.1");
    req.dst_ip = ip_of("10.0.0.2");
    req.src_port = active.local_address.port;
    req.dst_port = port_;
    req.qp_number = core_qp(a_.qp).qpn();
    req.inbound_read_limit = 8;
    req.outbound_read_limit = 8;
    req.path_mtu = 5;
    incoming_ = nullptr;
    inject(forge_cm(req, "10.0.0.1", "10.0.0.2"));
    settle();
    EXPECT_EQ(nullptr, incoming_) << "the repeat reached the listener";
    expect_first_connection_intact();
    // The same request under an id the requester has not used is a new request: the listener
    // hears of it (so the repeat above was ignored as a repeat, not refused as malformed).
    req.local_connection_id ^= 0x5A5A5A5A;
    req.transaction_id = req.local_connection_id;
    inject(forge_cm(req, "10.0.0.1", "10.0.0.2"));
    settle();
    ASSERT_NE(nullptr, incoming_);
    track(&incoming_->Header);
    incoming_ = nullptr;
}

TEST_F(Hostile, ConnectionIdsAreNeitherZeroNorSequential) {
    // A guessable id would let one datagram name someone else's connection.
    const std::uint32_t first = core_connector(a_.connector).local_id;
    const std::uint32_t second = core_connector(links_.back().active).local_id;
    EXPECT_NE(0u, first);
    EXPECT_NE(0u, second);
    EXPECT_NE(first, second);
    EXPECT_NE(first + 1, second);
    const std::uint32_t passive_first = core_connector(b_.connector).local_id;
    const std::uint32_t passive_second = core_connector(links_.back().passive).local_id;
    EXPECT_NE(passive_first + 1, passive_second);
}

// ---- the fuzz corpus through the live responder ------------------------------------------

std::vector<std::vector<std::byte>> corpus() {
    std::vector<std::vector<std::byte>> out;
    std::vector<std::string> names;
    if (DIR* d = ::opendir(NDKSIM_FUZZ_CORPUS_DIR)) {
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 4 && n.substr(n.size() - 4) == ".bin") {
                names.push_back(n);
            }
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
        std::ifstream in(std::string(NDKSIM_FUZZ_CORPUS_DIR "/") + n, std::ios::binary);
        std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
        std::vector<std::byte> b(raw.size());
        std::memcpy(b.data(), raw.data(), raw.size());
        out.push_back(std::move(b));
    }
    return out;
}

TEST_F(Hostile, FuzzCorpusReplayedThroughTheLiveResponder) {
    const auto frames = corpus();
    ASSERT_GE(frames.size(), 20u);
    const wire::flow f{wire::ip_address::v4(10, 0, 0, 1), wire::ip_address::v4(10, 0, 0, 2)};
    for (const auto& raw : frames) {
        // As captured (on another flow: the ICRC check drops them) ...
        if (raw.size() <= wire::k_max_frame_bytes) {
            inject(raw);
        }
        // ... and aimed at b's first QP at its expected PSN, aimed into
        // the guarded window, with the ICRC recomputed, so the checks behind the ICRC run.
        if (raw.size() < wire::bth_size + wire::icrc_size || raw.size() % 4 != 0 ||
            raw.size() > wire::k_max_frame_bytes) {
            continue;
        }
        std::vector<std::byte> aimed = raw;
        const bool cm = wire::load_be<3>(aimed.data() + 5) == 1;
        if (!cm) {
            core::qp& q = core_qp(b_.qp);
            wire::store_be<3>(aimed.data() + 5, q.qpn());
            wire::store_be<3>(aimed.data() + 9, nic::context_of(q).resp.expected_psn);
        }
        const std::size_t body = aimed.size() - wire::icrc_size;
        wire::store_icrc(aimed.data() + body,
                         wire::compute_icrc(f, std::span<const std::byte>(aimed.data(), body)));
        inject(aimed);
        expect_untouched();
        if (::testing::Test::HasFailure()) {
            return;
        }
    }
    // Which corpus frames draw a NAK depends on the order of the corpus: not checked here.
    check_naks_ = false;
    expect_second_connection_works();
}

}  // namespace
}  // namespace ndksim::testkit
