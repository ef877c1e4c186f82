/* SPDX-License-Identifier: MIT */
/*
 * A kernel-mode driver written in C, as consumer drivers are: DriverEntry sets up a device
 * object, pool, a periodic timer with a DPC, a system thread that ends through
 * PsTerminateSystemThread from a nested call, a work item and rundown protection; DriverUnload
 * tears all of it down in the order Windows drivers do. In leaky mode DriverUnload leaves
 * everything behind, for the leak report tests, and c_driver_clean_up_leaks() undoes it.
 */
#include <wdm.h>

#include "c_driver.h"

/* 'CDrv' as pool tools show it. */
#define C_DRIVER_TAG 0x76724443UL

typedef struct C_DRIVER_STATE {
    KTIMER timer;
    KDPC dpc;
    KEVENT stop;
    KEVENT work_done;
    EX_RUNDOWN_REF rundown;
    PIO_WORKITEM work_item;
    PVOID thread;
    PDEVICE_OBJECT device;
    volatile LONG timer_ticks;
    volatile LONG work_irql;
} C_DRIVER_STATE;

static C_DRIVER_STATE* g_state;
static int g_leaky;
static volatile LONG g_thread_exit_reached;

static VOID timer_dpc(PKDPC dpc, PVOID context, PVOID argument1, PVOID argument2) {
    C_DRIVER_STATE* state = (C_DRIVER_STATE*)context;
    UNREFERENCED_PARAMETER(dpc);
    UNREFERENCED_PARAMETER(argument1);
    UNREFERENCED_PARAMETER(argument2);
    if (ExAcquireRundownProtection(&state->rundown)) {
        InterlockedIncrement(&state->timer_ticks);
        ExReleaseRundownProtection(&state->rundown);
    }
}

static void end_thread(void) {
    PsTerminateSystemThread(STATUS_SUCCESS);
    /* Not reached: PsTerminateSystemThread does not return. */
    InterlockedExchange(&g_thread_exit_reached, 1);
}

static VOID thread_main(PVOID context) {
    C_DRIVER_STATE* state = (C_DRIVER_STATE*)context;
    KeWaitForSingleObject(&state->stop, Executive, KernelMode, FALSE, NULL);
    end_thread();
}

static VOID work_routine(PDEVICE_OBJECT device, PVOID context) {
    C_DRIVER_STATE* state = (C_DRIVER_STATE*)context;
    UNREFERENCED_PARAMETER(device);
    InterlockedExchange(&state->work_irql, KeGetCurrentIrql());
    KeSetEvent(&state->work_done, IO_NO_INCREMENT, FALSE);
}

static void tear_down(C_DRIVER_STATE* state) {
    KeSetEvent(&state->stop, IO_NO_INCREMENT, FALSE);
    KeWaitForSingleObject(state->thread, Executive, KernelMode, FALSE, NULL);
    ObDereferenceObject(state->thread);
    KeCancelTimer(&state->timer);
    ExWaitForRundownProtectionRelease(&state->rundown);
    KeFlushQueuedDpcs();
    KeWaitForSingleObject(&state->work_done, Executive, KernelMode, FALSE, NULL);
    IoFreeWorkItem(state->work_item);
    IoDeleteDevice(state->device);
    ExFreePoolWithTag(state, C_DRIVER_TAG);
}

static VOID c_driver_unload(PDRIVER_OBJECT driver) {
    UNREFERENCED_PARAMETER(driver);
    if (g_leaky) {
        return;
    }
    tear_down(g_state);
    g_state = NULL;
}

NTSTATUS c_driver_entry(PDRIVER_OBJECT driver, PUNICODE_STRING registry_path) {
    C_DRIVER_STATE* state;
    HANDLE handle;
    OBJECT_ATTRIBUTES attributes;
    LARGE_INTEGER due;
    NTSTATUS status;
    UNREFERENCED_PARAMETER(registry_path);

    state = (C_DRIVER_STATE*)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*state), C_DRIVER_TAG);
    if (state == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    status = IoCreateDevice(driver, 0, NULL, FILE_DEVICE_UNKNOWN, 0, FALSE, &state->device);
    if (!NT_SUCCESS(status)) {
        ExFreePoolWithTag(state, C_DRIVER_TAG);
        return status;
    }
    KeInitializeEvent(&state->stop, NotificationEvent, FALSE);
    KeInitializeEvent(&state->work_done, NotificationEvent, FALSE);
    ExInitializeRundownProtection(&state->rundown);
    KeInitializeDpc(&state->dpc, timer_dpc, state);
    KeInitializeTimerEx(&state->timer, SynchronizationTimer);
    due.QuadPart = -10000; /* 1 ms */
    KeSetTimerEx(&state->timer, due, 1, &state->dpc);

    InitializeObjectAttributes(&attributes, NULL, OBJ_KERNEL_HANDLE, NULL, NULL);
    status = PsCreateSystemThread(&handle, THREAD_ALL_ACCESS, &attributes, NULL, NULL, thread_main,
                                  state);
    if (NT_SUCCESS(status)) {
        status = ObReferenceObjectByHandle(handle, THREAD_ALL_ACCESS, *PsThreadType, KernelMode,
                                           &state->thread, NULL);
        ZwClose(handle);
    }
    state->work_irql = -1;
    state->work_item = IoAllocateWorkItem(state->device);
    IoQueueWorkItem(state->work_item, work_routine, DelayedWorkQueue, state);

    g_state = state;
    driver->DriverUnload = c_driver_unload;
    return status;
}

void c_driver_set_leaky(int leaky) {
    g_leaky = leaky;
}

LONG c_driver_timer_ticks(void) {
    return g_state == NULL ? -1 : InterlockedCompareExchange(&g_state->timer_ticks, 0, 0);
}

LONG c_driver_thread_exit_reached(void) {
    return InterlockedCompareExchange(&g_thread_exit_reached, 0, 0);
}

LONG c_driver_work_irql(void) {
    return g_state == NULL ? -1 : InterlockedCompareExchange(&g_state->work_irql, -1, -1);
}

void c_driver_clean_up_leaks(void) {
    if (g_state != NULL) {
        tear_down(g_state);
        g_state = NULL;
    }
}
