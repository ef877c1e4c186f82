/* SPDX-License-Identifier: MIT */
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
#include "ndksim_export.h"
#include "ndksim_faults.h"
#include "ndksim_verifier.h"

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

/**
 * How an idle engine thread waits, or who runs the engine (threaded mode only; docs/timing.md,
 * "Who runs the engine").
 */
typedef enum ndksim_poll_policy {
    NDKSIM_POLL_BLOCK = 0,           /**< block in the kernel: no CPU when idle, ~50 us wake-up */
    NDKSIM_POLL_SPIN = 1,            /**< busy-poll: one core per engine */
    NDKSIM_POLL_SPIN_THEN_BLOCK = 2, /**< spin 50 us after the last work, then block */
    /**
     * The consumer's own threads run the engine: in ndksim_adapter_progress() and in every
     * wait of the library (ndksim_adapter_wait, and the waits of closes and of
     * ndksim_adapter_destroy), so callbacks run on those threads, inside those calls: a caller
     * must not hold a lock its callbacks take. The engine thread runs the engine only after it
     * has seen no call of ndksim_adapter_progress() for about 1 ms. A consumer thread that
     * polls then shares nothing with an engine thread, the lowest latency on a host with
     * fewer cores than polling threads. Not with NDKSIM_TIME_SYNCHRONIZED.
     */
    NDKSIM_POLL_CONSUMER = 3
} ndksim_poll_policy;

/**
 * How simulated time relates to wall time (docs/timing.md, "Time modes").
 *   - VIRTUAL: as fast as the host allows; read the modelled time from ndksim_adapter_now().
 *     A deterministic loop is always virtual. A threaded adapter lets its clock run up to 1 ms
 *     ahead of the wall clock, so short work runs at host speed while timeouts and back-offs
 *     still last their wall time (a peer thread or process has the time to answer).
 *   - PACED (threaded only): each event is held until the wall time elapsed since the adapter
 *     started reaches its simulated time times pace_factor, so a consumer's own timeouts see
 *     the modelled delays (scaled by the factor).
 *   - SYNCHRONIZED (threaded, every wire): simulated time is exact and has no tie to the wall
 *     clock; over the UDP and TCP wires the processes' clocks advance together (sync records
 *     carry each process's promises), so a run across processes or hosts gives the figures of
 *     the same run in one process.
 *     The synchronized adapters of a process run on one engine thread in the order a
 *     deterministic loop would give; an event runs only once no peer could still send anything
 *     due before it, and simulated time moves past something shown to the consumer (a
 *     completion queued, a callback run) only once the consumer has reacted: polled it and
 *     then polled an empty CQ or waited (ndksim_adapter_wait). A consumer that takes longer
 *     than sync_consumer_grace_ms lets time move on, counted as an inexact step in the
 *     statistics. Timers (retransmission, RNR, connection management, interrupt moderation)
 *     fire at their modelled instants, however slow the host.
 * The environment variable NDKSIM_TIME_MODE (virtual, paced or synchronized) overrides the
 * mode of every threaded adapter created while it is set.
 */
typedef enum ndksim_time_mode {
    NDKSIM_TIME_VIRTUAL = 0,
    NDKSIM_TIME_PACED = 1,
    NDKSIM_TIME_SYNCHRONIZED = 2
} ndksim_time_mode;

/** The link that carries this adapter's packets. */
typedef enum ndksim_wire {
    NDKSIM_WIRE_DEFAULT = 0, /**< in-process */
    NDKSIM_WIRE_INPROC = 1,  /**< adapters of this process, through the in-process link */
    NDKSIM_WIRE_UDP = 2,     /**< RoCEv2 over UDP: the adapter binds address:port and sends one
                                  datagram per frame to the peer's IP and the same port, so
                                  adapters in other processes or hosts are reachable. Threaded
                                  mode only (loop must be NULL) */
    NDKSIM_WIRE_TCP = 3      /**< the same frames, length-prefixed over TCP: the adapter listens
                                  on address:port and opens one connection per peer address on
                                  first use. Threaded mode only (loop must be NULL) */
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
    ULONG corrupt_ppm;        /**< frames with one bit flipped after the BTH: the receiver's ICRC
                                   check always refuses them (counted as bad_icrc) */
    ULONG64 delay_ps;         /**< extra one-way delay added to every frame [picoseconds] */
    ULONG64 reorder_delay_ps; /**< how long a reordered frame is held back; 0 = 10 microseconds */
    ULONG64 seed;             /**< seed of the fault draws; 0 = the adapter's seed */
} ndksim_link_faults;

