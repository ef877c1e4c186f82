// SPDX-License-Identifier: MIT
#include "loopback/endpoint.hpp"

#include <cstdlib>
#include <cstring>
#include <list>
#include <thread>
#include <utility>

namespace ndksim::loopback {

// One pending create, request or close: the callback stores the outcome and wakes the waiter.
// It lives in the endpoint's list, not on the caller's stack: a call that pended gets exactly
// one callback (REFERENCE.md rule 1) even when the caller stopped waiting for it at its
// timeout, and that late callback must find the waiter still there.
struct endpoint::waiter {
    endpoint* owner = nullptr;
    bool done = false;
    bool abandoned = false;  // the caller timed out: the callback frees the waiter
    NTSTATUS status = STATUS_PENDING;
    NDK_OBJECT_HEADER* object = nullptr;
    std::list<waiter>::iterator self;

    void finish(NTSTATUS s, NDK_OBJECT_HEADER* o) {
        std::lock_guard lock(owner->mutex_);
        if (abandoned) {
            owner->waiters_.erase(self);
            return;
        }
        status = s;
        object = o;
        done = true;
        owner->changed_.notify_all();
    }
};

// The caller's handle on a waiter: frees it on return if its callback has run, else leaves it
// for the callback to free.
class endpoint::pending {
  public:
    explicit pending(endpoint& e) : owner_(e) {
        std::lock_guard lock(e.mutex_);
        w_ = &e.waiters_.emplace_front();
        w_->owner = &e;
        w_->self = e.waiters_.begin();
    }
    ~pending() {
        std::lock_guard lock(owner_.mutex_);
        if (w_->done) {
            owner_.waiters_.erase(w_->self);
        } else {
            w_->abandoned = true;
        }
    }
    pending(const pending&) = delete;
    pending& operator=(const pending&) = delete;

    waiter* get() const { return w_; }
    waiter& operator*() const { return *w_; }
    waiter* operator->() const { return w_; }

  private:
    endpoint& owner_;
    waiter* w_ = nullptr;
};

namespace {

SOCKADDR_IN ipv4(const std::string& text, std::uint16_t port, bool* ok) {
    SOCKADDR_IN a{};
    a.sin_family = WS_AF_INET;
    a.sin_port = static_cast<USHORT>((port >> 8) | (port << 8));  // network byte order
    unsigned v[4] = {};
    char tail = 0;
    *ok = std::sscanf(text.c_str(), "%u.%u.%u.%u%c", &v[0], &v[1], &v[2], &v[3], &tail) == 4 &&
          v[0] < 256 && v[1] < 256 && v[2] < 256 && v[3] < 256;
    auto* b = reinterpret_cast<unsigned char*>(&a.sin_addr);
    for (int i = 0; i < 4; ++i) {
        b[i] = static_cast<unsigned char>(v[i]);
    }
    return a;
}

}  // namespace

endpoint::endpoint(endpoint_options options) : options_(std::move(options)) {}

endpoint::~endpoint() {
    close();
}

void endpoint::on_create(PVOID ctx, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    static_cast<waiter*>(ctx)->finish(s, o);
}
void endpoint::on_request(PVOID ctx, NTSTATUS s) {
    static_cast<waiter*>(ctx)->finish(s, nullptr);
}
void endpoint::on_close(PVOID ctx) {
    static_cast<waiter*>(ctx)->finish(STATUS_SUCCESS, nullptr);
}

void endpoint::on_cq(PVOID ctx, NTSTATUS) {
    auto* self = static_cast<endpoint*>(ctx);
    std::lock_guard lock(self->mutex_);
    ++self->cq_events_;
    self->changed_.notify_all();
}

void endpoint::on_connect_event(PVOID ctx, NDK_CONNECTOR* c) {
    auto* self = static_cast<endpoint*>(ctx);
    std::lock_guard lock(self->mutex_);
    if (self->incoming_ != nullptr) {
        // One connection per endpoint: a second request is refused (REFERENCE.md: the consumer
        // answers every connect event with accept or reject, then closes the connector).
        c->Dispatch->NdkReject(c, nullptr, 0);
        c->Dispatch->NdkCloseConnector(
            &c->Header, [](PVOID) {}, nullptr);
        return;
    }
    self->incoming_ = c;
    self->changed_.notify_all();
}

void endpoint::on_disconnect_event(PVOID ctx) {
    auto* self = static_cast<endpoint*>(ctx);
    std::lock_guard lock(self->mutex_);
    self->peer_disconnected_ = true;
    self->changed_.notify_all();
}

bool endpoint::wait_until(auto&& predicate) {
    if (options_.poll == NDKSIM_POLL_CONSUMER && nic_ != nullptr) {
        // This thread runs the engine whose callbacks it waits for.
        const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
        for (;;) {
            {
                std::lock_guard lock(mutex_);
                if (predicate()) {
                    return true;
                }
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                return false;
            }
            if (ndksim_adapter_progress(nic_) == 0) {
                std::this_thread::yield();
            }
        }
    }
    if (options_.time_mode != NDKSIM_TIME_SYNCHRONIZED || nic_ == nullptr) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, options_.timeout, predicate);
    }
    // Synchronized time moves past what a callback showed this thread only once the thread
    // says it has looked (docs/timing.md, "Synchronized time"). It says so before each block:
    // ndksim_adapter_wait with no timeout notes the wait, unless something was shown since its
    // last call, which the first call takes as looked at (the predicate was, just before).
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (predicate()) {
                return true;
            }
        }
        ndksim_adapter_wait(nic_, 0);
        ndksim_adapter_wait(nic_, 0);
        std::unique_lock lock(mutex_);
        if (changed_.wait_for(lock, std::chrono::milliseconds(1), predicate)) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
    }
}

