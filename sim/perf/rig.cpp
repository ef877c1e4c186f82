// SPDX-License-Identifier: MIT
#include "rig.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "handshake.hpp"

namespace ndksim::perf {
namespace {

constexpr USHORT k_port = 7471;       // the ND port side b listens on
constexpr USHORT k_sync_port = 7472;  // an ND port nobody listens on (rig::sync_clock)

// One create, request or close completion, from any thread.
struct done {
    std::atomic<int> calls{0};
    std::atomic<NTSTATUS> status{STATUS_PENDING};
    std::atomic<NDK_OBJECT_HEADER*> object{nullptr};
    static VOID on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
        auto* d = static_cast<done*>(c);
        d->object.store(o);
        d->status.store(s);
        d->calls.fetch_add(1, std::memory_order_release);
    }
    static VOID on_request(PVOID c, NTSTATUS s) {
        auto* d = static_cast<done*>(c);
        d->status.store(s);
        d->calls.fetch_add(1, std::memory_order_release);
    }
    static VOID on_close(PVOID c) { static_cast<done*>(c)->calls.fetch_add(1); }
    bool finished() const { return calls.load(std::memory_order_acquire) > 0; }
};

void check(NTSTATUS s, const std::string& what) {
    if (s != STATUS_SUCCESS && s != STATUS_PENDING) {
        throw perf_error(what + ": " + ndksim_status_name(s));
    }
}

SOCKADDR_IN ipv4(const char* text, USHORT port) {
    SOCKADDR_IN a{};
    a.sin_family = WS_AF_INET;
    a.sin_port = static_cast<USHORT>((port >> 8) | (port << 8));
    unsigned b[4] = {};
    std::sscanf(text, "%u.%u.%u.%u", &b[0], &b[1], &b[2], &b[3]);
    auto* bytes = reinterpret_cast<unsigned char*>(&a.sin_addr);
    for (int i = 0; i < 4; ++i) {
        bytes[i] = static_cast<unsigned char>(b[i]);
    }
    return a;
}

ndksim_wire to_wire(wire_kind w) {
    return w == wire_kind::udp   ? NDKSIM_WIRE_UDP
           : w == wire_kind::tcp ? NDKSIM_WIRE_TCP
                                 : NDKSIM_WIRE_INPROC;
}

}  // namespace

NDK_SGE side::sge(std::size_t offset, std::uint64_t length) const {
    NDK_SGE s{};
    s.VirtualAddress = buffer + offset;
    s.Length = static_cast<ULONG>(length);
    s.MemoryRegionToken = local_token;
    return s;
}

VOID rig::on_connect_event(PVOID context, NDK_CONNECTOR* connector) {
    auto* r = static_cast<rig*>(context);
    r->incoming_.store(connector);
    r->wake();
}

VOID rig::on_disconnect_event(PVOID context) {
    auto* r = static_cast<rig*>(context);
    r->disconnects_.fetch_add(1);
    r->wake();
}

VOID rig::on_cq_notification(PVOID context, NTSTATUS) {
    static_cast<rig*>(context)->wake();
}

void rig::wake() noexcept {
    {
        std::lock_guard lock(wake_mutex_);
        ++wakes_;
    }
    woken_.notify_all();
}

rig::rig(const options& o, std::size_t buffer_size)
    : poll_(o.poll), synchronized_(o.time == time_kind::synchronized) {
    pcap_ = o.pcap;
    port_ = o.port;
    if (!o.threaded) {
        check(ndksim_loop_create(&loop_), "ndksim_loop_create");
    }
    a_.name = "perf-a";
    b_.name = "perf-b";
    a_.buffer_size = b_.buffer_size = buffer_size;
    try {
        // In-process adapters take addresses of their own; socket wires need local ones.
        const bool inproc = o.wire == wire_kind::inproc;
        address_a_ = inproc ? "10.9.0.1" : k_client_address;
        address_b_ = inproc ? "10.9.0.2" : k_server_address;
        if (o.who == role::client) {
            address_a_ = o.local.empty() ? address_a_ : o.local;
            address_b_ = o.peer.empty() ? address_b_ : o.peer;
            open_sockets(o);
            open_side(a_, o);
            for (std::uint32_t i = 0; i < o.qps; ++i) {
                add_endpoint(a_, o);
            }
            sync_clock();
            for (std::size_t i = 0; i < o.qps; ++i) {
                connect_remote(i, o);
            }
            return;
        }
        if (o.who == role::server) {
            address_b_ = o.local.empty() ? address_b_ : o.local;
            open_sockets(o);
            open_side(b_, o);
            for (std::uint32_t i = 0; i < o.qps; ++i) {
                add_endpoint(b_, o);
            }
            listen();
            return;
        }
        open_sockets(o);
        open_side(a_, o);
        open_side(b_, o);
        for (std::uint32_t i = 0; i < o.qps; ++i) {
            add_endpoint(a_, o);
            add_endpoint(b_, o);
        }
        listen();
        for (std::size_t i = 0; i < o.qps; ++i) {
            connect(i);
        }
    } catch (...) {
        teardown();
        throw;
    }
}