/** Adapter configuration. Always start from ndksim_adapter_config_init(). */
typedef struct ndksim_adapter_config {
    ULONG size;          /**< sizeof(ndksim_adapter_config); set by the init function */
    const char* name;    /**< name used in log lines; NULL picks "nicN" */
    const char* address; /**< IPv4 or IPv6 literal the adapter owns; NULL = "127.0.0.1" */
    const char* profile; /**< NIC profile: a name ("cx4-edr", "roce-100g", "roce-25g", or a
                              file stem in NDKSIM_PROFILE_PATH) or a path to a TOML file
                              (docs/profiles.md); NULL = "cx4-edr" (ConnectX-4 EDR) */
    ndksim_completion_style completion_style; /**< default NDKSIM_COMPLETE_INLINE */
    ULONG pending_percent; /**< RANDOM style: chance in percent that a call pends (default 50) */
    ULONG64 seed;          /**< seed of the RANDOM style's draws (default 1) */
    ndksim_loop* loop;     /**< non-NULL: deterministic mode on this loop; NULL: threaded */
    ndksim_poll_policy poll_policy; /**< threaded mode only; default NDKSIM_POLL_BLOCK */
    ndksim_wire wire;               /**< default NDKSIM_WIRE_DEFAULT (docs/wire-format.md, "On the
                                         socket", for the UDP and TCP wires) */
    USHORT port;                /**< UDP/TCP port the adapter binds on its address and sends to on
                                     every peer's; all adapters of a simulation use the same port
                                     (two processes on one host use two addresses of 127/8, e.g.
                                     127.0.0.1 and 127.0.0.2). Default 4791 (RoCEv2); ignored by
                                     the in-process wire */
    ULONG close_timeout_ms;     /**< threaded mode: how long ndksim_close_ndk_adapter waits for
                                     open children before reporting them as leaked (default 10000) */
    ULONG rnr_retry_limit;      /**< receiver-not-ready retries before a send fails with
                                     STATUS_IO_TIMEOUT and the connection is torn down (default
                                     6, IBA's largest finite RNR Retry Count: with the default
                                     10 us RNR timer, about 70 us of simulated time without a
                                     receive); 0xFFFFFFFF retries for ever */
    ULONG ack_timeout_us;       /**< reliable connections: how long the oldest unacknowledged
                                     request waits for progress (an ACK or read response) before
                                     it and everything after it are sent again (go-back-N)
                                     [microseconds of simulated time; default 16000, about IB's
                                     timeout code 12]. The interval
                                     doubles per consecutive retry, up to 8x; 0 = no timer */
    ULONG retry_limit;          /**< consecutive timer retries without progress before the request
                                     fails with STATUS_IO_TIMEOUT, the rest flush with
                                     STATUS_CANCELLED, the QP moves to error and the connection is
                                     torn down with a disconnect event (default 7: with the default
                                     timeout, 47 x 16 ms = 752 ms after the last progress). Separate
                                     from rnr_retry_limit */
    ndksim_link_faults faults;  /**< fault injection on this adapter's link (default: none) */
    const char* pcap_path;      /**< non-NULL: record this adapter's frames to a classic pcap
                                     file at this path (created or truncated; nanosecond
                                     timestamps, LINKTYPE_ETHERNET), each as Ethernet / IPv4 or
                                     IPv6 / UDP to port 4791 / the RoCEv2 packet, with the IP and
                                     UDP headers its ICRC covers, so tshark and Wireshark read it.
                                     Sent frames are stamped with their simulated departure time,
                                     received ones with their arrival time [since the epoch], so a
                                     deterministic run gives the same file each time. Adapters of
                                     one process may share a path: each frame between them is
                                     then recorded once, by its sender. The file is flushed when
                                     the last adapter using it is destroyed. A path that cannot be
                                     opened makes ndksim_adapter_create fail with
                                     STATUS_INVALID_PARAMETER (the log names the path and the
                                     error). NULL (the default): no capture. docs/capture.md. */
    ndksim_time_mode time_mode; /**< default NDKSIM_TIME_VIRTUAL; PACED needs threaded mode */
    double pace_factor;         /**< PACED: wall seconds per simulated second, above 0 (default 1.0;
                                     10 runs ten times slower than the model) */
    ULONG cm_timeout_ms;        /**< how long a connection-management message (request, reply,
                                     disconnect request) waits for its answer before the call
                                     that sent it fails with STATUS_IO_TIMEOUT; the message is
                                     sent again at each quarter of it [milliseconds of simulated
                                     time; default 1000; 0 = the default]. In threaded mode the
                                     peer consumer's own reaction (calling NdkAccept or
                                     NdkCompleteConnect) counts against it on the wall clock, so
                                     threaded tests on a loaded host may raise it */
    BOOLEAN rotate_fast_register_tokens; /**< FALSE (the default): a fast-register MR keeps its
                                     remote token across NdkFastRegister calls, so a peer sent
                                     the token once after NdkInitializeFastRegisterMr may use it
                                     after every later fast register. TRUE (strict): each
                                     NdkFastRegister issues a new token, and a peer still using
                                     an earlier one fails with STATUS_ACCESS_VIOLATION, which
                                     catches consumers that forget to send the new token */
    /*
     * The adapter's network interface identity, as kernel consumers find it through
     * netioapi.h and open it with WskOpenNdkAdapter (wskndk.h). Appended to the structure:
     * a caller built against an ndksim.h without these fields passes the smaller size and
     * gets their defaults (ndksim_adapter_create).
     */
    const char* interface_alias; /**< the interface alias, UTF-8 (ConvertInterfaceLuidToAlias
                                     returns it as UTF-16): at most 256 UTF-16 units
                                     (IF_MAX_STRING_SIZE) and unique among the adapters of the
                                     process. NULL (the default): the adapter's name */
    NET_IFINDEX interface_index; /**< the interface index, unique among the adapters of the
                                     process. 0 (the default): the lowest index from 1 up that
                                     no live adapter uses and no earlier adapter of this
                                     process was given, so an index never names two adapters
                                     one after the other */
    /*
     * Synchronized time (NDKSIM_TIME_SYNCHRONIZED; docs/timing.md). Appended: a caller built
     * against an ndksim.h without them gets their defaults.
     */
    ULONG sync_peer_silence_ms;    /**< wall time without a sync record from a peer process
                                        after which the peer is lost and the connections to it
                                        fail as on a lost link [ms]; 0 = the default, 5000 */
    ULONG sync_consumer_grace_ms;  /**< wall time the consumer may take to react to a
                                        completion or callback before simulated time moves on
                                        without it (an inexact step) [ms]; 0 = the default, 50.
                                        The first synchronized adapter of a process sets both
                                        values for all */
    ndksim_verifier_mode verifier; /**< the NDK verifier (ndksim_verifier.h, docs/verifier.md):
                                     NDKSIM_VERIFIER_DEFAULT (the default) follows the
                                     environment variable NDKSIM_VERIFIER (off, report or
                                     break) and is off without it; any other value is used as
                                     given, whatever the variable says */
    const char* fault_script;      /**< a fault script, TOML text (docs/fault-injection.md):
                                       failures of chosen NDK calls, forced pending or inline
                                       completions, delayed callbacks, failed request
                                       completions, CQ overruns, disconnects, a dead peer, and
                                       the link faults of ndksim_link_faults. NULL (the
                                       default): the file named by the environment variable
                                       NDKSIM_FAULTS, if set. A script that does not parse makes
                                       ndksim_adapter_create fail with STATUS_INVALID_PARAMETER
                                       (the log names the fault and the key) */
    BOOLEAN coverage;              /**< TRUE: keep the error-path coverage record
                                       (ndksim_adapter_coverage) and log it as a table when the
                                       adapter is destroyed. Also on when the environment variable
                                       NDKSIM_COVERAGE is set, which names a path prefix the
                                       JSON is written to (the prefix followed by the
                                       adapter name and .json) */
} ndksim_adapter_config;

