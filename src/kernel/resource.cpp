// SPDX-License-Identifier: MIT
// Executive resources (ERESOURCE). The owners and waiters of a resource need more room than the
// WDK's 0x68-byte structure offers the simulator, so they live in a table keyed by the
// resource's address from ExInitializeResourceLite to ExDeleteResourceLite; the consumer's
// structure is zeroed and left alone. Owners are identified by their thread object
// (ExGetCurrentResourceThread).

#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "kernel/critical_region.hpp"
#include "kernel/irql.hpp"
#include "kernel/live_objects.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

struct resource_state {
    std::mutex mutex;
    std::condition_variable released;
    ERESOURCE_THREAD exclusive_owner = 0;
    ULONG exclusive_count = 0;
    std::unordered_map<ERESOURCE_THREAD, ULONG> shared;  // owner -> acquisitions
};

struct resource_table {
    std::mutex mutex;
    std::unordered_map<const ERESOURCE*, std::shared_ptr<resource_state>> live;
};

resource_table& the_resource_table() {
    static resource_table* const instance = new resource_table;
    return *instance;
}

ERESOURCE_THREAD me() {
    return ExGetCurrentResourceThread();
}

std::shared_ptr<resource_state> find(const char* function, const ERESOURCE* resource) {
    resource_table& table = the_resource_table();
    const std::lock_guard lock(table.mutex);
    const auto it = table.live.find(resource);
    if (it == table.live.end()) {
        report_violation(function,
                         "the resource is not initialized (ExInitializeResourceLite) or was "
                         "deleted",
                         current_irql());
        return nullptr;
    }
    return it->second;
}

bool acquire(const char* function, PERESOURCE resource, bool exclusive, bool wait) {
    // ExAcquireResourceExclusiveLite/SharedLite: IRQL <= APC_LEVEL with normal kernel APCs
    // disabled (KeEnterCriticalRegion), so the owner cannot be suspended holding it.
    require_apcs_disabled(function);
    const std::shared_ptr<resource_state> state = find(function, resource);
    if (state == nullptr) {
        return false;
    }
    const ERESOURCE_THREAD self = me();
    std::unique_lock lock(state->mutex);
    // The exclusive owner may acquire again, exclusively or shared; both nest.
    if (state->exclusive_owner == self) {
        ++state->exclusive_count;
        return true;
    }
    if (exclusive) {
        if (state->shared.contains(self)) {
            // A shared owner asking for exclusive access waits for itself on Windows.
            report_violation(function,
                             "the calling thread holds the resource shared and would deadlock "
                             "waiting for exclusive access",
                             current_irql());
            return false;
        }
        const auto free = [&] { return state->exclusive_owner == 0 && state->shared.empty(); };
        if (!free()) {
            if (!wait) {
                return false;
            }
            state->released.wait(lock, free);
        }
        state->exclusive_owner = self;
        state->exclusive_count = 1;
        return true;
    }
    const auto it = state->shared.find(self);
    if (it != state->shared.end()) {
        ++it->second;
        return true;
    }
    const auto no_writer = [&] { return state->exclusive_owner == 0; };
    if (!no_writer()) {
        if (!wait) {
            return false;
        }
        state->released.wait(lock, no_writer);
    }
    state->shared[self] = 1;
    return true;
}

void release(const char* function, PERESOURCE resource, ERESOURCE_THREAD owner) {
    // ExReleaseResourceLite: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    const std::shared_ptr<resource_state> state = find(function, resource);
    if (state == nullptr) {
        return;
    }
    bool wake = false;
    {
        const std::lock_guard lock(state->mutex);
        if (state->exclusive_owner == owner) {
            if (--state->exclusive_count == 0) {
                state->exclusive_owner = 0;
                wake = true;
            }
        } else if (const auto it = state->shared.find(owner); it != state->shared.end()) {
            if (--it->second == 0) {
                state->shared.erase(it);
                wake = state->shared.empty();
            }
        } else {
            report_violation(function, "the thread does not own the resource", current_irql());
        }
    }
    if (wake) {
        state->released.notify_all();
    }
}

}  // namespace