NTSTATUS endpoint::fail(const char* what, NTSTATUS s) {
    error_ = std::string(what) + ": " + ndksim_status_name(s);
    return s;
}

// A call that may pend (REFERENCE.md rule 1): an inline status is final and no callback
// follows; STATUS_PENDING means exactly one callback, which we wait for.
NTSTATUS endpoint::request(const char* what, NTSTATUS started, waiter& w) {
    if (started != STATUS_PENDING) {
        w.done = true;  // no callback follows: the waiter is freed with its handle
        return started == STATUS_SUCCESS ? started : fail(what, started);
    }
    if (!wait_until([&] { return w.done; })) {
        return fail(what, STATUS_IO_TIMEOUT);
    }
    return w.status == STATUS_SUCCESS ? w.status : fail(what, w.status);
}

template <class Fn>
NTSTATUS endpoint::create(const char* what, NDK_OBJECT_HEADER** out, Fn&& call) {
    pending w(*this);
    NDK_OBJECT_HEADER* inline_object = nullptr;
    NTSTATUS s = call(w.get(), &inline_object);
    if (s == STATUS_PENDING) {
        s = request(what, s, *w);
        *out = s == STATUS_SUCCESS ? w->object : nullptr;
        return s;
    }
    w->done = true;  // completed inline: no callback follows
    *out = s == STATUS_SUCCESS ? inline_object : nullptr;
    return s == STATUS_SUCCESS ? s : fail(what, s);
}

