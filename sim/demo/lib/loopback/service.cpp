// SPDX-License-Identifier: MIT
#include "loopback/service.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace ndksim::loopback {

void fill_pattern(std::uint8_t* bytes, std::uint64_t length, std::uint64_t seed,
                  std::uint64_t start) {
    for (std::uint64_t i = 0; i < length; ++i) {
        bytes[i] = pattern_byte(seed, start + i);
    }
}

std::uint64_t check_pattern(const std::uint8_t* bytes, std::uint64_t length, std::uint64_t seed,
                            std::uint64_t start) {
    for (std::uint64_t i = 0; i < length; ++i) {
        if (bytes[i] != pattern_byte(seed, start + i)) {
            return i + 1;
        }
    }
    return 0;
}

namespace {

// What the listener remembers across requests.
struct session {
    std::uint32_t mw_token = 0;
    bool guard_set = false;  // after "invalidated": the range a refused write must not touch
    std::uint64_t guard_offset = 0, guard_length = 0, guard_seed = 0;
    bool bye = false;
};

bool in_range(const endpoint& ep, std::uint64_t offset, std::uint64_t length) {
    return offset <= ep.data_size() && length <= ep.data_size() - offset;
}

// Handles one request; fills in the reply. Returns false if the request was malformed.
bool handle(endpoint& ep, session& s, const NDK_RESULT_EX& r, const message& m, message& reply,
            report& out) {
    reply.kind = msg_kind::reply;
    reply.result = 0;
    const bool range_ok = in_range(ep, m.offset, m.length);
    switch (m.kind) {
        case msg_kind::fill:
            if (!range_ok) {
                return false;
            }
            fill_pattern(ep.data() + m.offset, m.length, m.seed);
            return true;
        case msg_kind::verify: {
            auto payload = ep.received_payload(r);
            if (!payload.empty()) {
                // A send with data after the message: the data itself is what is checked.
                reply.result = static_cast<std::uint32_t>(
                    check_pattern(payload.data(), payload.size(), m.seed));
                reply.length = payload.size();
                out.check(reply.result == 0, "send payload of {} bytes differs at byte {}",
                          payload.size(), reply.result - 1);
                return true;
            }
            if (!range_ok) {
                return false;
            }
            reply.result =
                static_cast<std::uint32_t>(check_pattern(ep.data() + m.offset, m.length, m.seed));
            out.check(reply.result == 0, "data written by the peer differs at byte {}",
                      m.offset + reply.result - 1);
            return true;
        }
        case msg_kind::invalidated: {
            // NDKPI 1.2: the receiver of a SendAndInvalidate sees ReceiveAndInvalidate with the
            // invalidated token in TypeSpecificCompletionOutput.
            const bool seen =
                r.Type == NdkOperationTypeReceiveAndInvalidate &&
                static_cast<std::uint32_t>(r.TypeSpecificCompletionOutput) == s.mw_token;
            reply.result = seen ? 0 : 1;
            if (!range_ok) {
                return false;
            }
            fill_pattern(ep.data() + m.offset, m.length, m.seed);
            s.guard_set = true;
            s.guard_offset = m.offset, s.guard_length = m.length, s.guard_seed = m.seed;
            if (out.check(seen,
                          "expected ReceiveAndInvalidate of token {:#x}, got type {:#x} "
                          "token {:#x}",
                          s.mw_token, unsigned(r.Type),
                          std::uint64_t(r.TypeSpecificCompletionOutput))) {
                out.step("send-and-invalidate received: window token {:#x} is now invalid",
                         s.mw_token);
            }
            return true;
        }
        case msg_kind::rebind: {
            std::uint32_t token = 0;
            NTSTATUS st = ep.bind_window(0, ep.data_size(), &token);
            reply.result = st == STATUS_SUCCESS ? 0 : 1;
            reply.mw_token = token;
            if (out.check(st == STATUS_SUCCESS, "rebind: {}", ep.error())) {
                s.mw_token = token;
                s.guard_set = false;
                out.step("window bound again: token {:#x}", token);
            }
            return true;
        }
        case msg_kind::bye:
            s.bye = true;
            return true;
        default:
            return false;
    }
}

bool abandoned(const listener_options& options) {
    return options.abandoned != nullptr && options.abandoned->load();
}

// The next completion, or nothing once the peer has been silent for the idle timeout. It waits
// in slices, so that an abandoned connection is noticed while no completion comes, and so that
// frames from the peer (a bench's one-sided writes, which complete nothing here) restart the
// idle bound: only a peer that went silent, such as a killed process, ends the wait.
std::optional<NDK_RESULT_EX> next_request(endpoint& ep, const listener_options& options) {
    using clock = std::chrono::steady_clock;
    auto deadline = clock::now() + options.idle_timeout;
    std::uint64_t heard = ep.frames_received();
    while (!abandoned(options)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0) {
            return std::nullopt;
        }
        auto r = ep.next(true, std::min(left, std::chrono::milliseconds(50)));
        if (r || ep.peer_disconnected()) {
            return r;
        }
        if (const std::uint64_t frames = ep.frames_received(); frames != heard) {
            heard = frames;
            deadline = clock::now() + options.idle_timeout;
        }
    }
    return std::nullopt;
}

}  // namespace

