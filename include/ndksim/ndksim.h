/*
 * ndksim.h - control surface of the simulator.
 *
 * A consumer creates a simulated RDMA NIC ("adapter") from a configuration, opens NDK_ADAPTER
 * handles on it exactly as NDIS opens them on a miniport (OPEN_NDK_ADAPTER_HANDLER /
 * CLOSE_NDK_ADAPTER_HANDLER shapes), uses the NDKPI dispatch tables of ndkpi.h, and closes and
 * destroys everything at the end. Everything here is C (C11 and C++).
 *
 * Run modes:
 *   - threaded (config.loop == NULL): the adapter owns an engine thread; pending operations
 *     complete and consumer callbacks run on that thread, as with a real provider.
 *   - deterministic (config.loop != NULL): no thread; callbacks run only while the consumer
 *     drives the loop with ndksim_loop_run_*. All adapters on one loop share one simulated
 *     clock, so the same seed and call sequence produce the same events and results.
 */
#pragma once

#include "ndkpi.h"

#ifndef NDKSIM_API
#if defined(__GNUC__)
#define NDKSIM_API __attribute__((visibility("default")))
#else
#define NDKSIM_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque: a deterministic event loop shared by one or more adapters. */
typedef struct ndksim_loop ndksim_loop;

/** Opaque: one simulated RDMA NIC. Several NDK_ADAPTER handles may be open on it. */
typedef struct ndksim_adapter ndksim_adapter;

/**
 * How a function that may return STATUS_PENDING completes (REFERENCE.md rule 1). A function
 * that cannot finish without the peer (for example NdkConnect) pends whatever the style.
 */
typedef enum ndksim_completion_style {
    NDKSIM_COMPLETE_INLINE = 0,  /**< finish inside the call; the callback is not called */
    NDKSIM_COMPLETE_PENDING = 1, /**< return STATUS_PENDING; the callback runs from the engine */
    NDKSIM_COMPLETE_RANDOM = 2   /**< choose per call by a seeded draw (pending_percent) */
} ndksim_completion_style;

/** How an idle engine thread waits (threaded mode only). */
typedef enum ndksim_poll_policy {
    NDKSIM_POLL_BLOCK = 0,          /**< block in the kernel: no CPU when idle, ~50 us wake-up */
    NDKSIM_POLL_SPIN = 1,           /**< busy-poll: one core per engine, lowest latency */
    NDKSIM_POLL_SPIN_THEN_BLOCK = 2 /**< spin 50 us after the last work, then block */
} ndksim_poll_policy;

/** The link that carries this adapter's packets. */
typedef enum ndksim_wire {
    NDKSIM_WIRE_DEFAULT = 0, /**< in-process */
    NDKSIM_WIRE_INPROC = 1,  /**< adapters of this process, through the in-process link */
    NDKSIM_WIRE_UDP = 2,     /**< RoCEv2 over UDP sockets */
    NDKSIM_WIRE_TCP = 3      /**< the same frames, length-prefixed over TCP */
} ndksim_wire;

/**
 * Link fault injection on the frames an adapter sends (and, for a cut link, receives). Every
 * draw comes from a generator seeded with `seed`, so a deterministic run repeats exactly.
 * Rates are in parts per million of frames; all zero (the default) is a perfect link.
 */
typedef struct ndksim_link_faults {
    ULONG drop_ppm;           /**< frames lost */
    ULONG duplicate_ppm;      /**< frames delivered twice */
    ULONG reorder_ppm;        /**< frames held back by reorder_delay_ps, so later ones pass them */
    ULONG corrupt_ppm;        /**< frames with one bit flipped: they fail their ICRC and are dropped */
    ULONG64 delay_ps;         /**< extra one-way delay added to every frame [picoseconds] */
    ULONG64 reorder_delay_ps; /**< how long a reordered frame is held back; 0 = 10 microseconds */
    ULONG64 seed;             /**< seed of the fault draws; 0 = the adapter's seed */
} ndksim_link_faults;