void rig::listen() {
    done created;
    check(b_.adapter->Dispatch->NdkCreateListener(b_.adapter, on_connect_event, this,
                                                  done::on_create, &created, &listener_),
          "NdkCreateListener");
    wait([&] { return listener_ != nullptr || created.finished(); }, "NdkCreateListener");
    if (listener_ == nullptr) {
        listener_ = reinterpret_cast<NDK_LISTENER*>(created.object.load());
    }
    SOCKADDR_IN at = ipv4(address_b_.c_str(), k_port);
    done listened;
    const NTSTATUS s = listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&at),
                                                      sizeof at, done::on_request, &listened);
    check(s, "NdkListen");
    if (s == STATUS_PENDING) {
        wait([&] { return listened.finished(); }, "NdkListen");
        check(listened.status.load(), "NdkListen");
    }
}

// Creates the adapters of this process. With a port search (the default of the local and both
// roles), a port some other run holds is skipped: every adapter of the run must bind the same
// port, so when side b finds it taken side a is destroyed and both move on.
void rig::open_sockets(const options& o) {
    const bool need_a = o.who != role::server;
    const bool need_b = o.who == role::local || o.who == role::server;
    const int attempts = o.port_search && o.wire != wire_kind::inproc ? 64 : 1;
    NTSTATUS s = STATUS_ADDRESS_ALREADY_EXISTS;
    for (int i = 0; i < attempts && s == STATUS_ADDRESS_ALREADY_EXISTS; ++i) {
        if (i > 0) {
            port_ = static_cast<std::uint16_t>(port_ == 65535 ? 1024 : port_ + 1);
        }
        s = need_a ? create_adapter(a_, address_a_.c_str(), o, true) : STATUS_SUCCESS;
        if (s == STATUS_SUCCESS && need_b) {
            s = create_adapter(b_, address_b_.c_str(), o, !need_a);
            if (s == STATUS_ADDRESS_ALREADY_EXISTS && a_.nic != nullptr) {
                ndksim_adapter_destroy(a_.nic);
                a_.nic = nullptr;
            }
        }
    }
    if (s == STATUS_SUCCESS) {
        return;
    }
    std::string why = std::string("ndksim_adapter_create (") + name_of(o.wire) + " wire";
    if (o.wire != wire_kind::inproc) {
        why += ", port " + std::to_string(port_);
    }
    if (!o.profile.empty()) {
        why += ", profile " + o.profile;
    }
    why += "): " + std::string(ndksim_status_name(s));
    if (s == STATUS_ADDRESS_ALREADY_EXISTS) {
        throw port_taken_error(why + " (the address and port are in use; pick another --port)");
    }
    if (s == STATUS_INVALID_ADDRESS) {
        why += " (the address is not one of this host's; see --local)";
    } else {
        why += " (the library log says why)";
    }
    throw perf_error(why);
}

