// SPDX-License-Identifier: MIT
#include "loopback/client.hpp"

#include <cstring>

namespace ndksim::loopback {

NTSTATUS client::connect(const std::string& peer, std::uint16_t nd_port, const std::string& text,
                         std::string* peer_text) {
    std::vector<std::byte> reply;
    NTSTATUS s = ep_.connect(peer, nd_port, std::as_bytes(std::span(text)), &reply);
    if (s != STATUS_SUCCESS) {
        error_ = ep_.error();
        return s;
    }
    peer_text->assign(reinterpret_cast<const char*>(reply.data()), reply.size());
    auto r = ep_.next_of(NdkOperationTypeReceive);
    const message* m = r ? ep_.received(*r) : nullptr;
    if (m == nullptr || m->kind != msg_kind::hello) {
        error_ =
            r ? std::string("the first message is not a hello: ") + ndksim_status_name(r->Status)
              : "no hello within the timeout";
        return STATUS_IO_TIMEOUT;
    }
    peer_ = peer_memory{m->address, m->mr_token, m->mw_token, m->length};
    return ep_.repost(*r);
}

NTSTATUS client::run(NDK_OPERATION_TYPE type, NTSTATUS posted) {
    if (posted != STATUS_SUCCESS) {
        return posted;
    }
    auto r = ep_.next_of(type);
    if (!r) {
        error_ = "no completion within the timeout";
        return STATUS_IO_TIMEOUT;
    }
    return r->Status;
}

NTSTATUS client::write(std::uint64_t local, ULONG length, std::uint64_t offset, std::uint32_t token,
                       ULONG flags) {
    const std::uint64_t t0 = ep_.now_ps();
    NTSTATUS s = run(NdkOperationTypeWrite,
                     ep_.post_write(local, length, peer_.address + offset, token, flags));
    latencies_.push_back(ep_.now_ps() - t0);
    return s;
}

NTSTATUS client::read(std::uint64_t local, ULONG length, std::uint64_t offset,
                      std::uint32_t token) {
    const std::uint64_t t0 = ep_.now_ps();
    NTSTATUS s =
        run(NdkOperationTypeRead, ep_.post_read(local, length, peer_.address + offset, token));
    latencies_.push_back(ep_.now_ps() - t0);
    return s;
}

std::optional<message> client::ask(const message& m, std::optional<std::uint32_t> invalidate) {
    NTSTATUS s = run(NdkOperationTypeSend, ep_.send_message(m, invalidate));
    if (s != STATUS_SUCCESS) {
        error_ = std::string("request send: ") + ndksim_status_name(s);
        return std::nullopt;
    }
    auto r = ep_.next_of(NdkOperationTypeReceive);
    if (!r) {
        error_ = "no reply within the timeout";
        return std::nullopt;
    }
    const message* reply = ep_.received(*r);
    if (reply == nullptr || reply->kind != msg_kind::reply) {
        error_ = std::string("bad reply: ") + ndksim_status_name(r->Status);
        return std::nullopt;
    }
    message copy = *reply;
    ep_.repost(*r);
    return copy;
}

bool client::remote_fill(std::uint64_t offset, std::uint64_t length, std::uint64_t seed) {
    message m;
    m.kind = msg_kind::fill, m.offset = offset, m.length = length, m.seed = seed;
    auto reply = ask(m);
    return reply && reply->result == 0;
}

std::uint64_t client::remote_verify(std::uint64_t offset, std::uint64_t length,
                                    std::uint64_t seed) {
    message m;
    m.kind = msg_kind::verify, m.offset = offset, m.length = length, m.seed = seed;
    auto reply = ask(m);
    return reply ? reply->result : ~std::uint64_t{0};
}

std::optional<message> client::send_payload(std::uint64_t local, ULONG length, std::uint64_t seed) {
    message m;
    m.kind = msg_kind::verify, m.seed = seed;
    NTSTATUS s = run(NdkOperationTypeSend, ep_.send_message_with_payload(m, local, length));
    if (s != STATUS_SUCCESS) {
        error_ = std::string("payload send: ") + ndksim_status_name(s);
        return std::nullopt;
    }
    auto r = ep_.next_of(NdkOperationTypeReceive);
    const message* reply = r ? ep_.received(*r) : nullptr;
    if (reply == nullptr) {
        error_ = "no reply to the payload";
        return std::nullopt;
    }
    message copy = *reply;
    ep_.repost(*r);
    return copy;
}

bool client::send_and_invalidate(std::uint64_t seed) {
    message m;
    m.kind = msg_kind::invalidated, m.offset = 0, m.length = peer_.length, m.seed = seed;
    auto reply = ask(m, peer_.mw_token);
    return reply && reply->result == 0;
}

bool client::rebind() {
    message m;
    m.kind = msg_kind::rebind;
    auto reply = ask(m);
    if (!reply || reply->result != 0) {
        return false;
    }
    peer_.mw_token = reply->mw_token;
    return true;
}

bool client::bye() {
    message m;
    m.kind = msg_kind::bye;
    return run(NdkOperationTypeSend, ep_.send_message(m)) == STATUS_SUCCESS;
}

}  // namespace ndksim::loopback