/**
 * Fills *config with the defaults documented on each field, for a caller built against this
 * header: it writes sizeof(ndksim_adapter_config) bytes.
 */
NDKSIM_API void ndksim_adapter_config_init(ndksim_adapter_config* config);

/**
 * Creates a simulated adapter. config->size may be that of an older ndksim.h (from the
 * structure without interface_alias up to the full size): fields beyond it take their
 * defaults. Returns STATUS_SUCCESS and *adapter, or
 * STATUS_INVALID_PARAMETER (bad size, address, style or profile file, an enum field holding a
 * value that is none of its enum's, a UDP/TCP wire with a loop, an interface index or alias
 * another live adapter uses, or an alias that is not UTF-8 or too long; the log says which),
 * STATUS_NOT_SUPPORTED (unknown profile),
 * STATUS_ADDRESS_ALREADY_EXISTS (another adapter of this process owns the address, or a UDP/TCP
 * wire's address:port is in use), STATUS_INVALID_ADDRESS (a UDP/TCP wire's address is not one of
 * this host's), STATUS_INSUFFICIENT_RESOURCES (any other failure; the log names the cause).
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
 * PASSIVE_LEVEL (checked, as every IRQL rule: docs/kernel-runtime.md).
 */
NDKSIM_API NDIS_STATUS ndksim_open_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                               PNDIS_OPEN_NDK_ADAPTER_PARAMETERS Parameters,
                                               NDK_ADAPTER** ppNdkAdapter);

