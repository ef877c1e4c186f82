// SPDX-License-Identifier: MIT
#pragma once
// The ND ports of one adapter (REFERENCE.md rule 25 and concepts/ndkpi-listeners--connectors--
// and-endpoints.md). A port is reserved by a listener, a shared endpoint or a connector's
// private endpoint, and stays busy until every holder has let it go: a listener holds +1 and
// each connector it accepted +1.

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "util/status.hpp"

namespace ndksim::core {

class endpoint_table {
  public:
    /// First and last port of the ephemeral range (REFERENCE.md 2.8: 49152-65535).
    static constexpr std::uint16_t k_ephemeral_first = 49152;
    static constexpr std::uint16_t k_ephemeral_last = 65535;

    /// Reserves `port` (0 = pick a free ephemeral port) for a new endpoint and stores the
    /// chosen port in `port`. Returns success, sharing_violation (port already reserved) or
    /// too_many_addresses (no ephemeral port left).
    status reserve(std::uint16_t& port);

    /// Adds a holder to an already reserved port (an accepted connector pins its listener's
    /// port).
    void acquire(std::uint16_t port);

    /// Drops a holder; the port becomes free when the last holder is gone.
    void release(std::uint16_t port);

    /// True while `port` is reserved.
    bool in_use(std::uint16_t port) const;

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::uint16_t, std::uint32_t> holders_;
    std::uint16_t next_ephemeral_ = k_ephemeral_first;
};

}  // namespace ndksim::core
