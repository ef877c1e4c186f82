// SPDX-License-Identifier: MIT
// System threads and thread objects: PsCreateSystemThread, PsTerminateSystemThread,
// PsGetCurrentThread. A thread object is a dispatcher object (Type 6) the simulator allocates;
// it is signaled when its thread ends and freed with its last reference (object.hpp).
//
// PsTerminateSystemThread must leave the driver's frames without returning. The start routine
// is called right after a setjmp on the thread's own entry frame, and PsTerminateSystemThread
// longjmps back there. Unlike a C++ exception or pthread_exit (forced unwinding), longjmp needs
// no unwind tables in the driver's C code, runs no cleanups (Windows runs none either), and is
// supported by ASan and TSan, which intercept setjmp/longjmp to keep their shadow stacks right.
// The frames in between are the driver's and the simulator's PsTerminateSystemThread, which
// holds no objects with destructors at the jump.

#include "kernel/thread.hpp"

#include <atomic>
#include <csetjmp>
#include <system_error>
#include <thread>

#include "kernel/critical_region.hpp"
#include "kernel/dispatcher.hpp"
#include "kernel/irql.hpp"
#include "kernel/object.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::thread {
namespace {

_OBJECT_TYPE g_thread_type{"Thread"};
POBJECT_TYPE g_thread_type_pointer = &g_thread_type;

// The System process's id on Windows; every simulated system thread belongs to it.
constexpr ULONG_PTR k_system_process_id = 4;

struct thread_object {
    DISPATCHER_HEADER header;  // first: KeWaitFor* read it through the object pointer
    ULONG_PTR id;
    NTSTATUS exit_status;
    std::jmp_buf* exit_point;  // set while a system thread's start routine runs
};

std::atomic<ULONG_PTR> g_next_id{8};
std::atomic<std::size_t> g_running{0};

thread_local thread_object* t_current = nullptr;

void destroy(void* object) {
    delete static_cast<thread_object*>(object);
}

thread_object* make_object(LONG_PTR references) {
    auto* t = new thread_object{};
    initialize_header(t->header, k_thread_object,
                      static_cast<UCHAR>(sizeof(DISPATCHER_HEADER) / sizeof(LONG)), 0);
    // Windows thread ids are multiples of 4.
    t->id = g_next_id.fetch_add(4, std::memory_order_relaxed);
    t->exit_status = STATUS_SUCCESS;
    t->exit_point = nullptr;
    object::add(t, &g_thread_type, references, destroy);
    return t;
}

void release(thread_object* t) {
    LONG_PTR count = 0;
    object::dereference("thread exit", t, &count);
}

// A thread the simulator did not start (a test's main thread, a worker) gets a thread object
// on first use; it is signaled and released when the thread exits.
struct adopted_thread {
    thread_object* object = nullptr;
    ~adopted_thread() {
        if (object != nullptr) {
            signal(object->header);
            release(object);
        }
    }
};
thread_local adopted_thread t_adopted;

thread_object& current() {
    if (t_current == nullptr) {
        t_adopted.object = make_object(1);
        t_current = t_adopted.object;
    }
    return *t_current;
}

// Calls the start routine with an exit point PsTerminateSystemThread can jump to. Nothing in
// this frame has a destructor, and nothing set after setjmp is read after the jump.
[[gnu::noinline]] void call_start_routine(thread_object* self, PKSTART_ROUTINE routine,
                                          PVOID context) {
    std::jmp_buf exit_point;
    self->exit_point = &exit_point;
    if (setjmp(exit_point) == 0) {
        routine(context);
    }
    self->exit_point = nullptr;
}

void system_thread_main(thread_object* self, PKSTART_ROUTINE routine, PVOID context) {
    t_current = self;
    call_start_routine(self, routine, context);
    check_returned_at_passive("system thread start routine");
    // Counted as ended before its object is signaled, so a driver that waits on the object at
    // unload never sees its thread reported as still running.
    g_running.fetch_sub(1, std::memory_order_acq_rel);
    signal(self->header);
    t_current = nullptr;
    release(self);
}

}  // namespace

std::size_t running_count() {
    return g_running.load(std::memory_order_acquire);
}

}  // namespace ndksim::kernel::thread

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API POBJECT_TYPE* PsThreadType = &thread::g_thread_type_pointer;

NDKSIM_API NTSTATUS PsCreateSystemThread(PHANDLE ThreadHandle, ULONG DesiredAccess,
                                         POBJECT_ATTRIBUTES ObjectAttributes, HANDLE ProcessHandle,
                                         PCLIENT_ID ClientId, PKSTART_ROUTINE StartRoutine,
                                         PVOID StartContext) {
    UNREFERENCED_PARAMETER(ObjectAttributes);
    UNREFERENCED_PARAMETER(ProcessHandle);
    // PsCreateSystemThread: "Callers of this routine must be running at IRQL =
    // PASSIVE_LEVEL."
    require_irql_at_most("PsCreateSystemThread", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    // One reference for the running thread, one for the handle below.
    thread::thread_object* t = thread::make_object(1);
    const HANDLE handle = object::open_handle(t, DesiredAccess);
    thread::g_running.fetch_add(1, std::memory_order_acq_rel);
    try {
        std::thread(thread::system_thread_main, t, StartRoutine, StartContext).detach();
    } catch (const std::system_error&) {
        thread::g_running.fetch_sub(1, std::memory_order_acq_rel);
        thread::release(t);
        ZwClose(handle);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    *ThreadHandle = handle;
    if (ClientId != nullptr) {
        ClientId->UniqueProcess = reinterpret_cast<HANDLE>(thread::k_system_process_id);
        ClientId->UniqueThread = reinterpret_cast<HANDLE>(t->id);
    }
    return STATUS_SUCCESS;
}

NDKSIM_API NTSTATUS PsTerminateSystemThread(NTSTATUS ExitStatus) {
    // PsTerminateSystemThread: "must be called ... at IRQL = PASSIVE_LEVEL".
    require_irql_at_most("PsTerminateSystemThread", PASSIVE_LEVEL,
                         "callers must be at PASSIVE_LEVEL");
    thread::thread_object* self = thread::t_current;
    if (self == nullptr || self->exit_point == nullptr) {
        // Windows returns STATUS_INVALID_PARAMETER when the caller is not a system thread.
        report_violation("PsTerminateSystemThread",
                         "the caller is not a thread started by PsCreateSystemThread",
                         current_irql());
        return STATUS_INVALID_PARAMETER;
    }
    self->exit_status = ExitStatus;
    std::longjmp(*self->exit_point, 1);
}

NDKSIM_API PETHREAD PsGetCurrentThread(void) {
    return reinterpret_cast<PETHREAD>(&thread::current());
}

NDKSIM_API PKTHREAD KeGetCurrentThread(void) {
    return reinterpret_cast<PKTHREAD>(&thread::current());
}

NDKSIM_API HANDLE PsGetCurrentThreadId(void) {
    return reinterpret_cast<HANDLE>(thread::current().id);
}

}  // extern "C"
