// SPDX-License-Identifier: MIT
#pragma once
// The seam between the C ABI (ndkpi.h) and core objects; only src/api includes ndkpi.h.
//
// A public NDK object ({Header; Dispatch}) lives in the core object's abi_slot, followed by a
// pointer back to the core object. A consumer's header pointer is turned back into the core
// object by reading that pointer and checking the slot's magic and the object kind, so a wrong
// or foreign pointer is reported instead of being used. Internal code never reads Dispatch
// (REFERENCE.md rule 7: the consumer may overwrite it).

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>

#include "api/call_context.hpp"
#include "api/callback.hpp"
#include "api/dispatch_tables.hpp"
#include "core/adapter.hpp"
#include "core/callbacks.hpp"
#include "core/device.hpp"
#include "core/object.hpp"
#include "ndkpi.h"
#include "util/log.hpp"
#include "util/status.hpp"

namespace ndksim::api {

static_assert(sizeof(NDK_QP) == sizeof(core::abi_slot::head), "public object size (x64: 0x30)");
static_assert(offsetof(core::abi_slot, head) == 0, "header at the start of the slot");
static_assert(static_cast<int>(core::object_kind::srq) == NdkObjectTypeSrq);
static_assert(static_cast<int>(core::object_kind::adapter) == NdkObjectTypeAdapter);
static_assert(static_cast<int>(core::object_kind::listener) == NdkObjectTypeListener);

/// The one mapping from internal status to NTSTATUS (values are shared, see util/status.hpp).
constexpr NTSTATUS to_nt(status s) noexcept {
    return static_cast<NTSTATUS>(s);
}
constexpr status from_nt(NTSTATUS s) noexcept {
    return static_cast<status>(s);
}

/// The public header of a core object.
inline NDK_OBJECT_HEADER* header_of(core::object& o) noexcept {
    return reinterpret_cast<NDK_OBJECT_HEADER*>(o.abi().head);
}

/// Fills the public head of `o` (rule 7): negotiated version, object type, NdkReserved zeroed,
/// Dispatch set. Returns the typed public object.
template <class Ndk, class Dispatch>
Ndk* init_head(core::object& o, const Dispatch* table) noexcept {
    auto* pub = reinterpret_cast<Ndk*>(o.abi().head);
    std::memset(o.abi().head, 0, sizeof(o.abi().head));
    const core::ndk_version v = o.handle().version();
    pub->Header.Version.Major = v.major;
    pub->Header.Version.Minor = v.minor;
    pub->Header.ObjectType = static_cast<NDK_OBJECT_TYPE>(o.kind());
    // An adapter with a fault engine gives its objects the hooked tables (fault_tables.cpp).
    pub->Dispatch = o.dev().consumer_hooks() != nullptr ? hooked_table(table) : table;
    return pub;
}

/// Recovers the core object behind a consumer's header pointer, or nullptr after logging why
/// (null, not an ndksim object, or of another kind than `kind`).
core::object* object_from_header(const NDK_OBJECT_HEADER* header, core::object_kind kind,
                                 const char* function) noexcept;

/// Typed form of object_from_header() for a public NDK_xxx pointer.
template <class T, class Ndk>
T* from_ndk(Ndk* pub, core::object_kind kind, const char* function) noexcept {
    return static_cast<T*>(
        object_from_header(pub == nullptr ? nullptr : &pub->Header, kind, function));
}

/// An NDK_FN_REQUEST_COMPLETION bound to its context, run at DISPATCH_LEVEL.
inline core::request_fn bind_request(NDK_FN_REQUEST_COMPLETION done, PVOID context) {
    return [done, context, call = current_call()](status s) {
        if (call.hooks != nullptr) [[unlikely]] {
            call.hooks->on_callback(call.function, s);
        }
        run_callback("NDK_FN_REQUEST_COMPLETION", [&] { done(context, to_nt(s)); });
    };
}

/// An NDK_FN_CQ_NOTIFICATION_CALLBACK or NDK_FN_SRQ_NOTIFICATION_CALLBACK (same C shape) bound
/// to its context, run at DISPATCH_LEVEL; empty when `notify` is NULL. `callback` names the type.
template <class Fn>
core::notify_fn bind_notification(const char* callback, Fn notify, PVOID context) {
    if (notify == nullptr) {
        return {};
    }
    return [callback, notify, context](std::int32_t s) {
        run_callback(callback, [&] { notify(context, static_cast<NTSTATUS>(s)); });
    };
}

/// Delivers a newly created object (rule 2): inline, by writing *out and returning
/// STATUS_SUCCESS; or pending, by returning STATUS_PENDING and passing the object to `done`
/// from the engine, leaving *out untouched. Takes over the consumer's reference in `obj`.
template <class Ndk, class T>
NTSTATUS deliver_create(core::ref<T> obj, Ndk* pub, NDK_FN_CREATE_COMPLETION done, PVOID context,
                        Ndk** out) {
    T* raw = obj.detach();
    NDK_OBJECT_HEADER* header = &pub->Header;
    const status s = raw->finish_request(
        status::success,
        [done, context, header, call = current_call()](status result) {
            if (call.hooks != nullptr) [[unlikely]] {
                call.hooks->on_callback(call.function, result);
            }
            run_callback("NDK_FN_CREATE_COMPLETION", [&] { done(context, to_nt(result), header); });
        },
        raw->dev().limits().control_latency_ps);
    if (s == status::success) {
        *out = pub;
    }
    return to_nt(s);
}

/// Runs `body`, turning an allocation failure into STATUS_INSUFFICIENT_RESOURCES: exceptions
/// never cross the C ABI (STYLE.md habit 8).
template <class F>
NTSTATUS guarded(const char* function, F&& body) noexcept {
    try {
        return std::forward<F>(body)();
    } catch (const std::bad_alloc&) {
        NDKSIM_ERROR("{}: out of memory", function);
        return STATUS_INSUFFICIENT_RESOURCES;
    } catch (const std::exception& e) {
        NDKSIM_ERROR("{}: internal error: {}", function, e.what());
        return STATUS_INTERNAL_ERROR;
    }
}

/// Logs a consumer error (a NULL required parameter and the like) and returns `s`.
NTSTATUS consumer_error(const char* function, const char* what, status s) noexcept;

/// Generic NdkCloseXxx body (NDK_FN_CLOSE_OBJECT) shared by every object kind.
NTSTATUS close_object(NDK_OBJECT_HEADER* header, core::object_kind kind,
                      NDK_FN_CLOSE_COMPLETION done, PVOID context, const char* function) noexcept;

/// Generic NdkQueryExtension: no extension interfaces are defined (REFERENCE.md 3), so every
/// query is STATUS_NOT_SUPPORTED after the object pointer is checked.
NTSTATUS query_extension(NDK_OBJECT_HEADER* header, core::object_kind kind,
                         const char* function) noexcept;

/// The name NdkQueryExtension is reported under for each object kind, indexed by object_kind.
inline constexpr std::array<const char*, 11> k_query_extension_names = {
    "NdkQueryExtension",
    "NdkQueryExtension(adapter)",
    "NdkQueryExtension(qp)",
    "NdkQueryExtension(cq)",
    "NdkQueryExtension(mr)",
    "NdkQueryExtension(mw)",
    "NdkQueryExtension(pd)",
    "NdkQueryExtension(shared endpoint)",
    "NdkQueryExtension(connector)",
    "NdkQueryExtension(listener)",
    "NdkQueryExtension(srq)",
};

/// NDK_FN_QUERY_EXTENSION for the objects of kind `Kind`: the NdkQueryExtension entry of that
/// kind's dispatch table.
template <core::object_kind Kind>
NTSTATUS query_extension_of(NDK_OBJECT_HEADER* header, GUID*, NDK_VERSION,
                            NDK_EXTENSION_INTERFACE*) noexcept {
    static_assert(static_cast<std::size_t>(Kind) < k_query_extension_names.size());
    return query_extension(header, Kind, k_query_extension_names[static_cast<std::size_t>(Kind)]);
}

}  // namespace ndksim::api