NTSTATUS rig::create_adapter(side& s, const char* address, const options& o, bool first) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.loop = loop_;
    c.name = s.name.c_str();
    c.address = address;
    c.wire = to_wire(o.wire);
    c.port = port_;
    // Sends wait for the peer's receive for ever, as perftest runs (RNR retry 7, IBA's "for
    // ever"): the other side reposts its receives on its own schedule, in another thread or
    // process, and a late repost must cost time in the measurement, not fail it.
    c.rnr_retry_limit = 0xFFFFFFFF;
    if (o.ack_timeout_us != 0) {
        c.ack_timeout_us = o.ack_timeout_us;
    }
    if (!o.profile.empty()) {
        c.profile = o.profile.c_str();
    }
    if (first && !o.pcap.empty()) {
        c.pcap_path = o.pcap.c_str();
    }
    if (o.threaded) {
        static constexpr ndksim_poll_policy k_policy[] = {
            NDKSIM_POLL_SPIN, NDKSIM_POLL_BLOCK, NDKSIM_POLL_SPIN_THEN_BLOCK, NDKSIM_POLL_CONSUMER};
        static_assert(static_cast<int>(poll_kind::spin) == 0 &&
                      static_cast<int>(poll_kind::block) == 1 &&
                      static_cast<int>(poll_kind::spin_then_block) == 2 &&
                      static_cast<int>(poll_kind::consumer) == 3);
        c.poll_policy = k_policy[static_cast<int>(o.poll)];
        static constexpr ndksim_time_mode k_time[] = {NDKSIM_TIME_VIRTUAL, NDKSIM_TIME_PACED,
                                                      NDKSIM_TIME_SYNCHRONIZED};
        c.time_mode = k_time[static_cast<int>(o.time)];
        // This tool's waits always say when they wait, so the only stalls the consumer grace
        // ends are a starved thread's: a busy host gets a second before a step is inexact.
        c.sync_consumer_grace_ms = 1000;
    }
    return ndksim_adapter_create(&c, &s.nic);
}

void rig::open_side(side& s, const options&) {
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    if (ndksim_open_ndk_adapter(s.nic, &p, &s.adapter) != NDIS_STATUS_SUCCESS) {
        throw perf_error("ndksim_open_ndk_adapter failed");
    }
    done pd;
    check(s.adapter->Dispatch->NdkCreatePd(s.adapter, done::on_create, &pd, &s.pd), "NdkCreatePd");
    wait([&] { return s.pd != nullptr || pd.finished(); }, "NdkCreatePd");
    if (s.pd == nullptr) {
        s.pd = reinterpret_cast<NDK_PD*>(pd.object.load());
    }
    s.buffer = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, s.buffer_size));
    if (s.buffer == nullptr) {
        throw perf_error("out of memory for a " + std::to_string(s.buffer_size) + "-byte buffer");
    }
    std::memset(s.buffer, 0, s.buffer_size);
    s.va = reinterpret_cast<UINT64>(s.buffer);
    s.mdl = IoAllocateMdl(s.buffer, static_cast<ULONG>(s.buffer_size), FALSE, FALSE, nullptr);
    if (s.mdl == nullptr) {
        throw perf_error("IoAllocateMdl failed");
    }
    MmBuildMdlForNonPagedPool(s.mdl);
    done mr;
    check(s.pd->Dispatch->NdkCreateMr(s.pd, FALSE, done::on_create, &mr, &s.mr), "NdkCreateMr");
    wait([&] { return s.mr != nullptr || mr.finished(); }, "NdkCreateMr");
    if (s.mr == nullptr) {
        s.mr = reinterpret_cast<NDK_MR*>(mr.object.load());
    }
    done reg;
    const NTSTATUS r = s.mr->Dispatch->NdkRegisterMr(s.mr, s.mdl, s.buffer_size,
                                                     NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                                         NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                                         NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                                     done::on_request, &reg);
    check(r, "NdkRegisterMr");
    if (r == STATUS_PENDING) {
        wait([&] { return reg.finished(); }, "NdkRegisterMr");
        check(reg.status.load(), "NdkRegisterMr");
    }
    s.local_token = s.mr->Dispatch->NdkGetLocalTokenFromMr(s.mr);
    s.remote_token = s.mr->Dispatch->NdkGetRemoteTokenFromMr(s.mr);
}

