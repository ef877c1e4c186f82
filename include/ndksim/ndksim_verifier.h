/* SPDX-License-Identifier: MIT */
/*
 * ndksim_verifier.h - the NDK verifier's control surface (docs/verifier.md).
 *
 * The verifier reports an NDK consumer that breaks an NDKPI rule, at the call that broke it:
 * the rule's id, name and source (REFERENCE.md section and Microsoft page), the object, the
 * call and the consumer's call site (a backtrace). It is switched per adapter by
 * ndksim_adapter_config::verifier; an adapter whose config leaves it at
 * NDKSIM_VERIFIER_DEFAULT follows the environment variable NDKSIM_VERIFIER=off|report|break
 * (off when unset).
 */
#pragma once

#include "ndkpi.h"
#include "ndksim_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the verifier does when a consumer breaks a rule. */
typedef enum ndksim_verifier_mode {
    NDKSIM_VERIFIER_DEFAULT = 0, /**< NDKSIM_VERIFIER if set, otherwise off */
    NDKSIM_VERIFIER_OFF = 1,     /**< nothing is checked; no cost beyond one branch per call */
    NDKSIM_VERIFIER_REPORT = 2,  /**< log at warn level, count, call the registered callback,
                                      and let the call go on as without the verifier */
    NDKSIM_VERIFIER_BREAK = 3    /**< write the report to stderr and abort the process */
} ndksim_verifier_mode;

/** The rules (docs/verifier.md lists each with its source and an example report). */
typedef enum ndksim_verifier_rule {
    NDKSIM_RULE_QUEUE_DEPTH = 1,                   /**< more requests than the queue's depth */
    NDKSIM_RULE_SGE_COUNT = 2,                     /**< more SGEs than the QP's maximum */
    NDKSIM_RULE_TRANSFER_LENGTH = 3,               /**< SGE total above MaxTransferLength */
    NDKSIM_RULE_INLINE_SIZE = 4,                   /**< inline data above InlineDataSize */
    NDKSIM_RULE_CONCURRENT_POST = 5,               /**< unserialized posts to one queue */
    NDKSIM_RULE_CONCURRENT_POLL = 6,               /**< unserialized GetCqResults/ArmCq */
    NDKSIM_RULE_USE_AFTER_CLOSE = 7,               /**< a call on an object being closed */
    NDKSIM_RULE_DOUBLE_CLOSE = 8,                  /**< an object closed twice */
    NDKSIM_RULE_CLOSE_WITH_CHILDREN = 9,           /**< opt-in: parent closed before children */
    NDKSIM_RULE_ARMED_WITH_STALE_COMPLETIONS = 10, /**< armed over completions it cannot fire for */
    NDKSIM_RULE_REARM_BEFORE_DRAIN = 11,           /**< re-armed in its notification, no poll */
    NDKSIM_RULE_LAM_NOT_RELEASED = 12,             /**< NdkBuildLam without NdkReleaseLam */
    NDKSIM_RULE_FAST_REGISTER_VALID_MR = 13,       /**< fast register onto a valid MR */
    NDKSIM_RULE_BIND_BOUND_WINDOW = 14,            /**< bind of a window still bound */
    NDKSIM_RULE_INVALIDATE_FOREIGN_PD = 15,        /**< invalidate of another PD's MR or MW */
    NDKSIM_RULE_PRIVILEGED_TOKEN_FOREIGN_PD = 16,  /**< another PD's privileged token */
    NDKSIM_RULE_CONTEXT_REUSE = 17,                /**< opt-in: request context still in use */
    NDKSIM_RULE_RESULT_EX_UNDEFINED_FIELD = 18,    /**< undefined NDK_RESULT_EX fields poisoned */
    NDKSIM_RULE_IRQL_OF_CALL = 19,                 /**< NDK call above its IRQL */
    NDKSIM_RULE_KERNEL_RULE_IN_CALLBACK = 20,      /**< blocking inside an NDK callback */
    NDKSIM_RULE_COUNT = 21                         /**< one above the highest id */
} ndksim_verifier_rule;

