// SPDX-License-Identifier: MIT
// Object references and kernel handles (object.hpp): ObfReferenceObject, ObfDereferenceObject,
// ObReferenceObjectByHandle and ZwClose.

#include "kernel/object.hpp"

#include <mutex>
#include <unordered_map>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::object {
namespace {

struct record {
    POBJECT_TYPE type;
    LONG_PTR references;
    void (*destroy)(void*);
};

struct handle_record {
    void* object;
    ACCESS_MASK granted;
};

class object_table {
  public:
    std::mutex mutex;
    std::unordered_map<void*, record> objects;
    std::unordered_map<HANDLE, handle_record> handles;
    // Kernel handles have the top bit set on Windows and are multiples of 4.
    ULONG_PTR next_handle = 0xFFFFFFFF80000004ULL;
};

object_table& the_object_table() {
    static object_table* const instance = new object_table;
    return *instance;
}

// Drops one reference with the table locked; returns the destroy call to make after unlocking.
void (*drop(object_table& table, void* object, LONG_PTR* count))(void*) {
    record& r = table.objects.at(object);
    *count = --r.references;
    if (r.references > 0) {
        return nullptr;
    }
    void (*destroy)(void*) = r.destroy;
    table.objects.erase(object);
    return destroy;
}

}  // namespace

void add(void* object, POBJECT_TYPE type, LONG_PTR references, void (*destroy)(void*)) {
    object_table& table = the_object_table();
    const std::lock_guard lock(table.mutex);
    table.objects[object] = record{type, references, destroy};
}

HANDLE open_handle(void* object, ACCESS_MASK granted) {
    object_table& table = the_object_table();
    const std::lock_guard lock(table.mutex);
    ++table.objects.at(object).references;
    auto* handle = reinterpret_cast<HANDLE>(table.next_handle);
    table.next_handle += 4;
    table.handles[handle] = handle_record{object, granted};
    return handle;
}

bool reference(const char* function, void* object, LONG_PTR* count) {
    object_table& table = the_object_table();
    const std::lock_guard lock(table.mutex);
    const auto it = table.objects.find(object);
    if (it == table.objects.end()) {
        report_violation(function, "the object is not a live kernel object", current_irql());
        return false;
    }
    *count = ++it->second.references;
    return true;
}

bool dereference(const char* function, void* object, LONG_PTR* count) {
    object_table& table = the_object_table();
    void (*destroy)(void*) = nullptr;
    {
        const std::lock_guard lock(table.mutex);
        if (!table.objects.contains(object)) {
            report_violation(function,
                             "the object is not a live kernel object (a reference too many?)",
                             current_irql());
            return false;
        }
        destroy = drop(table, object, count);
    }
    if (destroy != nullptr) {
        destroy(object);
    }
    return true;
}

}  // namespace ndksim::kernel::object

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS ObReferenceObjectByHandle(HANDLE Handle, ACCESS_MASK DesiredAccess,
                                              POBJECT_TYPE ObjectType, KPROCESSOR_MODE AccessMode,
                                              PVOID* Object,
                                              POBJECT_HANDLE_INFORMATION HandleInformation) {
    UNREFERENCED_PARAMETER(DesiredAccess);
    UNREFERENCED_PARAMETER(AccessMode);
    // ObReferenceObjectByHandle: "Callers ... must be running at IRQL = PASSIVE_LEVEL."
    require_irql_at_most("ObReferenceObjectByHandle", PASSIVE_LEVEL,
                         "callers must be at PASSIVE_LEVEL");
    object::object_table& table = object::the_object_table();
    const std::lock_guard lock(table.mutex);
    const auto h = table.handles.find(Handle);
    if (h == table.handles.end()) {
        return STATUS_INVALID_HANDLE;
    }
    object::record& r = table.objects.at(h->second.object);
    if (ObjectType != nullptr && ObjectType != r.type) {
        return STATUS_OBJECT_TYPE_MISMATCH;
    }
    ++r.references;
    *Object = h->second.object;
    if (HandleInformation != nullptr) {
        HandleInformation->HandleAttributes = 0;
        HandleInformation->GrantedAccess = h->second.granted;
    }
    return STATUS_SUCCESS;
}

NDKSIM_API LONG_PTR ObfReferenceObject(PVOID Object) {
    // ObfReferenceObject: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("ObfReferenceObject", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    LONG_PTR count = 0;
    object::reference("ObfReferenceObject", Object, &count);
    return count;
}

NDKSIM_API LONG_PTR ObfDereferenceObject(PVOID Object) {
    require_irql_at_most("ObfDereferenceObject", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    LONG_PTR count = 0;
    object::dereference("ObfDereferenceObject", Object, &count);
    return count;
}

NDKSIM_API NTSTATUS ZwClose(HANDLE Handle) {
    // ZwClose: IRQL PASSIVE_LEVEL.
    require_irql_at_most("ZwClose", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    object::object_table& table = object::the_object_table();
    void (*destroy)(void*) = nullptr;
    void* target = nullptr;
    {
        const std::lock_guard lock(table.mutex);
        const auto h = table.handles.find(Handle);
        if (h == table.handles.end()) {
            // A kernel-mode caller closing an invalid handle bug-checks
            // (INVALID_KERNEL_HANDLE).
            report_violation("ZwClose", "the handle is not open", current_irql());
            return STATUS_INVALID_HANDLE;
        }
        target = h->second.object;
        table.handles.erase(h);
        LONG_PTR count = 0;
        destroy = object::drop(table, target, &count);
    }
    if (destroy != nullptr) {
        destroy(target);
    }
    return STATUS_SUCCESS;
}

}  // extern "C"
