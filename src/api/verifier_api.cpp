// SPDX-License-Identifier: MIT
// The ndksim_verifier.h entry points.

#include <cstring>
#include <string>

#include "api/adapter_state.hpp"
#include "ndksim_verifier.h"
#include "util/verifier.hpp"

namespace ndksim::api {
namespace {

static_assert(static_cast<int>(verifier::mode::off) == NDKSIM_VERIFIER_OFF - 1);
static_assert(static_cast<int>(verifier::mode::report) == NDKSIM_VERIFIER_REPORT - 1);
static_assert(static_cast<int>(verifier::mode::abort) == NDKSIM_VERIFIER_BREAK - 1);
static_assert(verifier::k_rule_count == NDKSIM_RULE_COUNT);
static_assert(static_cast<int>(verifier::rule::kernel_rule_in_callback) ==
              NDKSIM_RULE_KERNEL_RULE_IN_CALLBACK);
static_assert(static_cast<int>(verifier::rule::context_reuse) == NDKSIM_RULE_CONTEXT_REUSE);

struct c_sink {
    ndksim_verifier_callback callback = nullptr;
    void* context = nullptr;
};
c_sink g_c_sink;

// Turns a report's views into the NUL-terminated strings of the C structure.
void forward(const verifier::report& r, void* context) {
    const auto* sink = static_cast<const c_sink*>(context);
    const std::string object(r.object);
    const std::string call(r.call);
    const std::string detail(r.detail);
    const std::string backtrace(r.backtrace);
    const std::string text(r.text);
    const std::string key(r.rule->key);
    const std::string name(r.rule->name);
    const std::string source(r.rule->source);
    ndksim_verifier_report c{};
    c.rule = static_cast<ULONG>(r.rule->id);
    c.rule_key = key.c_str();
    c.rule_name = name.c_str();
    c.source = source.c_str();
    c.object = object.c_str();
    c.call = call.c_str();
    c.status = static_cast<NTSTATUS>(r.result);
    c.detail = detail.c_str();
    c.backtrace = backtrace.c_str();
    c.text = text.c_str();
    sink->callback(&c, sink->context);
}

}  // namespace
}  // namespace ndksim::api

using namespace ndksim;

extern "C" {

NDKSIM_API void ndksim_verifier_set_callback(ndksim_verifier_callback callback, void* context) {
    // Cleared first, so the sink never sees a half-written pair (set_sink takes its lock).
    verifier::set_sink(nullptr, nullptr);
    if (callback == nullptr) {
        return;
    }
    api::g_c_sink = api::c_sink{callback, context};
    verifier::set_sink(&api::forward, &api::g_c_sink);
}

NDKSIM_API ULONG64 ndksim_verifier_reports(void) {
    return verifier::total_count();
}

NDKSIM_API ULONG64 ndksim_adapter_verifier_reports(const struct ndksim_adapter* adapter) {
    return adapter == nullptr ? 0 : adapter->dev.verifier().count();
}

NDKSIM_API ULONG64 ndksim_adapter_verifier_rule_reports(const struct ndksim_adapter* adapter,
                                                        ULONG rule) {
    if (adapter == nullptr || rule == 0 || rule >= NDKSIM_RULE_COUNT) {
        return 0;
    }
    return adapter->dev.verifier().count(static_cast<verifier::rule>(rule));
}

NDKSIM_API NTSTATUS ndksim_adapter_set_verifier(struct ndksim_adapter* adapter,
                                                ndksim_verifier_mode mode) {
    int value = 0;
    static_assert(sizeof mode == sizeof value);
    std::memcpy(&value, &mode, sizeof value);  // any int a C caller stored (simulator.cpp)
    if (adapter == nullptr || value < NDKSIM_VERIFIER_DEFAULT || value > NDKSIM_VERIFIER_BREAK) {
        return STATUS_INVALID_PARAMETER;
    }
    adapter->dev.verifier_mut().set_mode(value == NDKSIM_VERIFIER_DEFAULT
                                             ? verifier::from_environment()
                                             : static_cast<verifier::mode>(value - 1));
    return STATUS_SUCCESS;
}

NDKSIM_API ndksim_verifier_mode ndksim_adapter_verifier_mode(const struct ndksim_adapter* adapter) {
    if (adapter == nullptr) {
        return NDKSIM_VERIFIER_OFF;
    }
    return static_cast<ndksim_verifier_mode>(static_cast<int>(adapter->dev.verifier().current()) +
                                             1);
}

NDKSIM_API NTSTATUS ndksim_verifier_enable_rule(ULONG rule, BOOLEAN enable) {
    if (rule == 0 || rule >= NDKSIM_RULE_COUNT) {
        return STATUS_INVALID_PARAMETER;
    }
    verifier::set_enabled(static_cast<verifier::rule>(rule), enable != FALSE);
    return STATUS_SUCCESS;
}

NDKSIM_API const char* ndksim_verifier_rule_key(ULONG rule) {
    if (rule == 0 || rule >= NDKSIM_RULE_COUNT) {
        return nullptr;
    }
    // Every key is a literal of verifier_rules.hpp: NUL-terminated and static.
    return verifier::info(static_cast<verifier::rule>(rule)).key.data();
}

}  // extern "C"
