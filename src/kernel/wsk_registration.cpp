// SPDX-License-Identifier: MIT
// WSK registration (wsk.h): WskRegister, WskCaptureProviderNPI, WskReleaseProviderNPI,
// WskQueryProviderCharacteristics, WskDeregister, and the leak report. kernel/wsk.hpp has the
// locking design.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

#include "api/interface_registry.hpp"
#include "kernel/irql.hpp"
#include "kernel/wsk.hpp"
#include "ndksim.h"
#include "util/log.hpp"

namespace ndksim::kernel::wsk {
namespace {

// ReservedRegistrationState of a block WskRegister initialized, and of one WskDeregister
// finished with ("NDKSWSKR" and "NDKSWSKD").
constexpr ULONGLONG k_registered = 0x4E444B535753'4B52ULL;
constexpr ULONGLONG k_deregistered = 0x4E444B535753'4B44ULL;

// How long WskDeregister waits between warnings that it is still waiting.
constexpr auto k_deregister_warning = std::chrono::seconds(10);

struct subsystem {
    std::mutex mutex;
    std::condition_variable changed;
    std::map<const registration*, std::shared_ptr<registration>> live;
    std::vector<ndk_handle> orphaned;  ///< NDK adapters still open when their client deregistered
    std::size_t waiting = 0;
    std::size_t leaked_objects = 0;  ///< NDK objects found open by WskCloseNdkAdapter, unreported
};

// Never destroyed: a driver that never deregisters still has its registration reported.
subsystem& sys() {
    static subsystem* s = new subsystem();
    return *s;
}

// Called by the interface registry after an adapter appears or goes.
void interfaces_changed() {
    subsystem& s = sys();
    { std::lock_guard lock(s.mutex); }
    s.changed.notify_all();
}

// The live registration a block names; requires the mutex.
std::shared_ptr<registration> registered_locked(const WSK_REGISTRATION& block) {
    if (block.ReservedRegistrationState != k_registered) {
        return nullptr;
    }
    auto it = sys().live.find(static_cast<const registration*>(block.ReservedRegistrationContext));
    return it == sys().live.end() ? nullptr : it->second;
}

bool version_supported(USHORT requested) {
    return requested == k_version;
}

}  // namespace

call_guard::call_guard(PWSK_CLIENT client, const char* function) {
    subsystem& s = sys();
    std::lock_guard lock(s.mutex);
    auto it = s.live.find(static_cast<const registration*>(client));
    if (it == s.live.end()) {
        NDKSIM_ERROR("{}: {} is not the Client of a live WSK registration", function,
                     static_cast<const void*>(client));
        return;
    }
    reg_ = it->second;
    ++reg_->calls;
}

call_guard::~call_guard() {
    if (reg_ == nullptr) {
        return;
    }
    {
        std::lock_guard lock(sys().mutex);
        --reg_->calls;
    }
    sys().changed.notify_all();
}

void note_leaked_objects(std::size_t count) {
    std::lock_guard lock(sys().mutex);
    sys().leaked_objects += count;
}

void add_ndk_adapter(registration& reg, const ndk_handle& handle) {
    std::lock_guard lock(sys().mutex);
    reg.ndk_adapters.push_back(handle);
}

bool remove_ndk_adapter(registration& reg, NDK_ADAPTER* adapter, ndk_handle& removed) {
    std::lock_guard lock(sys().mutex);
    auto it = std::find_if(reg.ndk_adapters.begin(), reg.ndk_adapters.end(),
                           [adapter](const ndk_handle& h) { return h.adapter == adapter; });
    if (it == reg.ndk_adapters.end()) {
        return false;
    }
    removed = *it;
    reg.ndk_adapters.erase(it);
    return true;
}

std::size_t waiting_captures() {
    std::lock_guard lock(sys().mutex);
    return sys().waiting;
}

}  // namespace ndksim::kernel::wsk

using namespace ndksim;
using namespace ndksim::kernel::wsk;

