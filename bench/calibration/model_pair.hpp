// SPDX-License-Identifier: MIT
#pragma once
// Two adapters on one deterministic loop, joined by `qps` connected RC QP pairs (a -> b), for
// measuring the timing model through the public API: every figure is modelled time read with
// ndksim_loop_now, never wall time. Used by the calibration report (bench/calibration) and the
// model shape tests (tests/model). Setup failures are reported by ok() and error().

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>

namespace ndksim::model {

class model_pair {
  public:
    /// The side of the pair.
    enum class end { a, b };

    struct options {
        const char* profile = nullptr;       ///< NULL = cx4-edr
        unsigned qps = 1;                    ///< QP pairs
        ULONG queue_depth = 1024;            ///< initiator and receive queue depth of each QP
        ULONG reads = 16;                    ///< IRD = ORD of every connection
        std::size_t buffer_bytes = 1 << 20;  ///< registered buffer per side
        unsigned regions = 1;  ///< the buffer is registered as this many MRs of equal size
    };

    explicit model_pair(const options& o) : o_(o) { setup(); }
    ~model_pair() { teardown(); }
    model_pair(const model_pair&) = delete;
    model_pair& operator=(const model_pair&) = delete;

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }

    /// Modelled time now [ps].
    ULONG64 now() const { return ndksim_loop_now(loop_); }

    /// Runs one task of the loop; false when there was none.
    bool step() { return ndksim_loop_run_one(loop_) != FALSE; }

    /// A SEND of `bytes` on QP `qp` from `from` (offset 0 of its buffer's MR 0).
    NTSTATUS send(end from, unsigned qp, ULONG bytes, ULONG flags) {
        const NDK_SGE sge = sge_of(from, 0, bytes);
        NDK_QP* q = side_of(from).qps[qp];
        return q->Dispatch->NdkSend(q, nullptr, &sge, bytes == 0 ? 0 : 1, flags);
    }

    /// A receive of up to `bytes` on QP `qp` of `at`.
    NTSTATUS receive(end at, unsigned qp, ULONG bytes) {
        const NDK_SGE sge = sge_of(at, 0, bytes);
        NDK_QP* q = side_of(at).qps[qp];
        return q->Dispatch->NdkReceive(q, nullptr, &sge, 1);
    }

    /// An RDMA WRITE of `bytes` from a's MR `mr` to b's MR `mr` on QP `qp`.
    NTSTATUS write(unsigned qp, ULONG bytes, ULONG flags, unsigned mr = 0) {
        const NDK_SGE sge = sge_of(end::a, mr, bytes);
        NDK_QP* q = a_.qps[qp];
        return q->Dispatch->NdkWrite(q, nullptr, &sge, 1, remote_address(mr),
                                     b_.regions[mr].remote_token, flags);
    }

    /// An RDMA READ of `bytes` from b's MR 0 into a's MR 0 on QP `qp`.
    NTSTATUS read(unsigned qp, ULONG bytes, ULONG flags) {
        const NDK_SGE sge = sge_of(end::a, 0, bytes);
        NDK_QP* q = a_.qps[qp];
        return q->Dispatch->NdkRead(q, nullptr, &sge, 1, remote_address(0),
                                    b_.regions[0].remote_token, flags);
    }

    /// Takes the completions queued on `at`'s CQ; returns how many, counting failures in
    /// failed().
    unsigned poll(end at) {
        NDK_RESULT_EX r[64];
        NDK_CQ* cq = side_of(at).cq;
        unsigned n = 0;
        for (;;) {
            const ULONG got = cq->Dispatch->NdkGetCqResultsEx(cq, r, 64);
            for (ULONG i = 0; i < got; ++i) {
                failed_ += r[i].Status != STATUS_SUCCESS ? 1 : 0;
                const auto qp = reinterpret_cast<std::uintptr_t>(r[i].QPContext);
                if (qp < o_.qps) {
                    ++side_of(at).completions[qp];
                }
            }
            n += got;
            if (got < 64) {
                return n;
            }
        }
    }

    /// Runs the loop until `count` completions arrived on `at`'s CQ; returns the modelled
    /// time of the last one [ps], or 0 when the loop ran dry first.
    ULONG64 run_until(end at, unsigned count) {
        unsigned seen = poll(at);
        while (seen < count) {
            if (!step()) {
                return 0;
            }
            seen += poll(at);
        }
        return now();
    }