NTSTATUS endpoint::open() {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.name = options_.name.c_str();
    c.address = options_.address.c_str();
    c.wire = options_.wire;
    c.port = options_.port;
    c.pcap_path = options_.pcap.empty() ? nullptr : options_.pcap.c_str();
    c.poll_policy = options_.poll;
    c.time_mode = options_.time_mode;
    c.sync_peer_silence_ms = options_.peer_silence_ms;
    // The bound on every wait bounds the handshake too: a peer process that is slow to call
    // NdkAccept or NdkCompleteConnect is not refused sooner than the endpoint gives up waiting.
    c.cm_timeout_ms = static_cast<ULONG>(options_.timeout.count());
    if (options_.ack_timeout_us != 0) {
        c.ack_timeout_us = options_.ack_timeout_us;
    }
    if (options_.retry_limit != 0) {
        c.retry_limit = options_.retry_limit;
    }
    // Closing the handle waits for the objects under it: that wait is bounded like every other.
    c.close_timeout_ms = static_cast<ULONG>(options_.timeout.count());
    if (NTSTATUS s = ndksim_adapter_create(&c, &nic_); s != STATUS_SUCCESS) {
        nic_ = nullptr;
        return fail("ndksim_adapter_create", s);
    }
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    if (NDIS_STATUS s = ndksim_open_ndk_adapter(nic_, &p, &adapter_); s != NDIS_STATUS_SUCCESS) {
        adapter_ = nullptr;
        return fail("ndksim_open_ndk_adapter", s);
    }
    auto* a = adapter_;
    auto as = [](auto** typed) { return reinterpret_cast<NDK_OBJECT_HEADER**>(typed); };
    NTSTATUS s = create("NdkCreatePd", as(&pd_), [&](waiter* w, NDK_OBJECT_HEADER** o) {
        return a->Dispatch->NdkCreatePd(a, on_create, w, reinterpret_cast<NDK_PD**>(o));
    });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    const ULONG depth = 4 * (k_receive_slots + 64);
    s = create("NdkCreateCq", as(&cq_), [&](waiter* w, NDK_OBJECT_HEADER** o) {
        return a->Dispatch->NdkCreateCq(a, depth, on_cq, this, nullptr, on_create, w,
                                        reinterpret_cast<NDK_CQ**>(o));
    });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    s = create("NdkCreateQp", as(&qp_), [&](waiter* w, NDK_OBJECT_HEADER** o) {
        return pd_->Dispatch->NdkCreateQp(pd_, cq_, cq_, this, k_receive_slots + 4, 64, 2, 2, 64,
                                          on_create, w, reinterpret_cast<NDK_QP**>(o));
    });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    // The data area, then the message slots, page-aligned so the window can start at offset 0.
    buffer_size_ =
        options_.data_size + std::uint64_t{k_slot_size} * (k_receive_slots + k_send_slots);
    buffer_size_ = (buffer_size_ + PAGE_SIZE - 1) & ~std::uint64_t{PAGE_SIZE - 1};
    buffer_ = static_cast<std::uint8_t*>(std::aligned_alloc(PAGE_SIZE, buffer_size_));
    if (buffer_ == nullptr) {
        return fail("buffer", STATUS_INSUFFICIENT_RESOURCES);
    }
    std::memset(buffer_, 0, buffer_size_);
    mdl_ = IoAllocateMdl(buffer_, static_cast<ULONG>(buffer_size_), FALSE, FALSE, nullptr);
    if (mdl_ == nullptr) {
        return fail("IoAllocateMdl", STATUS_INSUFFICIENT_RESOURCES);
    }
    MmBuildMdlForNonPagedPool(mdl_);
    s = create("NdkCreateMr", as(&mr_), [&](waiter* w, NDK_OBJECT_HEADER** o) {
        return pd_->Dispatch->NdkCreateMr(pd_, FALSE, on_create, w, reinterpret_cast<NDK_MR**>(o));
    });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    pending reg(*this);
    s = request(
        "NdkRegisterMr",
        mr_->Dispatch->NdkRegisterMr(mr_, mdl_, buffer_size_,
                                     NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                         NDK_MR_FLAG_ALLOW_REMOTE_WRITE,
                                     on_request, reg.get()),
        *reg);
    if (s != STATUS_SUCCESS) {
        return s;
    }
    registered_ = true;
    return create("NdkCreateMw", as(&mw_), [&](waiter* w, NDK_OBJECT_HEADER** o) {
        return pd_->Dispatch->NdkCreateMw(pd_, on_create, w, reinterpret_cast<NDK_MW**>(o));
    });
}