/**
 * Closes an NDK_ADAPTER handle: the CLOSE_NDK_ADAPTER_HANDLER shape. Blocks until every
 * callback on every object under the handle has returned (REFERENCE.md rule 6); in
 * deterministic mode it drives the loop meanwhile. Objects the consumer left open are named
 * in an error log line and counted by ndksim_adapter_leaked_objects(). PASSIVE_LEVEL
 * (checked): not from inside an NDK callback, which runs at DISPATCH_LEVEL.
 */
NDKSIM_API VOID ndksim_close_ndk_adapter(NDIS_HANDLE MiniportAdapterContext,
                                         NDK_ADAPTER* pNdkAdapter);

/**
 * Replaces the fault injection of a running adapter's link (any thread; the engine applies
 * it from its next frame, and a seed restarts the draws). Returns STATUS_SUCCESS or
 * STATUS_INVALID_PARAMETER (NULL pointer, or a rate above 1000000). ndksim_adapter_create
 * refuses a config whose faults have a rate above 1000000 the same way.
 */
NDKSIM_API NTSTATUS ndksim_adapter_set_faults(ndksim_adapter* adapter,
                                              const ndksim_link_faults* faults);

/**
 * Cuts (cut = TRUE) or restores (FALSE) the adapter's link (any thread): while cut, every frame
 * it sends or receives is lost, as when a cable is pulled. Connections with traffic outstanding
 * time out after their retry limit (retry_limit, ack_timeout_us): the oldest request completes
 * with STATUS_IO_TIMEOUT, the rest with STATUS_CANCELLED, and the consumer sees a disconnect
 * event. Idle connections notice nothing. Returns STATUS_SUCCESS, or STATUS_INVALID_PARAMETER
 * for a NULL adapter.
 */
NDKSIM_API NTSTATUS ndksim_adapter_cut_link(ndksim_adapter* adapter, BOOLEAN cut);

/**
 * Test hook for hostile-peer tests: delivers `length` raw bytes of a RoCEv2 packet (BTH through
 * ICRC, as in docs/wire-format.md; no Ethernet, IP or UDP header) to the adapter's NIC engine
 * as if they had arrived on its link from `source_address` (an IPv4 or IPv6 literal) at the
 * current simulated time. The bytes are copied before the call returns, into a frame of the
 * adapter's pool on its engine, and then go through the same path as any received frame
 * (capture, decode and ICRC check over the flow source_address -> this adapter, UDP ports
 * 4791, QP lookup, responder or completer), so nothing in them is trusted. The frame is
 * processed asynchronously: in deterministic mode when the loop next runs, in threaded mode
 * on the engine thread. Meant for tests of a consumer's and the simulated NIC's behaviour
 * when a peer sends malformed or forged packets; a real NIC offers no such entry.
 * Returns STATUS_SUCCESS, or STATUS_INVALID_PARAMETER (NULL adapter, packet or address, an
 * address that is not an IP literal, or length 0 or above the frame size, 4224 bytes).
 */
NDKSIM_API NTSTATUS ndksim_adapter_inject_frame(ndksim_adapter* adapter, const void* roce_packet,
                                                ULONG length, const char* source_address);