std::size_t forget_resources_in(const unsigned char* begin, const unsigned char* end) {
    resource_table& table = the_resource_table();
    const std::lock_guard lock(table.mutex);
    return std::erase_if(table.live, [&](const auto& entry) {
        const auto* at = reinterpret_cast<const unsigned char*>(entry.first);
        return at >= begin && at < end;
    });
}

}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS ExInitializeResourceLite(PERESOURCE Resource) {
    // ExInitializeResourceLite: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("ExInitializeResourceLite", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    resource_table& table = the_resource_table();
    const std::lock_guard lock(table.mutex);
    if (table.live.contains(Resource)) {
        report_violation("ExInitializeResourceLite",
                         "the resource is already initialized (delete it first)", current_irql());
    }
    *Resource = ERESOURCE{};
    table.live[Resource] = std::make_shared<resource_state>();
    return STATUS_SUCCESS;
}

NDKSIM_API NTSTATUS ExDeleteResourceLite(PERESOURCE Resource) {
    require_irql_at_most("ExDeleteResourceLite", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    const std::shared_ptr<resource_state> state = find("ExDeleteResourceLite", Resource);
    if (state == nullptr) {
        return STATUS_SUCCESS;
    }
    {
        const std::lock_guard lock(state->mutex);
        if (state->exclusive_owner != 0 || !state->shared.empty()) {
            report_violation("ExDeleteResourceLite", "the resource is still owned", current_irql());
        }
    }
    resource_table& table = the_resource_table();
    const std::lock_guard lock(table.mutex);
    table.live.erase(Resource);
    return STATUS_SUCCESS;
}

NDKSIM_API BOOLEAN ExAcquireResourceExclusiveLite(PERESOURCE Resource, BOOLEAN Wait) {
    return acquire("ExAcquireResourceExclusiveLite", Resource, true, Wait != FALSE) ? TRUE : FALSE;
}

NDKSIM_API BOOLEAN ExAcquireResourceSharedLite(PERESOURCE Resource, BOOLEAN Wait) {
    return acquire("ExAcquireResourceSharedLite", Resource, false, Wait != FALSE) ? TRUE : FALSE;
}

NDKSIM_API VOID ExReleaseResourceLite(PERESOURCE Resource) {
    release("ExReleaseResourceLite", Resource, me());
}

NDKSIM_API VOID ExReleaseResourceForThreadLite(PERESOURCE Resource,
                                               ERESOURCE_THREAD ResourceThreadId) {
    release("ExReleaseResourceForThreadLite", Resource, ResourceThreadId);
}

NDKSIM_API BOOLEAN ExIsResourceAcquiredExclusiveLite(PERESOURCE Resource) {
    require_irql_at_most("ExIsResourceAcquiredExclusiveLite", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    const std::shared_ptr<resource_state> state =
        find("ExIsResourceAcquiredExclusiveLite", Resource);
    if (state == nullptr) {
        return FALSE;
    }
    const std::lock_guard lock(state->mutex);
    return state->exclusive_owner == me() ? TRUE : FALSE;
}

NDKSIM_API ULONG ExIsResourceAcquiredSharedLite(PERESOURCE Resource) {
    require_irql_at_most("ExIsResourceAcquiredSharedLite", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    const std::shared_ptr<resource_state> state = find("ExIsResourceAcquiredSharedLite", Resource);
    if (state == nullptr) {
        return 0;
    }
    const ERESOURCE_THREAD self = me();
    const std::lock_guard lock(state->mutex);
    if (state->exclusive_owner == self) {
        return state->exclusive_count;
    }
    const auto it = state->shared.find(self);
    return it == state->shared.end() ? 0 : it->second;
}

NDKSIM_API SIZE_T ndksim_kernel_resources_live(void) {
    resource_table& table = the_resource_table();
    const std::lock_guard lock(table.mutex);
    return table.live.size();
}

}  // extern "C"
