// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using SystemThread = KernelTest;

struct Start {
    KEVENT go;
    std::atomic<KIRQL> irql{HIGH_LEVEL};
    std::atomic<PETHREAD> self{nullptr};
    std::atomic<bool> after_terminate{false};
    bool terminate = false;
    bool raise = false;

    Start() { KeInitializeEvent(&go, NotificationEvent, FALSE); }
};

// Ends through PsTerminateSystemThread from a nested call when asked to.
void finish(Start* s) {
    if (s->terminate) {
        PsTerminateSystemThread(STATUS_SUCCESS);
        s->after_terminate = true;  // never reached
    }
}

VOID start_routine(PVOID context) {
    auto* s = static_cast<Start*>(context);
    s->irql = KeGetCurrentIrql();
    s->self = PsGetCurrentThread();
    LARGE_INTEGER timeout = patience();
    KeWaitForSingleObject(&s->go, Executive, KernelMode, FALSE, &timeout);
    if (s->raise) {
        KIRQL old = PASSIVE_LEVEL;
        KeRaiseIrql(DISPATCH_LEVEL, &old);
    }
    finish(s);
}

// Starts a thread on `s` and returns a referenced pointer to its thread object.
PVOID start(Start& s, HANDLE* handle_out = nullptr) {
    HANDLE handle = nullptr;
    OBJECT_ATTRIBUTES attributes;
    InitializeObjectAttributes(&attributes, nullptr, OBJ_KERNEL_HANDLE, nullptr, nullptr);
    CLIENT_ID id{};
    EXPECT_EQ(PsCreateSystemThread(&handle, THREAD_ALL_ACCESS, &attributes, nullptr, &id,
                                   start_routine, &s),
              STATUS_SUCCESS);
    EXPECT_EQ(id.UniqueProcess, reinterpret_cast<HANDLE>(4)) << "the System process";
    EXPECT_NE(id.UniqueThread, nullptr);
    PVOID object = nullptr;
    OBJECT_HANDLE_INFORMATION info{};
    EXPECT_EQ(
        ObReferenceObjectByHandle(handle, SYNCHRONIZE, *PsThreadType, KernelMode, &object, &info),
        STATUS_SUCCESS);
    EXPECT_EQ(info.GrantedAccess, static_cast<ACCESS_MASK>(THREAD_ALL_ACCESS));
    if (handle_out != nullptr) {
        *handle_out = handle;
    } else {
        EXPECT_EQ(ZwClose(handle), STATUS_SUCCESS);
    }
    return object;
}

TEST_F(SystemThread, RunsAtPassiveLevelAndSignalsItsObjectAtExit) {
    Start s;
    const SIZE_T before = ndksim_kernel_system_threads_running();
    PVOID thread = start(s);
    LARGE_INTEGER zero;
    zero.QuadPart = 0;
    EXPECT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &zero), STATUS_TIMEOUT);
    EXPECT_EQ(ndksim_kernel_system_threads_running(), before + 1);
    KeSetEvent(&s.go, 0, FALSE);
    LARGE_INTEGER timeout = patience();
    EXPECT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &timeout),
              STATUS_SUCCESS);
    EXPECT_EQ(s.irql.load(), PASSIVE_LEVEL);
    EXPECT_EQ(s.self.load(), static_cast<PETHREAD>(thread));
    EXPECT_EQ(ndksim_kernel_system_threads_running(), before);
    ObDereferenceObject(thread);
}

TEST_F(SystemThread, TerminateEndsTheThreadWithoutReturning) {
    Start s;
    s.terminate = true;
    PVOID thread = start(s);
    KeSetEvent(&s.go, 0, FALSE);
    LARGE_INTEGER timeout = patience();
    EXPECT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &timeout),
              STATUS_SUCCESS);
    EXPECT_FALSE(s.after_terminate.load());
    ObDereferenceObject(thread);
}

TEST_F(SystemThread, TerminateFromAThreadTheSimulatorDidNotStartIsAViolation) {
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = PsTerminateSystemThread(STATUS_SUCCESS); }), 1U);
    EXPECT_EQ(status, STATUS_INVALID_PARAMETER);
}