/** Version of the ndksim library ("0.1.0"). */
NDKSIM_API const char* ndksim_version(void);

/** The highest NDKPI version the simulator implements ({2,1}). */
NDKSIM_API NDK_VERSION ndksim_highest_version(void);

/** Number of NDK objects under the adapter that are not yet fully closed (handles included). */
NDKSIM_API ULONG ndksim_adapter_live_objects(const ndksim_adapter* adapter);

/** Number of objects found still open when their NDK_ADAPTER handle was closed. */
NDKSIM_API ULONG ndksim_adapter_leaked_objects(const ndksim_adapter* adapter);

/**
 * The last NDK call this adapter refused inline, as one line naming the object, the call, the
 * status and the rule that refused it, e.g.
 * "nic1/h1/qp#3: NdkWrite refused with STATUS_INVALID_PARAMETER: rule 11: nSge above the QP's
 * MaxInitiatorRequestSge". Copies it into `buffer` (truncated to `size` and NUL-terminated;
 * `buffer` may be NULL) and returns its length, 0 when nothing was refused yet. Available in
 * every build type; each refusal is also logged at info level (NDKSIM_LOG=info), rate-limited.
 */
NDKSIM_API ULONG ndksim_adapter_last_refusal(const ndksim_adapter* adapter, char* buffer,
                                             ULONG size);

/**
 * The last NDK call refused inline on the calling thread, on any adapter, in the same form as
 * ndksim_adapter_last_refusal; "" when none. The text stays valid until the thread's next
 * refusal. Test kits print it beside an unexpected status.
 */
NDKSIM_API const char* ndksim_thread_last_refusal(void);

/** The adapter's interface index (its config's, or the one assigned); 0 for NULL. */
NDKSIM_API NET_IFINDEX ndksim_adapter_interface_index(const ndksim_adapter* adapter);

/**
 * The adapter's interface LUID as a NET_LUID's Value (netioapi.h): IfType
 * IF_TYPE_ETHERNET_CSMACD, NetLuidIndex assigned per process; 0 for NULL.
 */
NDKSIM_API ULONG64 ndksim_adapter_interface_luid(const ndksim_adapter* adapter);

/** Current simulated time of the adapter [picoseconds]. */
NDKSIM_API ULONG64 ndksim_adapter_now(const ndksim_adapter* adapter);

/**
 * Blocks the calling consumer thread until the simulation shows the consumer something new (a
 * completion queued, a callback returned), until the adapter's engine has nothing left to run
 * (ndksim_adapter_idle), or for `timeout_ms` of wall time. In synchronized time it first tells
 * the simulation that this thread has reacted to everything it was shown, so simulated time
 * may move on; a consumer thread that blocks on anything the simulation does not know of (a
 * socket, a lock another thread holds long, a join) should call it, or poll an empty CQ,
 * before it blocks. In the other modes it waits until the engine has nothing left to run (a
 * deterministic loop is run until idle on the calling thread; with NDKSIM_POLL_CONSUMER the
 * calling thread runs the engine until then, busy, instead of blocking). Returns STATUS_SUCCESS,
 * STATUS_TIMEOUT (nothing happened in time) or STATUS_INVALID_PARAMETER (NULL adapter).
 */
NDKSIM_API NTSTATUS ndksim_adapter_wait(ndksim_adapter* adapter, ULONG timeout_ms);

/**
 * NDKSIM_POLL_CONSUMER: runs the adapter's engine on the calling thread for one bounded pass,
 * as its engine thread would (frames its socket received, due timers, batches of the events
 * due), without blocking; callbacks run on the calling thread, inside the call. Call it where
 * a polling consumer spins (beside NdkGetCqResults, or while it watches memory a peer writes).
 * Returns the number of handlers run (socket reads, timers, batches of events): 0 when nothing
 * was ready, when another thread kept the engine for more than 100 us (the engine thread hands
 * over once it sees a consumer calling), when called from a callback of this adapter, for
 * NULL, or under any other policy or a deterministic loop (the loop's driver runs it:
 * ndksim_loop_run_one).
 */
NDKSIM_API ULONG ndksim_adapter_progress(ndksim_adapter* adapter);

/**
 * TRUE when the adapter's engine has no event queued or running (in synchronized time, the
 * engine shared by the process's synchronized adapters; with a loop, the loop's). A snapshot:
 * a consumer or a peer may give it work at any time. FALSE for NULL.
 */