NTSTATUS endpoint::listen(std::uint16_t nd_port) {
    bool ok = false;
    SOCKADDR_IN at = ipv4(options_.address, nd_port, &ok);
    if (!ok) {
        return fail("listen address", STATUS_INVALID_PARAMETER);
    }
    auto* a = adapter_;
    NTSTATUS s =
        create("NdkCreateListener", reinterpret_cast<NDK_OBJECT_HEADER**>(&listener_),
               [&](waiter* w, NDK_OBJECT_HEADER** o) {
                   return a->Dispatch->NdkCreateListener(a, on_connect_event, this, on_create, w,
                                                         reinterpret_cast<NDK_LISTENER**>(o));
               });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    pending w(*this);
    return request("NdkListen",
                   listener_->Dispatch->NdkListen(listener_, reinterpret_cast<PSOCKADDR>(&at),
                                                  sizeof at, on_request, w.get()),
                   *w);
}

NTSTATUS endpoint::accept(std::span<const std::byte> private_data,
                          std::vector<std::byte>* peer_data) {
    if (!wait_until([&] { return incoming_ != nullptr; })) {
        return fail("waiting for a connection request", STATUS_IO_TIMEOUT);
    }
    {
        std::lock_guard lock(mutex_);
        connector_ = incoming_;
    }
    std::uint8_t got[256];
    ULONG got_size = sizeof got;
    NTSTATUS s =
        connector_->Dispatch->NdkGetConnectionData(connector_, nullptr, nullptr, got, &got_size);
    if (s != STATUS_SUCCESS) {
        return fail("NdkGetConnectionData", s);
    }
    peer_data->assign(reinterpret_cast<std::byte*>(got),
                      reinterpret_cast<std::byte*>(got) + got_size);
    // Receives go up before the accept so the peer's first send never meets an empty queue.
    for (unsigned i = 0; i < k_receive_slots; ++i) {
        if (s = post_receive_slot(i); s != STATUS_SUCCESS) {
            return fail("NdkReceive", s);
        }
    }
    pending w(*this);
    s = request("NdkAccept",
                connector_->Dispatch->NdkAccept(connector_, qp_, 4, 4,
                                                const_cast<std::byte*>(private_data.data()),
                                                static_cast<ULONG>(private_data.size()),
                                                on_disconnect_event, this, on_request, w.get()),
                *w);
    connected_ = s == STATUS_SUCCESS;
    return s;
}

NTSTATUS endpoint::connect(const std::string& peer, std::uint16_t nd_port,
                           std::span<const std::byte> private_data,
                           std::vector<std::byte>* peer_data) {
    bool ok_from = false, ok_to = false;
    SOCKADDR_IN from = ipv4(options_.address, 0, &ok_from);
    SOCKADDR_IN to = ipv4(peer, nd_port, &ok_to);
    if (!ok_from || !ok_to) {
        return fail("connect address", STATUS_INVALID_PARAMETER);
    }
    auto* a = adapter_;
    NTSTATUS s = create("NdkCreateConnector", reinterpret_cast<NDK_OBJECT_HEADER**>(&connector_),
                        [&](waiter* w, NDK_OBJECT_HEADER** o) {
                            return a->Dispatch->NdkCreateConnector(
                                a, on_create, w, reinterpret_cast<NDK_CONNECTOR**>(o));
                        });
    if (s != STATUS_SUCCESS) {
        return s;
    }
    for (unsigned i = 0; i < k_receive_slots; ++i) {
        if (s = post_receive_slot(i); s != STATUS_SUCCESS) {
            return fail("NdkReceive", s);
        }
    }
    pending w(*this);
    s = request("NdkConnect",
                connector_->Dispatch->NdkConnect(
                    connector_, qp_, reinterpret_cast<PSOCKADDR>(&from), sizeof from,
                    reinterpret_cast<PSOCKADDR>(&to), sizeof to, 4, 4,
                    const_cast<std::byte*>(private_data.data()),
                    static_cast<ULONG>(private_data.size()), on_request, w.get()),
                *w);
    if (s != STATUS_SUCCESS) {
        return s;
    }
    std::uint8_t got[256];
    ULONG got_size = sizeof got;
    s = connector_->Dispatch->NdkGetConnectionData(connector_, nullptr, nullptr, got, &got_size);
    if (s != STATUS_SUCCESS) {
        return fail("NdkGetConnectionData", s);
    }
    peer_data->assign(reinterpret_cast<std::byte*>(got),
                      reinterpret_cast<std::byte*>(got) + got_size);
    pending done(*this);
    s = request("NdkCompleteConnect",
                connector_->Dispatch->NdkCompleteConnect(connector_, on_disconnect_event, this,
                                                         on_request, done.get()),
                *done);
    connected_ = s == STATUS_SUCCESS;
    return s;
}

