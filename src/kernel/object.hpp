// SPDX-License-Identifier: MIT
#pragma once
// The object manager's part the simulator needs: reference counts of the kernel objects it
// creates for drivers (thread objects), and the kernel handle table. Objects are keyed by
// address; the last reference calls the object's destroy function.

#include "wdm.h"

// An object type drivers name (*PsThreadType); opaque to them, as wdm.h declares only the
// pointer type.
struct _OBJECT_TYPE {
    const char* Name;
};

namespace ndksim::kernel::object {

/// Records `object` of `type` with `references` references; `destroy` runs when the count
/// reaches zero (outside the table's lock).
void add(void* object, POBJECT_TYPE type, LONG_PTR references, void (*destroy)(void*));

/// Opens a kernel handle to a recorded object, taking one reference.
HANDLE open_handle(void* object, ACCESS_MASK granted);

/// Adds or drops one reference; false (with a violation naming `function`) for an object
/// that is not recorded.
bool reference(const char* function, void* object, LONG_PTR* count);
bool dereference(const char* function, void* object, LONG_PTR* count);

}  // namespace ndksim::kernel::object