NDKSIM_API BOOLEAN ndksim_adapter_idle(const ndksim_adapter* adapter);

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

/* ---- Statistics (docs/statistics.md) -------------------------------------------------------
 *
 * Counters kept by the simulated NIC: per operation type, what completed, the bytes moved and a
 * histogram of the modelled latency from post to completion in simulated time; per adapter, the
 * packet, retransmission, drop, link and translation-cache counters. Reading them is safe from
 * any thread at any time; in each read, an operation type's counters are those of one moment.
 * Counters only grow. */

/** Operation types of the statistics (index into the ops[] arrays). */
typedef enum ndksim_stats_op {
    NDKSIM_STATS_SEND = 0,            /**< NdkSend */
    NDKSIM_STATS_RECEIVE = 1,         /**< receive completions (NdkReceive, SRQ receives) */
    NDKSIM_STATS_WRITE = 2,           /**< NdkWrite */
    NDKSIM_STATS_READ = 3,            /**< NdkRead */
    NDKSIM_STATS_SEND_INVALIDATE = 4, /**< NdkSendAndInvalidate */
    NDKSIM_STATS_BIND = 5,            /**< NdkBind */
    NDKSIM_STATS_FAST_REGISTER = 6,   /**< NdkFastRegister */
    NDKSIM_STATS_INVALIDATE = 7,      /**< NdkInvalidate (region or window) */
    NDKSIM_STATS_OP_COUNT = 8
} ndksim_stats_op;

/** Buckets of a latency histogram: bucket 0 counts latencies below 1 ns, bucket b >= 1 those in
 *  [2^(b-1), 2^b) nanoseconds; the last bucket also counts everything above. */
#define NDKSIM_LATENCY_BUCKETS 40

/** Counters of one operation type. */
typedef struct ndksim_op_stats {
    ULONG64 completed;      /**< completions with STATUS_SUCCESS (silent ones included) */
    ULONG64 errors;         /**< completions with a failure status (flushes included) */
    ULONG64 bytes;          /**< bytes of the successful completions: the message length of a
                                 transfer or receive, the length of a bind or fast-register */
    ULONG64 latency_count;  /**< successful completions timed (all but receives) */
    ULONG64 latency_sum_ps; /**< sum of their post-to-completion latencies [ps, simulated] */
    ULONG64 latency_min_ps; /**< smallest latency [ps]; 0 when latency_count is 0 */
    ULONG64 latency_max_ps; /**< largest latency [ps] */
    ULONG64 latency_buckets[NDKSIM_LATENCY_BUCKETS]; /**< the histogram (see above) */
} ndksim_op_stats;

/** Statistics of one QP. Set `size` to sizeof(ndksim_qp_stats) before a call. */
typedef struct ndksim_qp_stats {
    ULONG size;      /**< in: sizeof(ndksim_qp_stats); out: bytes filled */
    ULONG qp_number; /**< the QP number (the destination QP of its peer's packets) */
    ndksim_op_stats ops[NDKSIM_STATS_OP_COUNT]; /**< indexed by ndksim_stats_op */
} ndksim_qp_stats;

/** Adapter-wide statistics (version 5). Set `size` to sizeof(ndksim_adapter_stats) before a
 *  call; each version only appends fields, and a call fills no more than `size` bytes. */
