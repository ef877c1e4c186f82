// SPDX-License-Identifier: MIT
#pragma once
// The rules the NDK verifier checks: every rule of REFERENCE.md's behaviour digest (section 10)
// and IRQL model (8.5) that constrains the consumer rather than the provider, one row each.
// The id is stable (tests, docs/verifier.md and consumers' suppressions name it); the source
// names the REFERENCE.md section and the Microsoft page the rule comes from.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ndksim::verifier {

/// A rule's stable id; the values are those of ndksim_verifier_rule (include/ndksim/verifier.h).
enum class rule : std::uint16_t {
    none = 0,
    queue_depth = 1,
    sge_count = 2,
    transfer_length = 3,
    inline_size = 4,
    concurrent_post = 5,
    concurrent_poll = 6,
    use_after_close = 7,
    double_close = 8,
    close_with_children = 9,
    armed_with_stale_completions = 10,
    rearm_before_drain = 11,
    lam_not_released = 12,
    fast_register_valid_mr = 13,
    bind_bound_window = 14,
    invalidate_foreign_pd = 15,
    privileged_token_foreign_pd = 16,
    context_reuse = 17,
    result_ex_undefined_field = 18,
    irql_of_call = 19,
    kernel_rule_in_callback = 20,
};

/// Number of rule ids, none included (the table below has one row per id).
inline constexpr std::size_t k_rule_count = 21;

/// One rule: its id, a short key, what the consumer did wrong, where the rule is written, and
/// whether it is checked only when a consumer asks for it (some consumers break it on purpose).
struct rule_info {
    rule id;
    std::string_view key;
    std::string_view name;
    std::string_view source;
    bool opt_in;
};