NTSTATUS endpoint::bind_window(std::uint64_t offset, std::uint64_t length, std::uint32_t* token) {
    NTSTATUS s =
        qp_->Dispatch->NdkBind(qp_, nullptr, mr_, mw_, buffer_ + offset, length,
                               NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE);
    if (s != STATUS_SUCCESS) {
        return fail("NdkBind", s);
    }
    auto r = next_of(NdkOperationTypeBind);
    if (!r) {
        return fail("bind completion", STATUS_IO_TIMEOUT);
    }
    if (r->Status != STATUS_SUCCESS) {
        return fail("bind completion", r->Status);
    }
    *token = mw_->Dispatch->NdkGetRemoteTokenFromMw(mw_);
    return STATUS_SUCCESS;
}

NDK_SGE endpoint::sge(std::uint64_t buffer_offset, ULONG length) const {
    NDK_SGE g{};
    g.VirtualAddress = buffer_ + buffer_offset;
    g.Length = length;
    g.MemoryRegionToken = mr_->Dispatch->NdkGetLocalTokenFromMr(mr_);
    return g;
}

std::uint64_t endpoint::slot_offset(unsigned slot) const {
    return options_.data_size + std::uint64_t{k_slot_size} * slot;
}

NTSTATUS endpoint::post_receive_slot(unsigned slot) {
    NDK_SGE g = sge(slot_offset(slot), k_slot_size);
    // The request context names the slot (+1, so no context is ever NULL).
    return qp_->Dispatch->NdkReceive(qp_, reinterpret_cast<PVOID>(std::uintptr_t{slot} + 1), &g, 1);
}

NTSTATUS endpoint::post_write(std::uint64_t offset, ULONG length, std::uint64_t remote_address,
                              std::uint32_t token, ULONG flags) {
    NDK_SGE g = sge(offset, length);
    return qp_->Dispatch->NdkWrite(qp_, nullptr, &g, 1, remote_address, token, flags);
}

NTSTATUS endpoint::post_read(std::uint64_t offset, ULONG length, std::uint64_t remote_address,
                             std::uint32_t token, ULONG flags) {
    NDK_SGE g = sge(offset, length);
    return qp_->Dispatch->NdkRead(qp_, nullptr, &g, 1, remote_address, token, flags);
}

NTSTATUS endpoint::post_send(std::uint64_t offset, ULONG length, ULONG flags) {
    NDK_SGE g = sge(offset, length);
    return qp_->Dispatch->NdkSend(qp_, nullptr, &g, 1, flags);
}

NTSTATUS endpoint::send_message(const message& m, std::optional<std::uint32_t> invalidate,
                                ULONG flags) {
    const std::uint64_t at = slot_offset(k_receive_slots + next_send_slot_);
    next_send_slot_ = (next_send_slot_ + 1) % k_send_slots;
    std::memcpy(buffer_ + at, &m, sizeof m);
    NDK_SGE g = sge(at, sizeof m);
    if (invalidate) {
        return qp_->Dispatch->NdkSendAndInvalidate(qp_, nullptr, &g, 1, flags, *invalidate);
    }
    return qp_->Dispatch->NdkSend(qp_, nullptr, &g, 1, flags);
}

NTSTATUS endpoint::send_message_with_payload(const message& m, std::uint64_t payload_offset,
                                             ULONG payload_length) {
    const std::uint64_t at = slot_offset(k_receive_slots + next_send_slot_);
    next_send_slot_ = (next_send_slot_ + 1) % k_send_slots;
    std::memcpy(buffer_ + at, &m, sizeof m);
    NDK_SGE g[2] = {sge(at, sizeof m), sge(payload_offset, payload_length)};
    return qp_->Dispatch->NdkSend(qp_, nullptr, g, 2, 0);
}