void rig::add_endpoint(side& s, const options& o) {
    endpoint ep;
    const ULONG depth = o.outstanding + 16;
    done cq;
    check(s.adapter->Dispatch->NdkCreateCq(s.adapter, 4 * depth, on_cq_notification, this, nullptr,
                                           done::on_create, &cq, &ep.cq),
          "NdkCreateCq");
    wait([&] { return ep.cq != nullptr || cq.finished(); }, "NdkCreateCq");
    if (ep.cq == nullptr) {
        ep.cq = reinterpret_cast<NDK_CQ*>(cq.object.load());
    }
    done qp;
    check(s.pd->Dispatch->NdkCreateQp(s.pd, ep.cq, ep.cq, nullptr, depth, depth, 1, 1,
                                      o.inline_size, done::on_create, &qp, &ep.qp),
          "NdkCreateQp");
    wait([&] { return ep.qp != nullptr || qp.finished(); }, "NdkCreateQp");
    if (ep.qp == nullptr) {
        ep.qp = reinterpret_cast<NDK_QP*>(qp.object.load());
    }
    done conn;
    check(s.adapter->Dispatch->NdkCreateConnector(s.adapter, done::on_create, &conn, &ep.connector),
          "NdkCreateConnector");
    wait([&] { return ep.connector != nullptr || conn.finished(); }, "NdkCreateConnector");
    if (ep.connector == nullptr) {
        ep.connector = reinterpret_cast<NDK_CONNECTOR*>(conn.object.load());
    }
    s.eps.push_back(ep);
}

void rig::connect(std::size_t i) {
    endpoint& ea = a_.eps[i];
    endpoint& eb = b_.eps[i];
    // b's own connector is not used: the listener hands b a connector for each request.
    close(&eb.connector->Header);
    eb.connector = nullptr;
    SOCKADDR_IN from = ipv4(address_a_.c_str(), 0);
    SOCKADDR_IN to = ipv4(address_b_.c_str(), k_port);
    incoming_.store(nullptr);
    done connected;
    check(
        ea.connector->Dispatch->NdkConnect(ea.connector, ea.qp, reinterpret_cast<PSOCKADDR>(&from),
                                           sizeof from, reinterpret_cast<PSOCKADDR>(&to), sizeof to,
                                           16, 16, nullptr, 0, done::on_request, &connected),
        "NdkConnect");
    wait([&] { return incoming_.load() != nullptr || connected.finished(); },
         "the connect event on side b");
    if (incoming_.load() == nullptr) {
        check(connected.status.load(), "NdkConnect");
        throw perf_error("NdkConnect completed without a connect event on side b");
    }
    eb.connector = incoming_.load();
    done accepted;
    check(eb.connector->Dispatch->NdkAccept(eb.connector, eb.qp, 16, 16, nullptr, 0, nullptr,
                                            nullptr, done::on_request, &accepted),
          "NdkAccept");
    wait([&] { return connected.finished(); }, "NdkConnect");
    check(connected.status.load(), "NdkConnect");
    done completed;
    check(ea.connector->Dispatch->NdkCompleteConnect(ea.connector, nullptr, nullptr,
                                                     done::on_request, &completed),
          "NdkCompleteConnect");
    wait([&] { return completed.finished() && accepted.finished(); }, "NdkAccept");
    check(completed.status.load(), "NdkCompleteConnect");
    check(accepted.status.load(), "NdkAccept");
}

// Each process's simulated clock runs from its adapter's creation, and a frame from the peer
// pulls the receiver's clock up to the frame's departure (docs/wire-format.md, "Time across
// processes"). A server started seconds before the client is seconds ahead, and the first
// answer it sends would jump the client's clock past the timer of the client's connection
// request, which would then fail with STATUS_IO_TIMEOUT. So the client first asks for an ND
// port nobody listens on: the server's refusal (or the timer, which the refusal's jump fires)
// brings the clocks together, and only then does the real connection request start its timer.
void rig::sync_clock() {
    endpoint& ea = a_.eps.front();
    NDK_CONNECTOR* probe = nullptr;
    done created;
    check(a_.adapter->Dispatch->NdkCreateConnector(a_.adapter, done::on_create, &created, &probe),
          "NdkCreateConnector");
    wait([&] { return probe != nullptr || created.finished(); }, "NdkCreateConnector");
    if (probe == nullptr) {
        probe = reinterpret_cast<NDK_CONNECTOR*>(created.object.load());
    }
    SOCKADDR_IN from = ipv4(address_a_.c_str(), 0);
    SOCKADDR_IN to = ipv4(address_b_.c_str(), k_sync_port);
    done answered;
    const NTSTATUS s = probe->Dispatch->NdkConnect(
        probe, ea.qp, reinterpret_cast<PSOCKADDR>(&from), sizeof from,
        reinterpret_cast<PSOCKADDR>(&to), sizeof to, 0, 0, nullptr, 0, done::on_request, &answered);
    if (s == STATUS_PENDING) {
        wait([&] { return answered.finished(); },
             ("an answer from " + address_b_ + " (is the server running?)").c_str());
    }
    close(&probe->Header);
}

