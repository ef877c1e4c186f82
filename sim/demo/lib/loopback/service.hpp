// SPDX-License-Identifier: MIT
#pragma once
// The listening side of the loopback pair: it accepts one connection, binds its memory window
// over its data area, sends the window's token and address in a SEND (the "hello"), then serves
// the connector's requests (fill, verify, invalidated, rebind, bye) until the connector says bye
// or disconnects. Every request is answered by a reply message; every check is reported.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "loopback/endpoint.hpp"
#include "loopback/report.hpp"

namespace ndksim::loopback {

struct listener_options {
    std::uint16_t nd_port = 445;
    std::function<void()> on_listening;  ///< called once the listener is listening
    /// How long the listener waits for the next request while no frame arrives from the peer
    /// before it gives up (a peer that disconnects is noticed sooner, through the disconnect
    /// event; one that dies, such as a killed process, only through this bound).
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(10)};
    /// When it points to true, the listener stops waiting for requests, closes without a
    /// disconnect and judges nothing more: the connector abandoned a connection it cut off, so
    /// no request and no disconnect will ever arrive. Checked at least every 50 ms.
    const std::atomic<bool>* abandoned = nullptr;
};

/// Runs the listener's side on an opened endpoint. Returns the number of failed checks.
unsigned run_listener(endpoint& ep, const listener_options& options, report& out);

/// Fills `bytes` with the pattern `seed`, as if they sat at `start` of the pattern.
void fill_pattern(std::uint8_t* bytes, std::uint64_t length, std::uint64_t seed,
                  std::uint64_t start = 0);
/// 0 if `bytes` hold the pattern `seed` from `start`; otherwise 1 + the first bad offset.
std::uint64_t check_pattern(const std::uint8_t* bytes, std::uint64_t length, std::uint64_t seed,
                            std::uint64_t start = 0);

}  // namespace ndksim::loopback