/** Adapter configuration. Always start from ndksim_adapter_config_init(). */
typedef struct ndksim_adapter_config {
    ULONG size;             /**< sizeof(ndksim_adapter_config); set by the init function */
    const char* name;       /**< name used in log lines; NULL picks "nicN" */
    const char* address;    /**< IPv4 or IPv6 literal the adapter owns; NULL = "127.0.0.1" */
    const char* profile;    /**< NIC profile: a name ("cx4-edr", "roce-100g", "roce-25g", or a
                                 file stem in NDKSIM_PROFILE_PATH) or a path to a TOML file
                                 (docs/profiles.md); NULL = "cx4-edr" (ConnectX-4 EDR) */
    ndksim_completion_style completion_style; /**< default NDKSIM_COMPLETE_INLINE */
    ULONG pending_percent;  /**< RANDOM style: chance in percent that a call pends (default 50) */
    ULONG64 seed;           /**< seed of the RANDOM style's draws (default 1) */
    ndksim_loop* loop;      /**< non-NULL: deterministic mode on this loop; NULL: threaded */
    ndksim_poll_policy poll_policy; /**< threaded mode only; default NDKSIM_POLL_BLOCK */
    ndksim_wire wire;       /**< default NDKSIM_WIRE_DEFAULT */
    USHORT port;            /**< UDP/TCP port of the wire; default 4791 (RoCEv2) */
    ULONG close_timeout_ms; /**< threaded mode: how long ndksim_close_ndk_adapter waits for
                                 open children before reporting them as leaked (default 10000) */
    ULONG rnr_retry_limit;  /**< receiver-not-ready retries before a send fails with
                                 STATUS_IO_TIMEOUT; 0xFFFFFFFF (the default) retries for ever */
    ULONG ack_timeout_us;   /**< reliable connections: how long a request waits for its ACK
                                 before it is sent again [microseconds of simulated time] */
    ULONG retry_limit;      /**< retransmissions without progress before the request fails with
                                 STATUS_IO_TIMEOUT, the QP moves to error and the connection
                                 is disconnected (default 7) */
    ndksim_link_faults faults; /**< fault injection on this adapter's link (default: none) */
    const char* pcap_path;  /**< non-NULL: record every frame sent and received to this pcap
                                 file, as Ethernet/IPv4/UDP/RoCEv2 (tshark, Wireshark) */
} ndksim_adapter_config;

/** Fills *config with the defaults documented on each field. */
NDKSIM_API void ndksim_adapter_config_init(ndksim_adapter_config* config);

/**
 * Creates a simulated adapter. Returns STATUS_SUCCESS and *adapter, or
 * STATUS_INVALID_PARAMETER (bad size, address, style or profile file; the log says which),
 * STATUS_NOT_SUPPORTED (unknown profile or a wire this build does not provide),
 * STATUS_ADDRESS_ALREADY_EXISTS (another adapter of this process owns the address).
 */
NDKSIM_API NTSTATUS ndksim_adapter_create(const ndksim_adapter_config* config,
                                          ndksim_adapter** adapter);

/**
 * Destroys an adapter. Every NDK_ADAPTER handle opened on it must have been closed; handles
 * still open are reported in the log and closed first.
 */
NDKSIM_API void ndksim_adapter_destroy(ndksim_adapter* adapter);

/**
 * Opens an NDK_ADAPTER handle: the OPEN_NDK_ADAPTER_HANDLER shape, so it can be stored in an
 * NDIS_NDK_PROVIDER_CHARACTERISTICS. MiniportAdapterContext is the ndksim_adapter*.
 * Version negotiation (REFERENCE.md section 1): Parameters->Version.Major must be 1 or 2 and
 * Minor must not exceed the highest minor of that major, otherwise NDIS_STATUS_BAD_VERSION.
 * The handle runs at the highest version of the requested major and reports it in
 * NDK_ADAPTER_INFO.Version and in the Header.Version of every object created under it.
 * Returns NDIS_STATUS_SUCCESS, NDIS_STATUS_BAD_VERSION or NDIS_STATUS_RESOURCES.
 */