    /// Runs the loop until `count` completions arrived on `at`'s CQ, recording the modelled
    /// time of each; returns false when the loop ran dry first.
    bool record(end at, unsigned count, std::vector<ULONG64>& times) {
        times.clear();
        while (times.size() < count) {
            const unsigned n = poll(at);
            times.insert(times.end(), n, now());
            if (times.size() < count && !step()) {
                return false;
            }
        }
        return true;
    }

    /// Arms `at`'s CQ for any completion (NdkArmCq); its notification callback records the
    /// modelled time it ran at (notified_at) and counts (notifications).
    void arm(end at) {
        NDK_CQ* cq = side_of(at).cq;
        cq->Dispatch->NdkArmCq(cq, NDK_CQ_NOTIFY_ANY);
    }

    /// Notification callbacks `at`'s CQ made so far.
    unsigned notifications(end at) { return side_of(at).notifications; }

    /// Modelled time of `at`'s last notification callback [ps].
    ULONG64 notified_at(end at) { return side_of(at).notified_at; }

    /// `at`'s adapter (for ndksim_adapter_get_stats).
    ndksim_adapter* nic(end at) { return side_of(at).nic; }

    /// Completions taken so far on `at`'s CQ for QP `qp`.
    unsigned completions(end at, unsigned qp) { return side_of(at).completions[qp]; }

    /// Completions that did not succeed, over the pair's life.
    unsigned failed() const { return failed_; }

    /// Runs the loop until nothing is left.
    void settle() { ndksim_loop_run_until_idle(loop_); }

  private:
    struct registration {
        NDK_MR* mr = nullptr;
        UINT32 local_token = 0;
        UINT32 remote_token = 0;
        MDL* mdl = nullptr;
    };
    struct side {
        ndksim_adapter* nic = nullptr;
        NDK_ADAPTER* adapter = nullptr;
        NDK_PD* pd = nullptr;
        NDK_CQ* cq = nullptr;
        std::vector<NDK_QP*> qps;
        std::vector<NDK_CONNECTOR*> connectors;
        std::byte* bytes = nullptr;
        std::vector<registration> regions;
        std::vector<unsigned> completions;  // per QP
        ndksim_loop* loop = nullptr;        // for the notification callback's timestamp
        unsigned notifications = 0;
        ULONG64 notified_at = 0;
    };