/**
 * The value a verifier in report or break mode writes into each NDK_RESULT_EX field not
 * defined for the completion's type (BytesTransferred of a non-receive,
 * TypeSpecificCompletionOutput of anything but ReceiveAndInvalidate), so a consumer that
 * reads one sees an implausible value at once.
 */
#define NDKSIM_VERIFIER_POISON 0xDEADBEEFUL

/** One report, as the callback receives it; the strings live only during the call. */
typedef struct ndksim_verifier_report {
    ULONG rule;            /**< an ndksim_verifier_rule value */
    const char* rule_key;  /**< short key, e.g. "sge-count" */
    const char* rule_name; /**< what the consumer did wrong */
    const char* source;    /**< REFERENCE.md section and Microsoft page of the rule */
    const char* object;    /**< identity of the object, e.g. "nic1/h1/qp#3"; "" for none */
    const char* call;      /**< the NDK function or callback, e.g. "NdkWrite" */
    NTSTATUS status;       /**< what the call returned; STATUS_SUCCESS when it went on */
    const char* detail;    /**< what exactly was wrong */
    const char* backtrace; /**< the consumer's call site, one frame per line */
    const char* text;      /**< the whole report as logged */
} ndksim_verifier_report;

/** Receives every report in report mode, on the thread that broke the rule. */
typedef void (*ndksim_verifier_callback)(const ndksim_verifier_report* report, void* context);

/**
 * Registers the callback that receives each report in report mode (process-wide; NULL
 * removes it). A callback registered again replaces the previous one.
 */
NDKSIM_API void ndksim_verifier_set_callback(ndksim_verifier_callback callback, void* context);

/** Reports raised in report mode in this process so far (every adapter and thread rule). */
NDKSIM_API ULONG64 ndksim_verifier_reports(void);

struct ndksim_adapter;

/** Reports raised in report mode by the adapter's objects so far; 0 for NULL. */
NDKSIM_API ULONG64 ndksim_adapter_verifier_reports(const struct ndksim_adapter* adapter);

/**
 * Reports of one rule raised in report mode by the adapter's objects so far; 0 for NULL or an
 * id that names no rule.
 */
NDKSIM_API ULONG64 ndksim_adapter_verifier_rule_reports(const struct ndksim_adapter* adapter,
                                                        ULONG rule);

/**
 * Changes the adapter's verifier mode for the calls that start afterwards
 * (NDKSIM_VERIFIER_DEFAULT: what NDKSIM_VERIFIER says, off without it). A test marks a call
 * that breaks a rule on purpose by switching to report mode around it (the test kit's
 * expect_violation does). Returns STATUS_SUCCESS or STATUS_INVALID_PARAMETER (NULL adapter or
 * a value that is no ndksim_verifier_mode).
 */
NDKSIM_API NTSTATUS ndksim_adapter_set_verifier(struct ndksim_adapter* adapter,
                                                ndksim_verifier_mode mode);

/** The adapter's verifier mode now: OFF, REPORT or BREAK (never DEFAULT); OFF for NULL. */
NDKSIM_API ndksim_verifier_mode ndksim_adapter_verifier_mode(const struct ndksim_adapter* adapter);

/**
 * Turns the reporting of one rule on or off, process-wide (the opt-in rules start off, the
 * others on). Returns STATUS_SUCCESS or STATUS_INVALID_PARAMETER (no such rule).
 */
NDKSIM_API NTSTATUS ndksim_verifier_enable_rule(ULONG rule, BOOLEAN enable);

/** The short key of a rule ("sge-count"), or NULL for an id that names no rule. */
NDKSIM_API const char* ndksim_verifier_rule_key(ULONG rule);

#ifdef __cplusplus
}
#endif
