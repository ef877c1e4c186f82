// SPDX-License-Identifier: MIT
#pragma once
// What the NDK benchmarks share: a status check that throws (a benchmark's setup failing is
// fatal) and completion callbacks that store their result where the context points.

#include <stdexcept>
#include <string>

#include <ndkpi.h>
#include <ndksim/ndksim.h>

namespace ndksim::bench {

/// Throws unless `s` is STATUS_SUCCESS or STATUS_PENDING; `what` names the call.
inline void ok(NTSTATUS s, const char* what) {
    if (s != STATUS_SUCCESS && s != STATUS_PENDING) {
        throw std::runtime_error(std::string(what) + ": " + ndksim_status_name(s));
    }
}

/// NDK_FN_CREATE_COMPLETION: stores the object in *(NDK_OBJECT_HEADER**)c.
inline void on_create(PVOID c, NTSTATUS, NDK_OBJECT_HEADER* o) {
    *static_cast<NDK_OBJECT_HEADER**>(c) = o;
}

/// NDK_FN_REQUEST_COMPLETION: stores the status in *(NTSTATUS*)c.
inline void on_request(PVOID c, NTSTATUS s) {
    *static_cast<NTSTATUS*>(c) = s;
}

/// NDK_FN_CLOSE_COMPLETION that does nothing.
inline void on_close(PVOID) {}

/// NDK_FN_CQ_NOTIFICATION_CALLBACK that does nothing (benchmarks poll).
inline void on_cq(PVOID, NTSTATUS) {}

/// NDK_FN_CONNECT_EVENT_CALLBACK: stores the incoming connector in *(NDK_CONNECTOR**)c.
inline void on_connect(PVOID c, NDK_CONNECTOR* conn) {
    *static_cast<NDK_CONNECTOR**>(c) = conn;
}

/// The IPv4 socket address 10.`net`.0.`last`:`port` (port in host order).
inline SOCKADDR_IN ipv4(unsigned char net, unsigned char last, USHORT port) {
    SOCKADDR_IN s{};
    s.sin_family = WS_AF_INET;
    s.sin_port = static_cast<USHORT>((port >> 8) | (port << 8));
    auto* b = reinterpret_cast<unsigned char*>(&s.sin_addr);
    b[0] = 10;
    b[1] = net;
    b[2] = 0;
    b[3] = last;
    return s;
}

/// Runs the loop until `count` successful completions were taken from `cq`; throws on a failed
/// completion or when the loop goes idle first.
inline void drain(NDK_CQ* cq, ndksim_loop* loop, int count) {
    int done = 0;
    NDK_RESULT results[64];
    while (done < count) {
        const ULONG n = cq->Dispatch->NdkGetCqResults(cq, results, 64);
        for (ULONG i = 0; i < n; ++i) {
            if (results[i].Status != STATUS_SUCCESS) {
                throw std::runtime_error(ndksim_status_name(results[i].Status));
            }
        }
        done += static_cast<int>(n);
        if (n == 0 && ndksim_loop_run_one(loop) == FALSE) {
            throw std::runtime_error("idle before all writes completed");
        }
    }
}

}  // namespace ndksim::bench