void rig::connect_remote(std::size_t i, const options& o) {
    endpoint& ea = a_.eps[i];
    SOCKADDR_IN from = ipv4(address_a_.c_str(), 0);
    SOCKADDR_IN to = ipv4(address_b_.c_str(), k_port);
    auto request = encode(request_for(o, {a_.va, a_.remote_token}));
    done connected;
    check(ea.connector->Dispatch->NdkConnect(
              ea.connector, ea.qp, reinterpret_cast<PSOCKADDR>(&from), sizeof from,
              reinterpret_cast<PSOCKADDR>(&to), sizeof to, 16, 16, request.data(),
              static_cast<ULONG>(request.size()), done::on_request, &connected),
          "NdkConnect");
    const std::string server = address_b_ + " (port " + std::to_string(port_) + ")";
    wait([&] { return connected.finished(); }, ("an answer from the server at " + server).c_str());
    if (connected.status.load() == STATUS_CONNECTION_REFUSED) {
        throw perf_error(
            "the server at " + server +
            " refused the connection: run both sides with the same test, -s/-a/--sizes, "
            "-n, --warmup, -q, -t and -I (the server "
            "names the difference)");
    }
    check(connected.status.load(), "NdkConnect to " + server);
    std::array<std::byte, 64> data{};
    ULONG length = data.size();
    check(ea.connector->Dispatch->NdkGetConnectionData(ea.connector, nullptr, nullptr, data.data(),
                                                       &length),
          "NdkGetConnectionData");
    const auto reply = decode_reply(data.data(), length);
    if (!reply) {
        throw perf_error("the peer at " + server + " accepted with " + std::to_string(length) +
                         " bytes of private data that are not an ndksim-perf server's");
    }
    b_.va = reply->address;
    b_.remote_token = reply->token;
    done completed;
    check(ea.connector->Dispatch->NdkCompleteConnect(ea.connector, on_disconnect_event, this,
                                                     done::on_request, &completed),
          "NdkCompleteConnect");
    wait([&] { return completed.finished(); }, "NdkCompleteConnect");
    check(completed.status.load(), "NdkCompleteConnect");
}

void rig::accept(const options& o) {
    const connect_request mine = request_for(o, {});
    for (std::size_t i = 0; i < b_.eps.size();) {
        NDK_CONNECTOR* c = nullptr;
        // The client connects its QPs one after another, each once the previous one is
        // accepted, so one slot holds every request.
        wait_unbounded([&] { return (c = incoming_.exchange(nullptr)) != nullptr; },
                       "a connection request");
        std::array<std::byte, 64> data{};
        ULONG length = data.size();
        const NTSTATUS got =
            c->Dispatch->NdkGetConnectionData(c, nullptr, nullptr, data.data(), &length);
        const auto request =
            got == STATUS_SUCCESS ? decode_request(data.data(), length) : std::nullopt;
        std::string why;
        if (!request) {
            why = "a connection request that is not ndksim-perf's (" + std::to_string(length) +
                  " bytes of private data)";
        } else if (const std::string diff = mismatch(mine, *request); !diff.empty()) {
            why = "a client that runs another workload: " + diff;
        }
        if (!why.empty()) {
            // Refused (the client hears STATUS_CONNECTION_REFUSED), and the server goes on
            // waiting for a client with the same workload.
            std::fprintf(stderr, "ndksim-perf server: refused %s\n", why.c_str());
            c->Dispatch->NdkReject(c, nullptr, 0);
            close(&c->Header);
            continue;
        }
        a_.va = request->buffer.address;
        a_.remote_token = request->buffer.token;
        endpoint& eb = b_.eps[i];
        close(&eb.connector->Header);  // the listener hands b a connector for each request
        eb.connector = c;
        const auto reply = encode(remote_buffer{b_.va, b_.remote_token});
        done accepted;
        check(c->Dispatch->NdkAccept(c, eb.qp, 16, 16, const_cast<std::byte*>(reply.data()),
                                     static_cast<ULONG>(reply.size()), on_disconnect_event, this,
                                     done::on_request, &accepted),
              "NdkAccept");
        wait([&] { return accepted.finished(); }, "the client's NdkCompleteConnect");
        check(accepted.status.load(), "NdkAccept");
        ++i;
    }
}