inline constexpr std::array<rule_info, k_rule_count> k_rules = {{
    {rule::none, "none", "no rule", "", false},
    {rule::queue_depth, "queue-depth", "more requests posted than the queue's depth",
     "REFERENCE.md 10 rule 11 (ddi/nc-ndkpi-ndk_fn_create_qp.md, ReceiveQueueDepth and "
     "InitiatorQueueDepth)",
     false},
    {rule::sge_count, "sge-count", "more SGEs in one request than the QP's maximum",
     "REFERENCE.md 10 rule 11 (ddi/nc-ndkpi-ndk_fn_create_qp.md, MaxInitiatorRequestSge and "
     "MaxReceiveRequestSge; ddi/ndkinfo/ns-ndkinfo-ndk_adapter_info.md, MaxReadRequestSge)",
     false},
    {rule::transfer_length, "transfer-length", "SGE total above the adapter's MaxTransferLength",
     "REFERENCE.md 10 rule 11 (ddi/ndkinfo/ns-ndkinfo-ndk_adapter_info.md, MaxTransferLength)",
     false},
    {rule::inline_size, "inline-size", "inline data above the QP's InlineDataSize",
     "REFERENCE.md 10 rule 11 and 2.3 NDK_OP_FLAG_INLINE (ddi/nc-ndkpi-ndk_fn_create_qp.md, "
     "InlineDataSize)",
     false},
    {rule::concurrent_post, "concurrent-post",
     "two threads posted to one queue at the same time without serializing",
     "REFERENCE.md 10 rule 8 (concepts/ndkpi-work-request-posting-requirements.md)", false},
    {rule::concurrent_poll, "concurrent-poll",
     "two threads called NdkGetCqResults(Ex) or NdkArmCq on one CQ at the same time",
     "REFERENCE.md 10 rule 13 (concepts/ndkpi-completion-handling-requirements.md)", false},
    {rule::use_after_close, "use-after-close", "a call on an object whose close was requested",
     "REFERENCE.md 10 rules 4 and 5 (concepts/ndkpi-object-lifetime-requirements.md)", false},
    {rule::double_close, "double-close", "an object closed twice",
     "REFERENCE.md 10 rule 4 (ddi/nc-ndkpi-ndk_fn_close_object.md, "
     "ddi/nc-ndkpi-ndk_fn_close_completion.md)",
     false},
    {rule::close_with_children, "close-with-children",
     "a parent closed while children are open (legal: the close pends until they close)",
     "REFERENCE.md 10 rule 6 (concepts/ndkpi-object-lifetime-requirements.md)", true},
    {rule::armed_with_stale_completions, "armed-with-stale-completions",
     "a CQ armed while older completions were queued, and never polled again before its close: "
     "the arm cannot fire for them",
     "REFERENCE.md 10 rule 14 (concepts/ndkpi-completion-handling-requirements.md, "
     "ddi/nc-ndkpi-ndk_fn_arm_cq.md)",
     false},
    {rule::rearm_before_drain, "rearm-before-drain",
     "a CQ re-armed from inside its own notification before any completion was retrieved",
     "REFERENCE.md 10 rule 14 (concepts/ndkpi-completion-handling-requirements.md)", false},
    {rule::lam_not_released, "lam-not-released",
     "a logical address mapping built with NdkBuildLam was never released with NdkReleaseLam",
     "REFERENCE.md 10 rule 24 (ddi/nc-ndkpi-ndk_fn_release_lam.md)", false},
    {rule::fast_register_valid_mr, "fast-register-valid-mr",
     "NdkFastRegister on an MR that is still registered (not invalidated)",
     "REFERENCE.md 10 rules 18 and 20 (ddi/nc-ndkpi-ndk_fn_fast_register.md)", false},
    {rule::bind_bound_window, "bind-bound-window", "NdkBind on a memory window that is still bound",
     "REFERENCE.md 10 rule 20 (ddi/nc-ndkpi-ndk_fn_bind.md)", false},
    {rule::invalidate_foreign_pd, "invalidate-foreign-pd",
     "NdkInvalidate of an MR or MW that belongs to another PD than the QP's",
     "REFERENCE.md 10 rule 22 (ddi/nc-ndkpi-ndk_fn_invalidate.md)", false},
    {rule::privileged_token_foreign_pd, "privileged-token-foreign-pd",
     "an SGE carrying the privileged token of another PD than the QP's",
     "REFERENCE.md 10 rule 21 (ddi/nc-ndkpi-ndk_fn_get_privileged_memory_region_token.md, "
     "ddi/ns-ndkpi-_ndk_sge.md)",
     false},
    {rule::context_reuse, "context-reuse",
     "a request context reused while the request posted with it is outstanding",
     "REFERENCE.md 10 rule 9 and 3 NDK_RESULT.RequestContext (ddi/ns-ndkpi-_ndk_result.md)", true},
    {rule::result_ex_undefined_field, "result-ex-undefined-field",
     "an NDK_RESULT_EX field read that is not defined for the completion's type (the verifier "
     "fills such fields with a poison value)",
     "REFERENCE.md 3 NDK_RESULT_EX (ddi/ns-ndkpi-_ndk_result_ex.md)", false},
    {rule::irql_of_call, "irql-of-call", "an NDK call made above its documented IRQL",
     "REFERENCE.md 8.5 and 5 (every provider function: IRQL <= DISPATCH_LEVEL; "
     "NdkQueryAdapterInfo: PASSIVE_LEVEL)",
     false},
    {rule::kernel_rule_in_callback, "kernel-rule-in-callback",
     "a blocking wait, PASSIVE_LEVEL call or unreleased lock inside an NDK callback",
     "REFERENCE.md 8.5 (every consumer callback runs at IRQL <= DISPATCH_LEVEL and must not "
     "block)",
     false},
}};

consteval bool rules_are_indexed_by_id() {
    for (std::size_t i = 0; i < k_rules.size(); ++i) {
        if (static_cast<std::size_t>(k_rules[i].id) != i) {
            return false;
        }
    }
    return true;
}
static_assert(rules_are_indexed_by_id(), "k_rules[i].id == i");

/// The row of `r`.
constexpr const rule_info& info(rule r) noexcept {
    return k_rules[static_cast<std::size_t>(r)];
}

}  // namespace ndksim::verifier