typedef struct ndksim_adapter_stats {
    ULONG size;     /**< in: sizeof(ndksim_adapter_stats); out: bytes filled */
    ULONG qp_count; /**< QPs that exist now (listed by ndksim_adapter_stats_json) */
    ULONG64 now_ps; /**< simulated time of the snapshot [ps] */
    ndksim_op_stats ops[NDKSIM_STATS_OP_COUNT]; /**< every QP's, closed ones included */
    /* Packets of the RoCEv2 engine. */
    ULONG64 packets_sent;            /**< frames the engine transmitted (all kinds) */
    ULONG64 packets_received;        /**< frames that reached the engine */
    ULONG64 acks_sent;               /**< ACKs (and read responses' AETH excluded) */
    ULONG64 naks_sent;               /**< NAKs other than RNR */
    ULONG64 rnr_naks_sent;           /**< receiver-not-ready NAKs */
    ULONG64 rnr_retries;             /**< RNR NAKs received: requests backed off and resent */
    ULONG64 retransmitted_packets;   /**< request packets sent again (go-back-N, timeouts) */
    ULONG64 duplicate_packets;       /**< duplicates received and dropped or re-acknowledged */
    ULONG64 out_of_sequence_packets; /**< requests ahead of the expected PSN (NAKed) */
    ULONG64 protocol_errors;         /**< responses or opcodes that break the protocol */
    /* Frames dropped on receipt. */
    ULONG64 bad_frames;                /**< frames that failed to decode (ICRC, headers, length) */
    ULONG64 frames_for_unknown_qp;     /**< frames for a QP number with no QP */
    ULONG64 frames_for_unconnected_qp; /**< frames for a QP that is not connected */
    /* Connection management datagrams. */
    ULONG64 cm_messages_sent;
    ULONG64 cm_messages_received;
    ULONG64 cm_bad_messages; /**< malformed or unexpected CM messages dropped */
    /* The adapter's end of the link. */
    ULONG64 link_frames_sent;
    ULONG64 link_frames_received;
    ULONG64 link_bytes_sent;        /**< frame bytes put on the link [bytes] */
    ULONG64 link_frames_unroutable; /**< frames no adapter owned the destination of (dropped) */
    /* The translation cache model (MTT/MPT cache) of the memory unit. */
    ULONG64 translation_cache_hits;
    ULONG64 translation_cache_misses;
    ULONG64 translation_cache_stale_hits; /**< model coherence errors; always 0 */
    /* Version 2: reliability (the transport timer and ACK coalescing). */
    ULONG64 ack_timeouts;        /**< transport timer expiries that resent requests */
    ULONG64 retries_exhausted;   /**< requests failed with STATUS_IO_TIMEOUT by retry_limit */
    ULONG64 acks_coalesced;      /**< ACKs not sent because a later ACK covered them */
    ULONG64 stale_responses;     /**< ACKs or read responses that matched no outstanding request */
    ULONG64 connections_aborted; /**< connections torn down by a fatal error (disconnect event) */
    /* Version 2: fault injection on the link (ndksim_link_faults, ndksim_adapter_cut_link). */
    ULONG64 fault_dropped;       /**< frames the fault layer lost (drop_ppm) */
    ULONG64 fault_duplicated;    /**< frames it sent twice */
    ULONG64 fault_reordered;     /**< frames it held back so later ones passed them */
    ULONG64 fault_corrupted;     /**< frames it flipped a bit of */
    ULONG64 fault_delayed;       /**< frames it delayed by delay_ps */
    ULONG64 cut_frames_sent;     /**< frames lost on the way out while the link was cut */
    ULONG64 cut_frames_received; /**< frames lost on the way in while the link was cut */
    /* Version 2: the UDP and TCP wires' sockets (0 on the in-process wire). */
    ULONG64 socket_bad_frames;     /**< datagrams or records too short or too long for a frame */
    ULONG64 socket_bad_records;    /**< TCP: length prefixes out of bounds (connection closed) */
    ULONG64 socket_frames_dropped; /**< frames queued on a connection that broke */
    ULONG64 socket_send_errors;    /**< failed sends, connects and writes */
    ULONG64 socket_receive_errors; /**< failed receives, accepts and reads */
    ULONG64 socket_connections_opened;   /**< TCP: outgoing connections made */
    ULONG64 socket_connections_accepted; /**< TCP: incoming connections taken */
    /* Version 3: the sockets' hostile and lost input (docs/wire-format.md, "Hostile input"). */
    ULONG64 socket_departures_refused; /**< valid frames whose departure time lay too far ahead
                                            of this adapter's clock (dropped; over TCP their
                                            connection is closed) */
    ULONG64 socket_receive_overruns;   /**< UDP: datagrams the kernel dropped because the
                                            socket's receive buffer was full (SO_RXQ_OVFL) */
    /* Version 3, continued: the QP context cache model (nic.qpc_cache_entries of the profile). */
    ULONG64 qp_context_cache_hits;   /**< QP context accesses that found it on the NIC */
    ULONG64 qp_context_cache_misses; /**< accesses that fetched it over PCIe (qpc_miss_ns) */
    /* Version 4: hostile input (docs/wire-format.md, "Hostile input"). */
    ULONG64 pkey_violations; /**< packets for a connected QP whose BTH P_Key does not match its
                                  partition (dropped, IBA 9.6.1.1) */
    ULONG64 socket_backlog_dropped; /**< UDP/TCP: frames dropped unread because the adapter
                                         already held its bound of frames read and not yet
                                         processed (4096) */
    /* Version 5: the memory unit's footprint (docs/memory.md, "Footprint"). */
    ULONG64 memory_entries;      /**< live entries of the token table: MRs, MWs and one
                                      privileged token per PD */
    ULONG64 memory_entry_bytes;  /**< host bytes the token table holds for them [bytes] */
    ULONG64 memory_mapped_pages; /**< pages the adapter's IOMMU maps: every page of each
                                      registered MR and of each LAM */
    ULONG64 memory_page_bytes;   /**< host bytes of the per-page translation metadata (IOMMU
                                      entries and page lists) [bytes] */
} ndksim_adapter_stats;

