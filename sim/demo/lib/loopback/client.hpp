// SPDX-License-Identifier: MIT
#pragma once
// The connecting side of the loopback pair: connects, receives the listener's hello (window
// token, region token, address, length) and drives RDMA operations against that memory, asking
// the listener to fill or verify its side through request/reply messages.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loopback/endpoint.hpp"
#include "loopback/report.hpp"

namespace ndksim::loopback {

/// The listener's memory as its hello described it.
struct peer_memory {
    std::uint64_t address = 0;
    std::uint32_t mr_token = 0;
    std::uint32_t mw_token = 0;
    std::uint64_t length = 0;
};

class client {
  public:
    explicit client(endpoint& ep) : ep_(ep) {}

    /// Connects with private data and waits for the hello. Fills error() on failure.
    NTSTATUS connect(const std::string& peer, std::uint16_t nd_port, const std::string& text,
                     std::string* peer_text);
    const peer_memory& peer() const { return peer_; }

    /// Posts a write (or read) of [local, local + length) to the peer's remote + `offset` under
    /// `token`, waits for its completion and returns its status. Records the simulated latency.
    NTSTATUS write(std::uint64_t local, ULONG length, std::uint64_t offset, std::uint32_t token,
                   ULONG flags = 0);
    NTSTATUS read(std::uint64_t local, ULONG length, std::uint64_t offset, std::uint32_t token);

    /// Sends a request and waits for its reply; nothing if either failed (error() says why).
    std::optional<message> ask(const message& m, std::optional<std::uint32_t> invalidate = {});
    /// Asks the listener to fill / verify [offset, offset + length) with the pattern `seed`.
    bool remote_fill(std::uint64_t offset, std::uint64_t length, std::uint64_t seed);
    /// 0 if the listener found the pattern; otherwise 1 + the first bad offset.
    std::uint64_t remote_verify(std::uint64_t offset, std::uint64_t length, std::uint64_t seed);
    /// Sends `length` bytes of pattern `seed` after a verify request; the listener checks them.
    std::optional<message> send_payload(std::uint64_t local, ULONG length, std::uint64_t seed);
    /// A SendAndInvalidate of the window token; the listener then guards [0, length) with
    /// `seed`. True if the listener saw the invalidation of that very token.
    bool send_and_invalidate(std::uint64_t seed);
    /// Asks the listener to bind its window again; the new token is in peer().mw_token.
    bool rebind();
    /// Tells the listener no more requests follow.
    bool bye();

    /// Simulated latency of each write and read, in picoseconds.
    const std::vector<std::uint64_t>& latencies() const { return latencies_; }
    const std::string& error() const { return error_; }

  private:
    NTSTATUS run(NDK_OPERATION_TYPE type, NTSTATUS posted);

    endpoint& ep_;
    peer_memory peer_;
    std::vector<std::uint64_t> latencies_;
    std::string error_;
};

}  // namespace ndksim::loopback