void rig::disconnect() {
    side& s = remote_b() ? a_ : b_;
    for (endpoint& ep : s.eps) {
        if (ep.connector == nullptr) {
            continue;
        }
        done d;
        // A connection the peer already ended may refuse or fail the disconnect: either way
        // it is over, which is all this waits for.
        if (ep.connector->Dispatch->NdkDisconnect(ep.connector, done::on_request, &d) ==
            STATUS_PENDING) {
            wait([&] { return d.finished(); }, "NdkDisconnect");
        }
    }
}

void rig::step(const char* waiting_for) {
    if (loop_ != nullptr) {
        if (ndksim_loop_run_one(loop_) == FALSE) {
            throw perf_error(std::string("the simulation went idle waiting for ") + waiting_for);
        }
        return;
    }
    // One clock read per step serves both the deadline and the spin window: a spinning wait
    // steps millions of times a second, and each read took the thread from the engines'.
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline_) {
        throw perf_error(std::string("60 s without progress waiting for ") + waiting_for);
    }
    // Closing this side's objects waits for nothing of the server's, which may have gone.
    if (remote_b() && !tearing_down_ && disconnects_.load() > 0) {
        throw perf_error(std::string("the server disconnected while this side waited for ") +
                         waiting_for);
    }
    if (synchronized_) {
        wait_synchronized();
        return;
    }
    if (poll_ == poll_kind::consumer) {
        // This thread runs the engines (NDKSIM_POLL_CONSUMER): a pass of each, and the core
        // goes to another thread only when neither had anything to do.
        ULONG ran = 0;
        for (side* s : {&a_, &b_}) {
            if (s->nic != nullptr) {
                ran += ndksim_adapter_progress(s->nic);
            }
        }
        if (ran == 0) {
            std::this_thread::yield();
        }
        return;
    }
    if (now < spin_until_) {
        std::this_thread::yield();
    } else {
        block();
    }
}

// Synchronized time moves on only once the consumer has reacted to what it was shown (docs/
// timing.md): so this thread takes every completion as soon as it is queued (the counts are
// what the tests look at) and then waits in ndksim_adapter_wait, which says it has reacted and
// returns after the next event that showed it something. An incoming write's last byte is
// such an event while a thread waits there, so the watched byte of a write test is seen at
// the modelled instant it lands.
void rig::wait_synchronized() {
    ndksim_adapter* nic = nullptr;
    std::uint64_t before = 0;
    std::uint64_t after = 0;
    for (side* s : {&a_, &b_}) {
        if (s->nic == nullptr) {
            continue;
        }
        nic = s->nic;
        if (tearing_down_) {
            continue;
        }
        for (endpoint& ep : s->eps) {
            if (ep.cq != nullptr) {
                before += ep.counts.received + ep.counts.initiator_done;
                reap(ep);
                after += ep.counts.received + ep.counts.initiator_done;
            }
        }
    }
    // Completions taken: the caller looks at them before this thread says it has reacted,
    // since the wait would let simulated time move on past them.
    if (nic != nullptr && after == before) {
        ndksim_adapter_wait(nic, 1);
    }
}

void rig::begin_wait() noexcept {
    const auto now = std::chrono::steady_clock::now();
    deadline_ = now + std::chrono::seconds(60);
    // --poll: spin never sleeps, block sleeps at once, spin-then-block after k_spin_window.
    spin_until_ = poll_ == poll_kind::spin    ? std::chrono::steady_clock::time_point::max()
                  : poll_ == poll_kind::block ? now
                                              : now + k_spin_window;
}

// Arms every CQ of this process for its next completion, then sleeps until a notification or
// a connection event, or one slice. A completion that came in before the arm notifies at once
// (NdkArmCq: completions newer than the last notification satisfy it), so none is missed.
// Teardown arms nothing: the CQs it closed are gone, and the completion of a close is seen
// within one slice.
void rig::block() noexcept {
    std::unique_lock lock(wake_mutex_);
    const std::uint64_t seen = wakes_;
    lock.unlock();
    for (side* s : {&a_, &b_}) {
        if (s->nic == nullptr || tearing_down_) {
            continue;
        }
        for (endpoint& ep : s->eps) {
            if (ep.cq != nullptr) {
                ep.cq->Dispatch->NdkArmCq(ep.cq, NDK_CQ_NOTIFY_ANY);
            }
        }
    }
    lock.lock();
    woken_.wait_for(lock, k_block_slice, [&] { return wakes_ != seen; });
}

