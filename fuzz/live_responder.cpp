// SPDX-License-Identifier: MIT
#include "live_responder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/abi.hpp"
#include "core/qp.hpp"
#include "nic/qp_context.hpp"
#include "wire/codec.hpp"
#include "wire/icrc.hpp"
#include "wire/opcode_table.hpp"

namespace ndksim::fuzz {
namespace {

constexpr std::size_t k_page = 4096;
constexpr std::byte k_canary{0xA5};
// b's block: canary | window (remote read/write) | canary | read sink | bystander receives.
constexpr std::size_t k_window = 1;
constexpr std::size_t k_sink = 3;
constexpr std::size_t k_receive = 4;
constexpr std::size_t k_pages = 5;
constexpr ULONG k_bystander_bytes = 64;
// Each input runs this much simulated time: far beyond one frame's processing, far below any
// connection-management timer.
constexpr ULONG64 k_run_ps = 200ULL * 1000 * 1000;

[[noreturn]] void die(const char* what, NTSTATUS s = 0) {
    std::fprintf(stderr, "live_responder: %s (%s)\n", what, ndksim_status_name(s));
    std::abort();
}

void require(NTSTATUS got, NTSTATUS want, const char* what) {
    if (got != want) {
        die(what, got);
    }
}

struct request {
    int calls = 0;
    NTSTATUS status = STATUS_PENDING;
    static void done(PVOID c, NTSTATUS s) {
        auto* r = static_cast<request*>(c);
        ++r->calls;
        r->status = s;
    }
};

void ignore_disconnect(PVOID /*context*/) {}
void ignore_create(PVOID /*context*/, NTSTATUS /*status*/, NDK_OBJECT_HEADER* /*object*/) {}
void ignore_notification(PVOID /*context*/, NTSTATUS /*status*/) {}

core::qp& core_qp(NDK_QP* qp) {
    return *api::from_ndk<core::qp>(qp, core::object_kind::qp, "live_responder");
}

/// The status of a call that may pend, once it completed (driving the loop).
NTSTATUS settle(ndksim_loop* loop, NTSTATUS returned, const request& r) {
    if (returned != STATUS_PENDING) {
        return returned;
    }
    while (r.calls == 0) {
        if (ndksim_loop_run_one(loop) == FALSE) {
            return STATUS_PENDING;
        }
    }
    return r.status;
}

void close_object(ndksim_loop* loop, NDK_OBJECT_HEADER* o) {
    request closed;
    // Every dispatch table starts with its close function; the QP's serves for all kinds.
    const NTSTATUS s = reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(
        o, [](PVOID c) { request::done(c, STATUS_SUCCESS); }, &closed);
    require(settle(loop, s, closed), STATUS_SUCCESS, "a close");
}

void release_region(ndksim_loop* loop, NDK_MR* mr, MDL* mdl) {
    request deregistered;
    settle(loop, mr->Dispatch->NdkDeregisterMr(mr, request::done, &deregistered), deregistered);
    close_object(loop, &mr->Header);
    IoFreeMdl(mdl);
}

SOCKADDR_IN ipv4(const char* address, USHORT port) {
    SOCKADDR_IN a{};
    a.sin_family = WS_AF_INET;
    a.sin_port = static_cast<USHORT>((port >> 8) | (port << 8));
    unsigned o[4] = {};
    std::sscanf(address, "%u.%u.%u.%u", &o[0], &o[1], &o[2], &o[3]);
    auto* b = reinterpret_cast<unsigned char*>(&a.sin_addr);
    for (int i = 0; i < 4; ++i) {
        b[i] = static_cast<unsigned char>(o[i]);
    }
    return a;
}

NDK_MR* register_pages(NDK_PD* pd, std::byte* first, std::size_t pages, ULONG flags, MDL*& mdl) {
    mdl = IoAllocateMdl(first, static_cast<ULONG>(pages * k_page), FALSE, FALSE, nullptr);
    MmBuildMdlForNonPagedPool(mdl);
    NDK_MR* mr = nullptr;
    request created;
    require(pd->Dispatch->NdkCreateMr(pd, FALSE, ignore_create, &created, &mr), STATUS_SUCCESS,
            "NdkCreateMr");
    request registered;
    require(mr->Dispatch->NdkRegisterMr(mr, mdl, pages * k_page, flags, request::done, &registered),
            STATUS_SUCCESS, "NdkRegisterMr");
    return mr;
}

}  // namespace

live_responder::live_responder() {
    require(ndksim_loop_create(&loop_), STATUS_SUCCESS, "ndksim_loop_create");
    make_side(a_, "10.0.0.1", 16000);
    make_side(b_, "10.0.0.2", 0);  // no transport timer: b's READ stays outstanding
    make_side(c_, "10.0.0.3", 16000);
    std::fill(b_.bytes, b_.bytes + k_pages * k_page, k_canary);
    listener_ = nullptr;
    require(b_.adapter->Dispatch->NdkCreateListener(b_.adapter, on_connect, this, ignore_create,
                                                    nullptr, &listener_),
            STATUS_SUCCESS, "NdkCreateListener");
    SOCKADDR_IN any = ipv4("0.0.0.0", 0);
    request listened;
    require(settle(loop_,
                   listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&any),
                                                  sizeof any, request::done, &listened),
                   listened),
            STATUS_SUCCESS, "NdkListen");
    SOCKADDR_IN bound{};
    ULONG size = sizeof bound;
    require(listener_->Dispatch->NdkGetLocalAddress(listener_, reinterpret_cast<PSOCKADDR>(&bound),
                                                    &size),
            STATUS_SUCCESS, "NdkGetLocalAddress");
    port_ = static_cast<USHORT>((bound.sin_port >> 8) | (bound.sin_port << 8));
    connect(c_, bystander_);
    build_victim();
}