TEST_F(SystemThread, ReturningAbovePassiveLevelIsAViolation) {
    Start s;
    s.raise = true;
    PVOID thread = start(s);
    const ULONG64 before = ndksim_kernel_irql_violations();
    KeSetEvent(&s.go, 0, FALSE);
    LARGE_INTEGER timeout = patience();
    ASSERT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &timeout),
              STATUS_SUCCESS);
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    ObDereferenceObject(thread);
}

TEST_F(SystemThread, HandlesAndReferences) {
    Start s;
    HANDLE handle = nullptr;
    PVOID thread = start(s, &handle);
    PVOID again = nullptr;
    EXPECT_EQ(
        ObReferenceObjectByHandle(handle, THREAD_ALL_ACCESS, nullptr, KernelMode, &again, nullptr),
        STATUS_SUCCESS);
    EXPECT_EQ(again, thread);
    _OBJECT_TYPE* other_type = reinterpret_cast<_OBJECT_TYPE*>(&s);
    EXPECT_EQ(
        ObReferenceObjectByHandle(handle, SYNCHRONIZE, other_type, KernelMode, &again, nullptr),
        STATUS_OBJECT_TYPE_MISMATCH);
    // The running thread, the handle, start()'s reference, `again` and this one.
    EXPECT_EQ(ObReferenceObject(thread), 5);
    EXPECT_EQ(ObDereferenceObject(thread), 4);
    EXPECT_EQ(ObDereferenceObject(again), 3);
    EXPECT_EQ(ZwClose(handle), STATUS_SUCCESS);
    PVOID none = nullptr;
    EXPECT_EQ(ObReferenceObjectByHandle(handle, SYNCHRONIZE, nullptr, KernelMode, &none, nullptr),
              STATUS_INVALID_HANDLE);
    KeSetEvent(&s.go, 0, FALSE);
    LARGE_INTEGER timeout = patience();
    EXPECT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &timeout),
              STATUS_SUCCESS);
    ObDereferenceObject(thread);
}

TEST_F(SystemThread, ClosingAnInvalidHandleIsAViolation) {
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = ZwClose(reinterpret_cast<HANDLE>(0x1234)); }), 1U);
    EXPECT_EQ(status, STATUS_INVALID_HANDLE);
}

TEST_F(SystemThread, DereferencingAnUnknownObjectIsAViolation) {
    int not_an_object = 0;
    EXPECT_EQ(violations_of([&] { ObDereferenceObject(&not_an_object); }), 1U);
}

TEST_F(SystemThread, CreateAbovePassiveLevelIsAViolation) {
    Start s;
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    HANDLE handle = nullptr;
    EXPECT_EQ(violations_of([&] {
                  PsCreateSystemThread(&handle, THREAD_ALL_ACCESS, nullptr, nullptr, nullptr,
                                       start_routine, &s);
              }),
              1U);
    KeLowerIrql(old);
    PVOID thread = nullptr;
    ASSERT_EQ(ObReferenceObjectByHandle(handle, SYNCHRONIZE, nullptr, KernelMode, &thread, nullptr),
              STATUS_SUCCESS);
    ZwClose(handle);
    KeSetEvent(&s.go, 0, FALSE);
    LARGE_INTEGER timeout = patience();
    EXPECT_EQ(KeWaitForSingleObject(thread, Executive, KernelMode, FALSE, &timeout),
              STATUS_SUCCESS);
    ObDereferenceObject(thread);
}

TEST_F(SystemThread, EveryThreadHasItsOwnThreadObject) {
    PETHREAD mine = PsGetCurrentThread();
    EXPECT_EQ(PsGetCurrentThread(), mine);
    EXPECT_EQ(reinterpret_cast<void*>(KeGetCurrentThread()), reinterpret_cast<void*>(mine));
    PETHREAD other = nullptr;
    HANDLE other_id = nullptr;
    std::thread([&] {
        other = PsGetCurrentThread();
        other_id = PsGetCurrentThreadId();
    }).join();
    EXPECT_NE(other, mine);
    EXPECT_NE(other_id, PsGetCurrentThreadId());
}

}  // namespace
}  // namespace ndksim::kernel::test