std::uint64_t rig::now() const noexcept {
    return loop_ != nullptr ? ndksim_loop_now(loop_) : ndksim_adapter_now(a_.nic);
}

void rig::reap(endpoint& ep) {
    NDK_RESULT_EX r[16];
    for (;;) {
        const ULONG n = ep.cq->Dispatch->NdkGetCqResultsEx(ep.cq, r, 16);
        for (ULONG i = 0; i < n; ++i) {
            if (r[i].Status != STATUS_SUCCESS) {
                throw perf_error(std::string("a completion failed: ") +
                                 ndksim_status_name(r[i].Status));
            }
            if (r[i].Type == NdkOperationTypeReceive) {
                ++ep.counts.received;
            } else {
                ++ep.counts.initiator_done;
            }
        }
        if (n < 16) {
            return;
        }
    }
}

std::string rig::stats_json(const side& s) {
    // A threaded adapter keeps running (its clock, a late frame), so the document can grow
    // between the size query and the copy: ask again with what it needs now, and some room.
    SIZE_T length = 0;
    NTSTATUS st = ndksim_adapter_stats_json(s.nic, nullptr, &length);
    std::string text;
    for (int i = 0; i < 8 && st == STATUS_BUFFER_TOO_SMALL; ++i) {
        text.assign(length + 256, '\0');
        length = text.size();
        st = ndksim_adapter_stats_json(s.nic, text.data(), &length);
    }
    if (st != STATUS_SUCCESS) {
        return "null";
    }
    text.resize(length - 1);
    return text;
}

void rig::close(NDK_OBJECT_HEADER* object) {
    if (object == nullptr) {
        return;
    }
    done closed;
    // Named before the close: once it is issued the engine may free the object at any time.
    const std::string what = "the close of an object of type " + std::to_string(object->ObjectType);
    // Every dispatch table starts with its close function (NDK_FN_CLOSE_OBJECT).
    const NTSTATUS s =
        reinterpret_cast<NDK_QP*>(object)->Dispatch->NdkCloseQp(object, done::on_close, &closed);
    if (s == STATUS_PENDING) {
        wait([&] { return closed.finished(); }, what.c_str());
    }
}

void rig::close_endpoints(side& s) {
    for (endpoint& ep : s.eps) {
        close(ep.connector == nullptr ? nullptr : &ep.connector->Header);
        close(ep.qp == nullptr ? nullptr : &ep.qp->Header);
        close(ep.cq == nullptr ? nullptr : &ep.cq->Header);
    }
    s.eps.clear();
}

void rig::close_side(side& s) {
    if (s.mr != nullptr) {
        done dereg;
        if (s.mr->Dispatch->NdkDeregisterMr(s.mr, done::on_request, &dereg) == STATUS_PENDING) {
            wait([&] { return dereg.finished(); }, "NdkDeregisterMr");
        }
        close(&s.mr->Header);
        s.mr = nullptr;
    }
    close(s.pd == nullptr ? nullptr : &s.pd->Header);
    s.pd = nullptr;
    if (s.adapter != nullptr) {
        ndksim_close_ndk_adapter(s.nic, s.adapter);
        s.adapter = nullptr;
    }
    if (s.nic != nullptr) {
        ndksim_adapter_destroy(s.nic);
        s.nic = nullptr;
    }
    if (s.mdl != nullptr) {
        IoFreeMdl(s.mdl);
        s.mdl = nullptr;
    }
    std::free(s.buffer);
    s.buffer = nullptr;
}

rig::~rig() {
    teardown();
}

void rig::teardown() noexcept {
    tearing_down_ = true;
    try {
        close_endpoints(a_);
        close_endpoints(b_);
        // The listener's close waits for the connectors it created (rule 6), so it goes after.
        if (listener_ != nullptr) {
            close(&listener_->Header);
            listener_ = nullptr;
        }
        close_side(a_);
        close_side(b_);
    } catch (const perf_error& e) {
        std::fprintf(stderr, "ndksim-perf: teardown: %s\n", e.what());
    }
    if (loop_ != nullptr) {
        ndksim_loop_destroy(loop_);
        loop_ = nullptr;
    }
}

}  // namespace ndksim::perf