/** Size of version 1 of ndksim_adapter_stats (up to translation_cache_stale_hits): the
 *  smallest `size` ndksim_adapter_get_stats accepts. */
#define NDKSIM_ADAPTER_STATS_V1_SIZE ((ULONG)offsetof(ndksim_adapter_stats, ack_timeouts))

/** Size of version 2 of ndksim_adapter_stats (up to socket_connections_accepted). */
#define NDKSIM_ADAPTER_STATS_V2_SIZE \
    ((ULONG)offsetof(ndksim_adapter_stats, socket_departures_refused))

/** Size of version 3 of ndksim_adapter_stats (up to qp_context_cache_misses). */
#define NDKSIM_ADAPTER_STATS_V3_SIZE ((ULONG)offsetof(ndksim_adapter_stats, pkey_violations))

/** Size of version 4 of ndksim_adapter_stats (up to socket_backlog_dropped). */
#define NDKSIM_ADAPTER_STATS_V4_SIZE ((ULONG)offsetof(ndksim_adapter_stats, memory_entries))

/**
 * Reads the adapter-wide statistics into *stats. Returns STATUS_SUCCESS, or
 * STATUS_INVALID_PARAMETER (NULL pointer, or stats->size smaller than version 1's size).
 */
NDKSIM_API NTSTATUS ndksim_adapter_get_stats(const ndksim_adapter* adapter,
                                             ndksim_adapter_stats* stats);

/**
 * Reads the statistics of one QP into *stats. Returns STATUS_SUCCESS, or
 * STATUS_INVALID_PARAMETER (NULL pointer, a pointer that is not an NDK_QP, or a bad size).
 */
NDKSIM_API NTSTATUS ndksim_qp_get_stats(NDK_QP* qp, ndksim_qp_stats* stats);

/**
 * Reads the statistics of the adapter's QP numbered `qp_number` into *stats. Returns
 * STATUS_SUCCESS, STATUS_INVALID_HANDLE (no QP with that number exists now) or
 * STATUS_INVALID_PARAMETER (NULL pointer or bad size).
 */
NDKSIM_API NTSTATUS ndksim_adapter_get_qp_stats(const ndksim_adapter* adapter, ULONG qp_number,
                                                ndksim_qp_stats* stats);

/**
 * The latency below which `fraction` (0.0 to 1.0; 0.5 = median, 0.99 = p99) of the timed
 * completions of `stats` fall, in nanoseconds, estimated from the histogram (linear within a
 * bucket, kept between the minimum and the maximum). 0 when nothing was timed or stats is NULL.
 */
NDKSIM_API double ndksim_latency_percentile_ns(const ndksim_op_stats* stats, double fraction);

/**
 * Writes the adapter's statistics and those of each QP as one JSON document (schema in
 * docs/statistics.md), NUL-terminated, into buffer. *length holds the buffer's size in bytes
 * on entry and the size the document needs (NUL included) on return. Returns STATUS_SUCCESS,
 * STATUS_BUFFER_TOO_SMALL (buffer NULL or smaller than needed: call again with *length bytes),
 * STATUS_INVALID_PARAMETER (adapter or length NULL) or STATUS_INSUFFICIENT_RESOURCES.
 */
NDKSIM_API NTSTATUS ndksim_adapter_stats_json(const ndksim_adapter* adapter, char* buffer,
                                              SIZE_T* length);

#ifdef __cplusplus
}
#endif