live_responder::~live_responder() {
    ndksim_adapter_cut_link(a_.nic, FALSE);
    close_link(a_, victim_);
    close_link(c_, bystander_);
    close_object(loop_, &listener_->Header);
    for (side* s : {&a_, &b_, &c_}) {
        release_region(loop_, s->mr, s->mdl);
        if (s == &b_) {
            release_region(loop_, window_mr_, window_mdl_);
        }
        close_object(loop_, &s->cq->Header);
        close_object(loop_, &s->pd->Header);
        ndksim_close_ndk_adapter(s->nic, s->adapter);
        ndksim_adapter_destroy(s->nic);
        std::free(s->bytes);
    }
    ndksim_loop_destroy(loop_);
}

void live_responder::make_side(side& s, const char* address, ULONG ack_timeout_us) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.loop = loop_;
    c.address = address;
    c.ack_timeout_us = ack_timeout_us;
    require(ndksim_adapter_create(&c, &s.nic), STATUS_SUCCESS, "ndksim_adapter_create");
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    require(ndksim_open_ndk_adapter(s.nic, &p, &s.adapter), STATUS_SUCCESS,
            "ndksim_open_ndk_adapter");
    require(s.adapter->Dispatch->NdkCreatePd(s.adapter, ignore_create, nullptr, &s.pd),
            STATUS_SUCCESS, "NdkCreatePd");
    require(s.adapter->Dispatch->NdkCreateCq(s.adapter, 1024, ignore_notification, nullptr, nullptr,
                                             ignore_create, nullptr, &s.cq),
            STATUS_SUCCESS, "NdkCreateCq");
    s.bytes = static_cast<std::byte*>(std::aligned_alloc(k_page, k_pages * k_page));
    std::memset(s.bytes, 0, k_pages * k_page);
    if (&s == &b_) {
        // The window alone is open to peers; the sink and the receives are local-only.
        window_mr_ = register_pages(s.pd, s.bytes + k_window * k_page, 1,
                                    NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                        NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                    window_mdl_);
        window_token_ = window_mr_->Dispatch->NdkGetRemoteTokenFromMr(window_mr_);
        s.mr = register_pages(s.pd, s.bytes + k_sink * k_page, 2, NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
                              s.mdl);
    } else {
        s.mr = register_pages(s.pd, s.bytes, k_pages,
                              NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                  NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                              s.mdl);
    }
    s.token = s.mr->Dispatch->NdkGetLocalTokenFromMr(s.mr);
}

NDK_QP* live_responder::make_qp(side& s) {
    NDK_QP* qp = nullptr;
    require(s.pd->Dispatch->NdkCreateQp(s.pd, s.cq, s.cq, nullptr, 64, 64, 4, 4, 128, ignore_create,
                                        nullptr, &qp),
            STATUS_SUCCESS, "NdkCreateQp");
    return qp;
}

void live_responder::on_connect(PVOID context, NDK_CONNECTOR* connector) {
    static_cast<live_responder*>(context)->incoming_ = connector;
}