extern "C" {

NDKSIM_API NTSTATUS WskRegister(PWSK_CLIENT_NPI WskClientNpi, PWSK_REGISTRATION WskRegistration) {
    // WskRegister: "IRQL: PASSIVE_LEVEL".
    kernel::require_irql_at_most("WskRegister", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    if (WskClientNpi == nullptr || WskRegistration == nullptr ||
        WskClientNpi->Dispatch == nullptr) {
        NDKSIM_ERROR("WskRegister: NULL WskClientNpi, WskRegistration or client Dispatch");
        return STATUS_INVALID_PARAMETER;
    }
    subsystem& s = sys();
    {
        std::lock_guard lock(s.mutex);
        if (registered_locked(*WskRegistration) != nullptr) {
            NDKSIM_ERROR("WskRegister: the WSK_REGISTRATION at {} is already registered",
                         static_cast<const void*>(WskRegistration));
            return STATUS_INVALID_PARAMETER;
        }
        auto reg = std::make_shared<registration>();
        reg->client_context = WskClientNpi->ClientContext;
        reg->client_dispatch = WskClientNpi->Dispatch;
        s.live.emplace(reg.get(), reg);
        WskRegistration->ReservedRegistrationState = k_registered;
        WskRegistration->ReservedRegistrationContext = reg.get();
        WskRegistration->ReservedRegistrationLock = 0;
    }
    api::interfaces::set_change_listener(&interfaces_changed);
    return STATUS_SUCCESS;
}

NDKSIM_API NTSTATUS WskCaptureProviderNPI(PWSK_REGISTRATION WskRegistration, ULONG WaitTimeout,
                                          PWSK_PROVIDER_NPI WskProviderNpi) {
    constexpr const char* fn = "WskCaptureProviderNPI";
    // WskCaptureProviderNPI: PASSIVE_LEVEL if WaitTimeout != WSK_NO_WAIT, else <= DISPATCH_LEVEL.
    if (WaitTimeout == WSK_NO_WAIT) {
        kernel::require_irql_at_most(fn, DISPATCH_LEVEL,
                                     "callers must be at IRQL <= DISPATCH_LEVEL");
    } else {
        kernel::require_irql_at_most(
            fn, PASSIVE_LEVEL,
            "callers must be at PASSIVE_LEVEL unless WaitTimeout is WSK_NO_WAIT");
    }
    if (WskRegistration == nullptr || WskProviderNpi == nullptr) {
        NDKSIM_ERROR("{}: NULL WskRegistration or WskProviderNpi", fn);
        return STATUS_INVALID_PARAMETER;
    }
    subsystem& s = sys();
    std::unique_lock lock(s.mutex);
    if (WskRegistration->ReservedRegistrationState == k_deregistered) {
        return STATUS_DEVICE_NOT_READY;
    }
    const std::shared_ptr<registration> reg = registered_locked(*WskRegistration);
    if (reg == nullptr) {
        NDKSIM_ERROR("{}: the WSK_REGISTRATION at {} was not initialized by WskRegister", fn,
                     static_cast<const void*>(WskRegistration));
        return STATUS_INVALID_PARAMETER;
    }
    const auto ready = [&reg] { return reg->deregistering || api::interfaces::any(); };
    if (!ready() && WaitTimeout != WSK_NO_WAIT) {
        ++s.waiting;
        if (WaitTimeout == WSK_INFINITE_WAIT) {
            s.changed.wait(lock, ready);
        } else {
            s.changed.wait_for(lock, std::chrono::milliseconds(WaitTimeout), ready);
        }
        --s.waiting;
    }
    // After WskDeregister every capture fails, including those it woke.
    if (reg->deregistering || !api::interfaces::any()) {
        return STATUS_DEVICE_NOT_READY;
    }
    if (!version_supported(reg->client_dispatch->Version)) {
        NDKSIM_WARN("{}: the client asks for WSK {}.{}; the provider implements 1.0", fn,
                    WSK_MAJOR_VERSION(reg->client_dispatch->Version),
                    WSK_MINOR_VERSION(reg->client_dispatch->Version));
        return STATUS_NOINTERFACE;
    }
    ++reg->captures;
    WskProviderNpi->Client = reg.get();
    WskProviderNpi->Dispatch = &k_provider_dispatch;
    return STATUS_SUCCESS;
}

NDKSIM_API VOID WskReleaseProviderNPI(PWSK_REGISTRATION WskRegistration) {
    constexpr const char* fn = "WskReleaseProviderNPI";
    kernel::require_irql_at_most(fn, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    if (WskRegistration == nullptr) {
        NDKSIM_ERROR("{}: NULL WskRegistration", fn);
        return;
    }
    subsystem& s = sys();
    {
        std::lock_guard lock(s.mutex);
        const std::shared_ptr<registration> reg = registered_locked(*WskRegistration);
        if (reg == nullptr || reg->captures == 0) {
            NDKSIM_ERROR("{}: no captured provider NPI to release on the WSK_REGISTRATION at {}",
                         fn, static_cast<const void*>(WskRegistration));
            return;
        }
        --reg->captures;
    }
    s.changed.notify_all();
}

NDKSIM_API NTSTATUS WskQueryProviderCharacteristics(
    PWSK_REGISTRATION WskRegistration, PWSK_PROVIDER_CHARACTERISTICS WskProviderCharacteristics) {
    constexpr const char* fn = "WskQueryProviderCharacteristics";
    kernel::require_irql_at_most(fn, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    if (WskRegistration == nullptr || WskProviderCharacteristics == nullptr) {
        NDKSIM_ERROR("{}: NULL WskRegistration or WskProviderCharacteristics", fn);
        return STATUS_INVALID_PARAMETER;
    }
    std::lock_guard lock(sys().mutex);
    const std::shared_ptr<registration> reg = registered_locked(*WskRegistration);
    if (reg == nullptr) {
        if (WskRegistration->ReservedRegistrationState == k_deregistered) {
            return STATUS_DEVICE_NOT_READY;
        }
        NDKSIM_ERROR("{}: the WSK_REGISTRATION at {} was not initialized by WskRegister", fn,
                     static_cast<const void*>(WskRegistration));
        return STATUS_INVALID_PARAMETER;
    }
    if (reg->deregistering || !api::interfaces::any()) {
        return STATUS_DEVICE_NOT_READY;
    }
    WskProviderCharacteristics->HighestVersion = k_version;
    WskProviderCharacteristics->LowestVersion = k_version;
    return STATUS_SUCCESS;
}

NDKSIM_API VOID WskDeregister(PWSK_REGISTRATION WskRegistration) {
    constexpr const char* fn = "WskDeregister";
    // WskDeregister: "IRQL: PASSIVE_LEVEL" (it blocks).
    kernel::require_irql_at_most(fn, PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    if (WskRegistration == nullptr) {
        NDKSIM_ERROR("{}: NULL WskRegistration", fn);
        return;
    }
    subsystem& s = sys();
    std::unique_lock lock(s.mutex);
    const std::shared_ptr<registration> reg = registered_locked(*WskRegistration);
    if (reg == nullptr || reg->deregistering) {
        NDKSIM_ERROR("{}: the WSK_REGISTRATION at {} is not registered (deregistered twice?)", fn,
                     static_cast<const void*>(WskRegistration));
        return;
    }
    reg->deregistering = true;
    s.changed.notify_all();  // captures waiting for the subsystem give up now
    // WskDeregister "will wait to return until ... all captured instances of the provider NPI
    // are released [and] any outstanding calls to functions pointed to by WSK_PROVIDER_DISPATCH
    // members have returned". WSK sockets are not simulated, so none can be open.
    const auto idle = [&reg] { return reg->captures == 0 && reg->calls == 0; };
    while (!s.changed.wait_for(lock, k_deregister_warning, idle)) {
        NDKSIM_WARN(
            "{}: still waiting for {} captured provider NPIs to be released and {} "
            "provider calls to return",
            fn, reg->captures, reg->calls);
    }
    s.live.erase(reg.get());
    WskRegistration->ReservedRegistrationState = k_deregistered;
    WskRegistration->ReservedRegistrationContext = nullptr;
    if (!reg->ndk_adapters.empty()) {
        NDKSIM_WARN("{}: {} NDK adapters opened with WskOpenNdkAdapter are still open", fn,
                    reg->ndk_adapters.size());
        s.orphaned.insert(s.orphaned.end(), reg->ndk_adapters.begin(), reg->ndk_adapters.end());
    }
}

NDKSIM_API SIZE_T ndksim_kernel_wsk_report(void) {
    std::vector<std::shared_ptr<registration>> regs;
    std::vector<ndk_handle> adapters;
    std::size_t leaked_objects = 0;
    {
        std::lock_guard lock(sys().mutex);
        leaked_objects = std::exchange(sys().leaked_objects, 0);
        for (const auto& [key, reg] : sys().live) {
            regs.push_back(reg);
            adapters.insert(adapters.end(), reg->ndk_adapters.begin(), reg->ndk_adapters.end());
        }
        adapters.insert(adapters.end(), sys().orphaned.begin(), sys().orphaned.end());
    }
    for (const auto& reg : regs) {
        NDKSIM_ERROR(
            "WSK leak: registration {} was not deregistered ({} captured provider NPIs "
            "not released)",
            static_cast<const void*>(reg.get()), reg->captures);
    }
    for (const ndk_handle& h : adapters) {
        const api::adapter_ref ref = api::interfaces::find_by_luid(h.luid);
        if (ref) {
            NDKSIM_ERROR(
                "WSK leak: NDK adapter {} on interface {} was not closed with "
                "WskCloseNdkAdapter ({} NDK objects live on its adapter)",
                static_cast<const void*>(h.adapter), h.index,
                ndksim_adapter_live_objects(ref.get()));
        } else {
            NDKSIM_ERROR(
                "WSK leak: NDK adapter {} on interface {} was not closed with "
                "WskCloseNdkAdapter (its simulated adapter is destroyed)",
                static_cast<const void*>(h.adapter), h.index);
        }
    }
    if (leaked_objects != 0) {
        NDKSIM_ERROR(
            "WSK leak: {} NDK objects were still open when WskCloseNdkAdapter closed their "
            "adapter (named in the log lines of those closes)",
            leaked_objects);
    }
    return regs.size() + adapters.size() + leaked_objects;
}

}  // extern "C"