std::optional<NDK_RESULT_EX> endpoint::next(bool until_disconnect,
                                            std::optional<std::chrono::milliseconds> wait) {
    if (!stash_.empty()) {
        NDK_RESULT_EX r = stash_.front();
        stash_.pop_front();
        return r;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + wait.value_or(options_.timeout);
    // A polling wait sees a completion as soon as the engine thread queued it; a sleeping one
    // pays the wake-up, tens of microseconds on a loaded host.
    const bool drives = options_.poll == NDKSIM_POLL_CONSUMER;
    const auto spin_until = options_.poll == NDKSIM_POLL_SPIN || drives ? deadline
                            : options_.poll == NDKSIM_POLL_BLOCK        ? start
                                                                        : start + k_spin_window;
    for (;;) {
        NDK_RESULT_EX r{};
        if (cq_->Dispatch->NdkGetCqResultsEx(cq_, &r, 1) == 1) {
            return r;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now < spin_until) {
            if (until_disconnect && peer_disconnected()) {
                return cq_->Dispatch->NdkGetCqResultsEx(cq_, &r, 1) == 1
                           ? std::optional<NDK_RESULT_EX>(r)
                           : std::nullopt;
            }
            if (!drives || ndksim_adapter_progress(nic_) == 0) {
                std::this_thread::yield();
            }
            continue;
        }
        if (now >= deadline) {
            return std::nullopt;
        }
        std::uint64_t seen;
        {
            std::lock_guard lock(mutex_);
            seen = cq_events_;
        }
        // Arm, then look again: a completion queued before the arm is not lost, because an arm
        // over completions newer than the last notification fires at once
        // (docs/completion-queues.md).
        cq_->Dispatch->NdkArmCq(cq_, NDK_CQ_NOTIFY_ANY);
        if (cq_->Dispatch->NdkGetCqResultsEx(cq_, &r, 1) == 1) {
            return r;
        }
        std::unique_lock lock(mutex_);
        auto woken = [&] { return cq_events_ != seen || (until_disconnect && peer_disconnected_); };
        if (!changed_.wait_until(lock, deadline, woken)) {
            return std::nullopt;
        }
        if (cq_events_ == seen) {
            lock.unlock();
            // The peer is gone: one last look, since the disconnect may have raced a completion.
            if (cq_->Dispatch->NdkGetCqResultsEx(cq_, &r, 1) == 1) {
                return r;
            }
            return std::nullopt;
        }
    }
}

std::optional<NDK_RESULT_EX> endpoint::next_of(NDK_OPERATION_TYPE type) {
    for (auto it = stash_.begin(); it != stash_.end(); ++it) {
        if (it->Type == type) {
            NDK_RESULT_EX r = *it;
            stash_.erase(it);
            return r;
        }
    }
    for (;;) {
        NDK_RESULT_EX r{};
        if (cq_->Dispatch->NdkGetCqResultsEx(cq_, &r, 1) == 0) {
            std::deque<NDK_RESULT_EX> kept;
            kept.swap(stash_);
            auto got = next();
            kept.swap(stash_);
            if (!got) {
                return std::nullopt;
            }
            r = *got;
        }
        // A receive-and-invalidate is still a receive for whoever waits for one.
        const bool match = r.Type == type || (type == NdkOperationTypeReceive &&
                                              r.Type == NdkOperationTypeReceiveAndInvalidate);
        if (match) {
            return r;
        }
        stash_.push_back(r);
    }
}

const message* endpoint::received(const NDK_RESULT_EX& r) const {
    const auto slot = reinterpret_cast<std::uintptr_t>(r.RequestContext);
    if (slot == 0 || slot > k_receive_slots || r.Status != STATUS_SUCCESS ||
        r.BytesTransferred < sizeof(message)) {
        return nullptr;
    }
    const auto* m = reinterpret_cast<const message*>(buffer_ + slot_offset(unsigned(slot - 1)));
    return m->magic == k_magic ? m : nullptr;
}

std::span<const std::uint8_t> endpoint::received_payload(const NDK_RESULT_EX& r) const {
    const auto slot = reinterpret_cast<std::uintptr_t>(r.RequestContext);
    if (received(r) == nullptr) {
        return {};
    }
    return {buffer_ + slot_offset(unsigned(slot - 1)) + sizeof(message),
            r.BytesTransferred - sizeof(message)};
}

NTSTATUS endpoint::repost(const NDK_RESULT_EX& r) {
    const auto slot = reinterpret_cast<std::uintptr_t>(r.RequestContext);
    if (slot == 0 || slot > k_receive_slots) {
        return STATUS_INVALID_PARAMETER;
    }
    return post_receive_slot(unsigned(slot - 1));
}

NTSTATUS endpoint::disconnect() {
    if (!connected_) {
        return STATUS_SUCCESS;
    }
    connected_ = false;
    pending w(*this);
    return request("NdkDisconnect",
                   connector_->Dispatch->NdkDisconnect(connector_, on_request, w.get()), *w);
}

bool endpoint::wait_peer_disconnect() {
    return wait_until([&] { return peer_disconnected_; });
}

bool endpoint::peer_disconnected() const {
    std::lock_guard lock(mutex_);
    return peer_disconnected_;
}

std::uint32_t endpoint::mr_remote_token() const {
    return mr_->Dispatch->NdkGetRemoteTokenFromMr(mr_);
}

std::uint64_t endpoint::now_ps() const {
    return ndksim_adapter_now(nic_);
}

std::uint64_t endpoint::frames_received() const {
    ndksim_adapter_stats stats{};
    stats.size = sizeof stats;
    return ndksim_adapter_get_stats(nic_, &stats) == STATUS_SUCCESS ? stats.packets_received : 0;
}

void endpoint::close_object(NDK_OBJECT_HEADER* object) {
    if (object == nullptr) {
        return;
    }
    pending w(*this);
    // Every close is the first entry of its dispatch table (REFERENCE.md 5.2).
    auto* any = reinterpret_cast<NDK_QP*>(object);
    if (any->Dispatch->NdkCloseQp(object, on_close, w.get()) == STATUS_PENDING) {
        wait_until([&] { return w->done; });
    } else {
        w->done = true;  // closed inline: no callback follows
    }
}

ULONG endpoint::close() {
    if (nic_ == nullptr) {
        return 0;
    }
    ULONG leaked = 0;
    if (adapter_ != nullptr) {
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(mw_));
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(connector_));
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(listener_));
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(qp_));
        if (registered_) {
            pending w(*this);
            request("NdkDeregisterMr", mr_->Dispatch->NdkDeregisterMr(mr_, on_request, w.get()),
                    *w);
        }
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(mr_));
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(cq_));
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(pd_));
        {
            // A connection request that arrived but was never taken is ours to close too.
            std::lock_guard lock(mutex_);
            if (incoming_ != nullptr && incoming_ != connector_) {
                connector_ = incoming_;
            } else {
                connector_ = nullptr;
            }
        }
        close_object(reinterpret_cast<NDK_OBJECT_HEADER*>(connector_));
        ndksim_close_ndk_adapter(nic_, adapter_);
        leaked = ndksim_adapter_leaked_objects(nic_);
    }
    ndksim_adapter_destroy(nic_);
    nic_ = nullptr;
    adapter_ = nullptr;
    pd_ = nullptr, cq_ = nullptr, qp_ = nullptr, mr_ = nullptr, mw_ = nullptr;
    listener_ = nullptr, connector_ = nullptr;
    if (mdl_ != nullptr) {
        IoFreeMdl(mdl_);
        mdl_ = nullptr;
    }
    std::free(buffer_);
    buffer_ = nullptr;
    return leaked;
}

}  // namespace ndksim::loopback