void live_responder::connect(side& from, link& l) {
    l.active = make_qp(from);
    l.passive = make_qp(b_);
    require(from.adapter->Dispatch->NdkCreateConnector(from.adapter, ignore_create, nullptr,
                                                       &l.active_connector),
            STATUS_SUCCESS, "NdkCreateConnector");
    SOCKADDR_IN src = ipv4(&from == &a_ ? "10.0.0.1" : "10.0.0.3", 0);
    SOCKADDR_IN dst = ipv4("10.0.0.2", port_);
    request connected;
    require(l.active_connector->Dispatch->NdkConnect(l.active_connector, l.active,
                                                     reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                                                     reinterpret_cast<PSOCKADDR>(&dst), sizeof dst,
                                                     8, 8, nullptr, 0, request::done, &connected),
            STATUS_PENDING, "NdkConnect");
    while (incoming_ == nullptr) {
        if (ndksim_loop_run_one(loop_) == FALSE) {
            die("no connect event");
        }
    }
    l.passive_connector = incoming_;
    incoming_ = nullptr;
    request accepted;
    require(l.passive_connector->Dispatch->NdkAccept(l.passive_connector, l.passive, 8, 8, nullptr,
                                                     0, ignore_disconnect, nullptr, request::done,
                                                     &accepted),
            STATUS_PENDING, "NdkAccept");
    require(settle(loop_, STATUS_PENDING, connected), STATUS_SUCCESS, "NdkConnect's completion");
    request completed;
    require(settle(loop_,
                   l.active_connector->Dispatch->NdkCompleteConnect(
                       l.active_connector, ignore_disconnect, nullptr, request::done, &completed),
                   completed),
            STATUS_SUCCESS, "NdkCompleteConnect");
    require(settle(loop_, STATUS_PENDING, accepted), STATUS_SUCCESS, "NdkAccept's completion");
}

void live_responder::close_link(side& from, link& l) {
    for (NDK_CONNECTOR* c : {l.active_connector, l.passive_connector}) {
        if (c != nullptr) {
            close_object(loop_, &c->Header);
        }
    }
    for (NDK_QP* q : {l.active, l.passive}) {
        if (q != nullptr) {
            close_object(loop_, &q->Header);
        }
    }
    l = link{};
    drain_cq(from);
    drain_cq(b_);
}

void live_responder::build_victim() {
    require(ndksim_adapter_cut_link(a_.nic, FALSE), STATUS_SUCCESS, "restoring a's link");
    connect(a_, victim_);
    // From here on a hears nothing and answers nothing: b's READ stays outstanding, and only
    // the frames the fuzzer injects reach b's victim QP.
    require(ndksim_adapter_cut_link(a_.nic, TRUE), STATUS_SUCCESS, "cutting a's link");
    NDK_SGE sink{};
    sink.VirtualAddress = b_.bytes + k_sink * k_page;
    sink.Length = k_page;
    sink.MemoryRegionToken = b_.token;
    require(victim_.passive->Dispatch->NdkRead(victim_.passive, nullptr, &sink, 1,
                                               reinterpret_cast<UINT64>(a_.bytes),
                                               a_.mr->Dispatch->NdkGetRemoteTokenFromMr(a_.mr), 0),
            STATUS_SUCCESS, "NdkRead");
    ndksim_loop_run_for(loop_, k_run_ps);
}

void live_responder::drain_cq(side& s) {
    NDK_RESULT_EX r[16];
    while (s.cq->Dispatch->NdkGetCqResultsEx(s.cq, r, 16) > 0) {
    }
}

bool live_responder::victim_dead() const {
    return core_qp(victim_.passive).state() != core::qp_state::connected;
}

std::vector<std::byte> live_responder::aim(std::span<const std::uint8_t> frame,
                                           bool at_expected_psn) const {
    std::vector<std::byte> out(frame.size());
    std::memcpy(out.data(), frame.data(), frame.size());
    if (out.size() < wire::bth_size + wire::icrc_size || out.size() > wire::k_max_frame_bytes) {
        return out;
    }
    core::qp& q = core_qp(victim_.passive);
    wire::store_be<3>(out.data() + 5, q.qpn());
    if (at_expected_psn) {
        wire::store_be<3>(out.data() + 9, nic::context_of(q).resp.expected_psn);
        // A READ or WRITE aimed this way carries the window's real key, and its address is
        // moved to within a page of the window: the fuzzer then probes the range checks right
        // next to the canary pages instead of failing the key check.
        const wire::opcode_info& info = wire::opcode_lookup(std::to_integer<std::uint32_t>(out[0]));
        const std::size_t reth = info.offset_of(wire::ext::reth);
        if (info.valid && reth != 0 && reth + wire::reth_size <= out.size()) {
            const auto window = reinterpret_cast<std::uint64_t>(b_.bytes + k_window * k_page);
            const std::uint64_t va = wire::load_be<8>(out.data() + reth);
            wire::store_be<8>(out.data() + reth, window - k_page + va % (3 * k_page));
            wire::store_be<4>(out.data() + reth + 8, window_token_);
        }
    }
    const wire::flow f{wire::ip_address::v4(10, 0, 0, 1), wire::ip_address::v4(10, 0, 0, 2)};
    const std::size_t body = out.size() - wire::icrc_size;
    wire::store_icrc(out.data() + body,
                     wire::compute_icrc(f, std::span<const std::byte>(out.data(), body)));
    return out;
}