unsigned run_listener(endpoint& ep, const listener_options& options, report& out) {
    const unsigned before = out.failures();
    if (!out.check(ep.listen(options.nd_port) == STATUS_SUCCESS, "{}", ep.error())) {
        return out.failures() - before;
    }
    out.step("listening on {} ND port {}", ep.options().address, options.nd_port);
    if (options.on_listening) {
        options.on_listening();
    }
    const std::string text = "listener " + ep.options().address + " accepts";
    std::vector<std::byte> peer;
    NTSTATUS st = ep.accept(std::as_bytes(std::span(text)), &peer);
    if (!out.check(st == STATUS_SUCCESS, "accept: {}", ep.error())) {
        return out.failures() - before;
    }
    out.step("connected; peer's private data \"{}\", ours \"{}\"",
             std::string(reinterpret_cast<const char*>(peer.data()), peer.size()), text);

    session s;
    st = ep.bind_window(0, ep.data_size(), &s.mw_token);
    if (!out.check(st == STATUS_SUCCESS, "bind: {}", ep.error())) {
        return out.failures() - before;
    }
    out.step("memory window bound over {} bytes at {}: token {:#x}", ep.data_size(),
             static_cast<const void*>(ep.data()), s.mw_token);
    message hello;
    hello.kind = msg_kind::hello;
    hello.address = reinterpret_cast<std::uintptr_t>(ep.data());
    hello.mr_token = ep.mr_remote_token();
    hello.mw_token = s.mw_token;
    hello.length = ep.data_size();
    out.check(ep.send_message(hello) == STATUS_SUCCESS, "hello could not be posted");
    out.step("window token and address sent to the peer in a SEND");

    unsigned requests = 0;
    bool qp_failed = false;
    while (!s.bye) {
        auto r = next_request(ep, options);
        if (abandoned(options)) {
            out.step("connection abandoned by the connector after {} requests", requests);
            const ULONG leaked = ep.close();
            out.check(leaked == 0, "{} objects leaked", leaked);
            return out.failures() - before;
        }
        if (!r) {
            out.check(ep.peer_disconnected(), "no request and no disconnect for {} ms",
                      options.idle_timeout.count());
            break;
        }
        if (r->Type == NdkOperationTypeSend) {
            out.check(r->Status == STATUS_SUCCESS || qp_failed, "reply send: {}",
                      ndksim_status_name(r->Status));
            continue;
        }
        if (r->Status != STATUS_SUCCESS) {
            // A refused access moves both QPs to error: the posted receives come back cancelled
            // (docs/completion-statuses.md). The connector reports the access status itself.
            qp_failed = true;
            continue;
        }
        const message* m = ep.received(*r);
        if (!out.check(m != nullptr, "a receive of {} bytes that is not a request",
                       r->BytesTransferred)) {
            continue;
        }
        message request = *m;
        message reply;
        ++requests;
        const bool ok = handle(ep, s, *r, request, reply, out);
        out.check(ok, "malformed request (kind {})", unsigned(request.kind));
        if (!ok) {
            reply.result = 1;
        }
        out.check(ep.repost(*r) == STATUS_SUCCESS, "receive could not be posted again");
        if (!s.bye) {
            out.check(ep.send_message(reply) == STATUS_SUCCESS, "reply could not be posted");
        }
    }
    if (s.bye || ep.wait_peer_disconnect()) {
        out.step("peer disconnected after {} requests", requests);
    } else {
        out.check(false, "the peer never disconnected");
    }
    if (s.guard_set) {
        std::uint64_t bad = check_pattern(ep.data() + s.guard_offset, s.guard_length, s.guard_seed);
        if (out.check(bad == 0, "memory changed after the window was invalidated (byte {})",
                      bad - 1)) {
            out.step("memory untouched by the refused write ({} bytes checked)", s.guard_length);
        }
    }
    out.check(ep.disconnect() == STATUS_SUCCESS, "disconnect: {}", ep.error());
    const ULONG leaked = ep.close();
    out.check(leaked == 0, "{} objects leaked", leaked);
    out.step("closed every object, {} leaked", leaked);
    return out.failures() - before;
}

}  // namespace ndksim::loopback