NDKSIM_API NDIS_STATUS ndksim_open_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                               PNDIS_OPEN_NDK_ADAPTER_PARAMETERS Parameters,
                                               NDK_ADAPTER** ppNdkAdapter);

/**
 * Closes an NDK_ADAPTER handle: the CLOSE_NDK_ADAPTER_HANDLER shape. Blocks until every
 * callback on every object under the handle has returned (REFERENCE.md rule 6); in
 * deterministic mode it drives the loop meanwhile. Objects the consumer left open are named
 * in an error log line and counted by ndksim_adapter_leaked_objects(). Must not be called from
 * inside an NDK callback.
 */
NDKSIM_API VOID ndksim_close_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                         NDK_ADAPTER* pNdkAdapter);

/**
 * Replaces the fault injection of a running adapter's link. Returns STATUS_SUCCESS or
 * STATUS_INVALID_PARAMETER (NULL pointer, or a rate above 1000000).
 */
NDKSIM_API NTSTATUS ndksim_adapter_set_faults(ndksim_adapter* adapter,
                                              const ndksim_link_faults* faults);

/**
 * Cuts (cut = TRUE) or restores (FALSE) the adapter's link: while cut, every frame it sends or
 * receives is lost, as when a cable is pulled. Connections with traffic outstanding time out
 * after their retry limit, and their consumers see error completions and a disconnect event.
 */
NDKSIM_API NTSTATUS ndksim_adapter_cut_link(ndksim_adapter* adapter, BOOLEAN cut);

/** Version of the ndksim library ("0.1.0"). */
NDKSIM_API const char* ndksim_version(void);

/** The highest NDKPI version the simulator implements ({2,1}). */
NDKSIM_API NDK_VERSION ndksim_highest_version(void);

/** Number of NDK objects under the adapter that are not yet fully closed (handles included). */
NDKSIM_API ULONG ndksim_adapter_live_objects(const ndksim_adapter* adapter);

/** Number of objects found still open when their NDK_ADAPTER handle was closed. */
NDKSIM_API ULONG ndksim_adapter_leaked_objects(const ndksim_adapter* adapter);

/** Current simulated time of the adapter [picoseconds]. */
NDKSIM_API ULONG64 ndksim_adapter_now(const ndksim_adapter* adapter);

/** The Windows name of an NTSTATUS ("STATUS_PENDING"), for messages. Never NULL. */
NDKSIM_API const char* ndksim_status_name(NTSTATUS status);

/** Creates a deterministic loop. Returns STATUS_SUCCESS or STATUS_INSUFFICIENT_RESOURCES. */
NDKSIM_API NTSTATUS ndksim_loop_create(ndksim_loop** loop);

/** Destroys a loop. Every adapter created on it must have been destroyed. */
NDKSIM_API void ndksim_loop_destroy(ndksim_loop* loop);

/** Runs the earliest pending event. Returns FALSE when nothing is pending. */
NDKSIM_API BOOLEAN ndksim_loop_run_one(ndksim_loop* loop);

/** Runs events until none is pending. Returns the number of events run. */
NDKSIM_API ULONG64 ndksim_loop_run_until_idle(ndksim_loop* loop);

/** Runs the events due within `picoseconds` of simulated time, then advances the clock by it. */
NDKSIM_API ULONG64 ndksim_loop_run_for(ndksim_loop* loop, ULONG64 picoseconds);

/** Current simulated time of the loop [picoseconds]. */
NDKSIM_API ULONG64 ndksim_loop_now(const ndksim_loop* loop);

#ifdef __cplusplus
}
#endif