std::string live_responder::feed(std::span<const std::uint8_t> input) {
    ++inputs_;
    if (input.size() < 2 || input.size() - 1 > wire::k_max_frame_bytes) {
        return "";
    }
    const std::uint8_t mode = input[0] % 4;
    const std::span<const std::uint8_t> frame = input.subspan(1);
    std::vector<std::byte> bytes;
    if (mode >= 2) {
        bytes = aim(frame, mode == 2);
    } else {
        bytes.resize(frame.size());
        std::memcpy(bytes.data(), frame.data(), frame.size());
    }
    const NTSTATUS injected =
        ndksim_adapter_inject_frame(b_.nic, bytes.data(), static_cast<ULONG>(bytes.size()),
                                    mode == 1 ? "10.0.0.9" : "10.0.0.1");
    if (injected != STATUS_SUCCESS) {
        return std::string("ndksim_adapter_inject_frame: ") + ndksim_status_name(injected);
    }
    ndksim_loop_run_for(loop_, k_run_ps);
    return check();
}

std::string live_responder::check() {
    for (std::size_t page : {std::size_t{0}, std::size_t{2}}) {
        const std::byte* p = b_.bytes + page * k_page;
        if (std::any_of(p, p + k_page, [](std::byte v) { return v != k_canary; })) {
            return "a canary page around b's window changed";
        }
    }
    // The bystander connection carries a SEND, byte for byte.
    drain_cq(b_);
    drain_cq(c_);
    ++bystander_round_;
    std::byte* landing = b_.bytes + k_receive * k_page;
    std::memset(landing, 0, k_bystander_bytes);
    for (ULONG i = 0; i < k_bystander_bytes; ++i) {
        c_.bytes[i] = static_cast<std::byte>((bystander_round_ * 131 + i) & 0xFF);
    }
    NDK_SGE r{};
    r.VirtualAddress = landing;
    r.Length = k_bystander_bytes;
    r.MemoryRegionToken = b_.token;
    if (bystander_.passive->Dispatch->NdkReceive(bystander_.passive, &bystander_, &r, 1) !=
        STATUS_SUCCESS) {
        return "the bystander QP refused a receive";
    }
    NDK_SGE s{};
    s.VirtualAddress = c_.bytes;
    s.Length = k_bystander_bytes;
    s.MemoryRegionToken = c_.token;
    if (bystander_.active->Dispatch->NdkSend(bystander_.active, nullptr, &s, 1, 0) !=
        STATUS_SUCCESS) {
        return "the bystander QP refused a send";
    }
    ndksim_loop_run_for(loop_, k_run_ps);
    bool received = false;
    NDK_RESULT_EX got[16];
    ULONG n = 0;
    while ((n = b_.cq->Dispatch->NdkGetCqResultsEx(b_.cq, got, 16)) > 0) {
        for (ULONG i = 0; i < n; ++i) {
            if (got[i].RequestContext == &bystander_) {
                if (got[i].Status != STATUS_SUCCESS ||
                    got[i].BytesTransferred != k_bystander_bytes) {
                    return std::string("the bystander's receive completed with ") +
                           ndksim_status_name(got[i].Status);
                }
                received = true;
            }
        }
    }
    if (!received) {
        return "the bystander's SEND never arrived";
    }
    if (std::memcmp(landing, c_.bytes, k_bystander_bytes) != 0) {
        return "the bystander's SEND arrived with other bytes";
    }
    if (victim_dead()) {
        // The input killed the connection it claimed to belong to: allowed. Build it again for
        // the next input.
        ++rebuilt_;
        close_link(a_, victim_);
        build_victim();
    }
    return "";
}

}  // namespace ndksim::fuzz
