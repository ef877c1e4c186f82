// SPDX-License-Identifier: MIT
#pragma once
// An NDK_ADAPTER handle opened on a device (REFERENCE.md 5.11: several may be open at once).
// It is the root of its object tree: CQs, PDs, connectors, listeners and shared endpoints are
// its children, and it reports the negotiated version in every object header below it.

#include <cstdint>

#include "core/object.hpp"

namespace ndksim::core {

struct ndk_version {
    std::uint16_t major;
    std::uint16_t minor;
};

class adapter final : public object {
  public:
    /// Highest NDKPI version implemented, per major (REFERENCE.md section 1): 1.2 and 2.1.
    static constexpr ndk_version k_highest_v1{1, 2};
    static constexpr ndk_version k_highest_v2{2, 1};

    /// Version negotiation (REFERENCE.md section 1): the opener names a major and the lowest
    /// minor it can use; the handle runs at the highest minor of that major. Returns
    /// ndis_bad_version for an unknown major or a minor above the highest, else success with
    /// the version to run at in `granted`.
    [[nodiscard]] static status check_version(ndk_version requested, ndk_version& granted) noexcept;

    /// Opens a handle at `version` (already negotiated).
    static ref<adapter> open(device& dev, ndk_version version);

    ndk_version version() const noexcept { return version_; }
    std::uint32_t number() const noexcept { return number_; }

    /// CLOSE_NDK_ADAPTER_HANDLER: blocks until every object below the handle has closed and
    /// every callback has returned (rule 6), driving the loop in deterministic mode. Objects
    /// still open after the device's close timeout (threaded) or once nothing is left to run
    /// (deterministic) are reported as leaked; they stay usable and closable.
    void close_blocking();

  private:
    adapter(device& dev, ndk_version version, std::uint32_t number);
    void on_closed() override;

    ndk_version version_;
    std::uint32_t number_;
};

}  // namespace ndksim::core
