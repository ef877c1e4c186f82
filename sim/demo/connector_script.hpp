// SPDX-License-Identifier: MIT
#pragma once
// The connector's side of ndksim-loopback: the demonstration sequence (or, in bench mode, the
// write bandwidth and latency measurement) against a listener running run_listener().

#include <cstdint>
#include <string>

#include "loopback/endpoint.hpp"
#include "loopback/report.hpp"

namespace ndksim::loopback {

struct connector_options {
    std::string peer = "127.0.0.1";
    std::uint16_t nd_port = 445;
    std::uint32_t size = 64 * 1024;
    unsigned iterations = 1;
    bool bench = false;
    unsigned depth = 16;  ///< bench: writes kept outstanding
};

/// Runs the connector's side on an opened endpoint. Returns the number of failed checks.
unsigned run_connector(endpoint& ep, const connector_options& options, report& out);

}  // namespace ndksim::loopback