    static void on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER*) {
        *static_cast<NTSTATUS*>(c) = s;
    }
    static void on_request(PVOID c, NTSTATUS s) { *static_cast<NTSTATUS*>(c) = s; }
    static void on_close(PVOID c) { *static_cast<bool*>(c) = true; }
    static void on_cq(PVOID c, NTSTATUS) {
        side& s = *static_cast<side*>(c);
        ++s.notifications;
        s.notified_at = ndksim_loop_now(s.loop);
    }
    static void on_event(PVOID) {}
    static void on_connect_event(PVOID c, NDK_CONNECTOR* connector) {
        *static_cast<NDK_CONNECTOR**>(c) = connector;
    }

    side& side_of(end e) { return e == end::a ? a_ : b_; }
    std::size_t region_bytes() const { return o_.buffer_bytes / o_.regions; }
    UINT64 remote_address(unsigned r) const {
        return reinterpret_cast<UINT64>(b_.bytes + r * region_bytes());
    }
    NDK_SGE sge_of(end e, unsigned r, ULONG bytes) {
        side& s = side_of(e);
        NDK_SGE sge{};
        sge.VirtualAddress = s.bytes + r * region_bytes();
        sge.Length = bytes;
        sge.MemoryRegionToken = s.regions[r].local_token;
        return sge;
    }

    // Records the first setup failure (appended piece by piece: GCC 12 warns falsely about
    // std::string concatenation here).
    void fail(const char* a, const char* b, const char* c = "") {
        if (error_.empty()) {
            error_.append(a).append(b).append(c);
        }
    }

    bool check(NTSTATUS st, const char* what) {
        if (st != STATUS_SUCCESS && error_.empty()) {
            fail(what, ": ", ndksim_status_name(st));
        }
        return st == STATUS_SUCCESS;
    }

    // Drives the loop until `done` is set, or fails.
    bool wait(const bool& done, const char* what) {
        while (!done) {
            if (!step()) {
                fail("the loop ran dry waiting for ", what);
                return false;
            }
        }
        return true;
    }
    bool wait_status(NTSTATUS& st, NTSTATUS initial, const char* what) {
        if (initial != STATUS_PENDING) {
            st = initial;
        }
        while (st == STATUS_PENDING) {
            if (!step()) {
                fail("the loop ran dry waiting for ", what);
                return false;
            }
        }
        return check(st, what);
    }

    bool make_side(side& s, const char* address) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.loop = loop_;
        c.address = address;
        c.profile = o_.profile;
        if (!check(ndksim_adapter_create(&c, &s.nic), "ndksim_adapter_create")) {
            return false;
        }
        NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
        p.Version = ndksim_highest_version();
        if (ndksim_open_ndk_adapter(s.nic, &p, &s.adapter) != NDIS_STATUS_SUCCESS) {
            error_ = "ndksim_open_ndk_adapter failed";
            return false;
        }
        NTSTATUS st = STATUS_PENDING;
        if (!check(s.adapter->Dispatch->NdkCreatePd(s.adapter, on_create, &st, &s.pd),
                   "NdkCreatePd")) {
            return false;
        }
        const ULONG cq_depth = o_.qps * o_.queue_depth * 2;
        s.loop = loop_;
        if (!check(s.adapter->Dispatch->NdkCreateCq(s.adapter, cq_depth, on_cq, &s, nullptr,
                                                    on_create, &st, &s.cq),
                   "NdkCreateCq")) {
            return false;
        }
        for (unsigned i = 0; i < o_.qps; ++i) {
            NDK_QP* q = nullptr;
            // The QP context is the QP's index, so completions can be told apart.
            PVOID context = reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(i));
            if (!check(s.pd->Dispatch->NdkCreateQp(s.pd, s.cq, s.cq, context, o_.queue_depth,
                                                   o_.queue_depth, 1, 1, 188, on_create, &st, &q),
                       "NdkCreateQp")) {
                return false;
            }
            s.qps.push_back(q);
        }
        s.completions.assign(o_.qps, 0);
        s.bytes = static_cast<std::byte*>(std::aligned_alloc(PAGE_SIZE, o_.buffer_bytes));
        std::memset(s.bytes, 0, o_.buffer_bytes);
        for (unsigned r = 0; r < o_.regions; ++r) {
            registration& g = s.regions.emplace_back();
            g.mdl = IoAllocateMdl(s.bytes + r * region_bytes(), static_cast<ULONG>(region_bytes()),
                                  FALSE, FALSE, nullptr);
            MmBuildMdlForNonPagedPool(g.mdl);
            if (!check(s.pd->Dispatch->NdkCreateMr(s.pd, FALSE, on_create, &st, &g.mr),
                       "NdkCreateMr")) {
                return false;
            }
            NTSTATUS reg = STATUS_PENDING;
            const ULONG flags = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
            if (!wait_status(reg,
                             g.mr->Dispatch->NdkRegisterMr(g.mr, g.mdl, region_bytes(), flags,
                                                           on_request, &reg),
                             "NdkRegisterMr")) {
                return false;
            }
            g.local_token = g.mr->Dispatch->NdkGetLocalTokenFromMr(g.mr);
            g.remote_token = g.mr->Dispatch->NdkGetRemoteTokenFromMr(g.mr);
        }
        return true;
    }

    bool connect() {
        // The listener's callbacks outlive this call: their contexts are members.
        NDK_CONNECTOR*& incoming = incoming_;
        NTSTATUS& st = create_status_;
        if (!check(b_.adapter->Dispatch->NdkCreateListener(b_.adapter, on_connect_event, &incoming,
                                                           on_create, &st, &listener_),
                   "NdkCreateListener")) {
            return false;
        }
        SOCKADDR_IN any{};
        any.sin_family = AF_INET;
        NTSTATUS listened = STATUS_PENDING;
        if (!wait_status(
                listened,
                listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&any),
                                               sizeof any, on_request, &listened),
                "NdkListen")) {
            return false;
        }
        SOCKADDR_IN bound{};
        ULONG bound_size = sizeof bound;
        if (!check(listener_->Dispatch->NdkGetLocalAddress(
                       listener_, reinterpret_cast<PSOCKADDR>(&bound), &bound_size),
                   "NdkGetLocalAddress")) {
            return false;
        }
        for (unsigned i = 0; i < o_.qps; ++i) {
            NDK_CONNECTOR* active = nullptr;
            if (!check(
                    a_.adapter->Dispatch->NdkCreateConnector(a_.adapter, on_create, &st, &active),
                    "NdkCreateConnector")) {
                return false;
            }
            a_.connectors.push_back(active);
            SOCKADDR_IN src = address_of(1, 0);
            SOCKADDR_IN dst = bound;
            dst.sin_addr = address_of(2, 0).sin_addr;
            incoming = nullptr;
            NTSTATUS connected = STATUS_PENDING;
            const NTSTATUS c = active->Dispatch->NdkConnect(
                active, a_.qps[i], reinterpret_cast<PSOCKADDR>(&src), sizeof src,
                reinterpret_cast<PSOCKADDR>(&dst), sizeof dst, o_.reads, o_.reads, nullptr, 0,
                on_request, &connected);
            if (c != STATUS_PENDING && !check(c, "NdkConnect")) {
                return false;
            }
            while (incoming == nullptr) {
                if (!step()) {
                    error_ = "no connect event";
                    return false;
                }
            }
            b_.connectors.push_back(incoming);
            NTSTATUS accepted = STATUS_PENDING;
            const NTSTATUS acc =
                incoming->Dispatch->NdkAccept(incoming, b_.qps[i], o_.reads, o_.reads, nullptr, 0,
                                              on_event, nullptr, on_request, &accepted);
            if (!wait_status(connected, c == STATUS_PENDING ? STATUS_PENDING : c, "Connect")) {
                return false;
            }
            NTSTATUS completed = STATUS_PENDING;
            if (!wait_status(completed,
                             active->Dispatch->NdkCompleteConnect(active, on_event, nullptr,
                                                                  on_request, &completed),
                             "CompleteConnect") ||
                !wait_status(accepted, acc == STATUS_PENDING ? STATUS_PENDING : acc, "Accept")) {
                return false;
            }
        }
        return true;
    }

    static SOCKADDR_IN address_of(unsigned host, USHORT port) {
        SOCKADDR_IN s{};
        s.sin_family = AF_INET;
        s.sin_port = static_cast<USHORT>((port >> 8) | (port << 8));
        auto* b = reinterpret_cast<unsigned char*>(&s.sin_addr);
        b[0] = 10;
        b[1] = 77;
        b[2] = 0;
        b[3] = static_cast<unsigned char>(host);
        return s;
    }

    void setup() {
        if (!check(ndksim_loop_create(&loop_), "ndksim_loop_create")) {
            return;
        }
        if (make_side(a_, "10.77.0.1") && make_side(b_, "10.77.0.2")) {
            connect();
        }
    }

    void close(NDK_OBJECT_HEADER* o) {
        if (o == nullptr) {
            return;
        }
        // A close may complete after this call returns (a predecessor closes after its
        // successors), so its flag lives as long as the pair.
        bool& done = close_flags_.emplace_back(false);
        // Every close is the first entry of its dispatch table.
        if (reinterpret_cast<NDK_QP*>(o)->Dispatch->NdkCloseQp(o, on_close, &done) ==
            STATUS_PENDING) {
            wait(done, "a close");
        }
    }

    void release_side(side& s) {
        for (NDK_CONNECTOR* c : s.connectors) {
            close(&c->Header);
        }
        for (NDK_QP* q : s.qps) {
            close(&q->Header);
        }
        for (registration& g : s.regions) {
            if (g.mr != nullptr) {
                NTSTATUS st = STATUS_PENDING;
                if (g.mr->Dispatch->NdkDeregisterMr(g.mr, on_request, &st) == STATUS_PENDING) {
                    wait_status(st, STATUS_PENDING, "NdkDeregisterMr");
                }
                close(&g.mr->Header);
            }
            if (g.mdl != nullptr) {
                IoFreeMdl(g.mdl);
            }
        }
        if (s.cq != nullptr) {
            close(&s.cq->Header);
        }
        if (s.pd != nullptr) {
            close(&s.pd->Header);
        }
        std::free(s.bytes);
    }

    static void destroy_adapter(side& s) {
        if (s.adapter != nullptr) {
            ndksim_close_ndk_adapter(s.nic, s.adapter);
        }
        if (s.nic != nullptr) {
            ndksim_adapter_destroy(s.nic);
        }
    }

    void teardown() {
        if (loop_ == nullptr) {
            return;
        }
        settle();
        release_side(a_);
        release_side(b_);
        if (listener_ != nullptr) {
            close(&listener_->Header);
        }
        destroy_adapter(a_);
        destroy_adapter(b_);
        ndksim_loop_destroy(loop_);
    }

    options o_;
    std::string error_;
    ndksim_loop* loop_ = nullptr;
    NDK_LISTENER* listener_ = nullptr;
    std::deque<bool> close_flags_;
    NDK_CONNECTOR* incoming_ = nullptr;
    NTSTATUS create_status_ = STATUS_PENDING;
    side a_;
    side b_;
    unsigned failed_ = 0;
};

}  // namespace ndksim::model
