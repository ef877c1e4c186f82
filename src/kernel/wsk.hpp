// SPDX-License-Identifier: MIT
#pragma once
// The simulated WSK subsystem's state (wsk.h, wskndk.h): registrations, their captures of the
// provider NPI, calls in progress through the provider tables, and the NDK adapters opened
// through them.
//
// Concurrency and ownership: one process-wide mutex guards every registration's counters and
// lists; one condition variable wakes captures waiting for the subsystem (an adapter appearing,
// see api/interface_registry) or for deregistration, and WskDeregister waiting for captures and
// calls to end. A registration is a shared_ptr kept in the process table from WskRegister until
// WskDeregister finishes; the consumer's WSK_REGISTRATION block and the PWSK_CLIENT it is given
// hold its raw address, which is only ever used as a key into that table, so a stale block or
// client is recognised, never dereferenced. Lock order: this mutex before the interface
// registry's; the registry calls back into this module without holding its own lock.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "wskndk.h"

namespace ndksim::kernel::wsk {

/// An NDK adapter opened through a registration, with the interface it was opened on (the
/// LUID names that adapter instance even if its index is given to a later adapter).
struct ndk_handle {
    NDK_ADAPTER* adapter;
    NET_IFINDEX index;
    std::uint64_t luid;
};

struct registration {
    PVOID client_context = nullptr;
    const WSK_CLIENT_DISPATCH* client_dispatch = nullptr;
    bool deregistering = false;
    std::uint32_t captures = 0;  ///< successful captures not yet released
    std::uint32_t calls = 0;     ///< calls into the provider tables in progress
    std::vector<ndk_handle> ndk_adapters;
};

/// The one version the provider implements.
inline constexpr USHORT k_version = MAKE_WSK_VERSION(1, 0);

/// The provider dispatch table every capture hands out (wsk_provider.cpp).
extern const WSK_PROVIDER_DISPATCH k_provider_dispatch;

/// The NDK extension table (wsk_ndk.cpp).
extern const WSK_PROVIDER_NDK_DISPATCH k_ndk_dispatch;

/// Counts one call into the provider tables on a live client for its lifetime, so that
/// WskDeregister waits for it. Empty (false) when `client` is no live registration; `function`
/// names the caller in the error logged then.
class call_guard {
  public:
    call_guard(PWSK_CLIENT client, const char* function);
    ~call_guard();
    call_guard(const call_guard&) = delete;
    call_guard& operator=(const call_guard&) = delete;

    explicit operator bool() const noexcept { return reg_ != nullptr; }
    registration& reg() const noexcept { return *reg_; }

  private:
    std::shared_ptr<registration> reg_;
};

/// Adds NDK objects that WskCloseNdkAdapter found still open to the next leak report
/// (ndksim_kernel_wsk_report counts them once, then forgets them).
void note_leaked_objects(std::size_t count);

/// Records an NDK adapter opened through `reg`.
void add_ndk_adapter(registration& reg, const ndk_handle& handle);

/// Removes `adapter` from `reg`'s list; false when `reg` did not open it.
bool remove_ndk_adapter(registration& reg, NDK_ADAPTER* adapter, ndk_handle& removed);

/// Captures blocked in WskCaptureProviderNPI now (tests wait on it instead of sleeping).
std::size_t waiting_captures();

}  // namespace ndksim::kernel::wsk
