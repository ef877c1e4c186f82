// SPDX-License-Identifier: MIT
// ndksim_adapter_create reads the enum fields of ndksim_adapter_config as the integers a C
// caller stored and refuses a value outside the enum with STATUS_INVALID_PARAMETER: loading
// such a value as the enum type would be undefined behaviour in C++.

#include <gtest/gtest.h>

#include <climits>
#include <cstring>

#include "ndksim.h"

namespace {

// Creates an adapter whose `field` holds `raw`, written through the field's bytes as C code
// could store it; returns what ndksim_adapter_create said (and destroys a created adapter).
template <class Enum>
NTSTATUS create_with_raw(Enum ndksim_adapter_config::*field, int raw) {
    static_assert(sizeof(Enum) == sizeof raw);
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "127.0.9.3";
    std::memcpy(&(c.*field), &raw, sizeof raw);
    ndksim_adapter* a = nullptr;
    const NTSTATUS st = ndksim_adapter_create(&c, &a);
    if (a != nullptr) {
        ndksim_adapter_destroy(a);
    }
    return st;
}

// Every value below is outside the enum: negative, the first value after the last member,
// far beyond it, and the int extremes.
template <class Enum>
void expect_refused(Enum ndksim_adapter_config::*field, int first_unknown) {
    for (const int raw : {-1, first_unknown, 1000, INT_MAX, INT_MIN}) {
        EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with_raw(field, raw)) << raw;
    }
}

TEST(ConfigEnums, AnUnknownCompletionStyleIsInvalidParameter) {
    expect_refused(&ndksim_adapter_config::completion_style, NDKSIM_COMPLETE_RANDOM + 1);
}

TEST(ConfigEnums, AnUnknownPollPolicyIsInvalidParameter) {
    expect_refused(&ndksim_adapter_config::poll_policy, NDKSIM_POLL_CONSUMER + 1);
}

TEST(ConfigEnums, AnUnknownWireIsInvalidParameter) {
    expect_refused(&ndksim_adapter_config::wire, NDKSIM_WIRE_TCP + 1);
}

TEST(ConfigEnums, EveryKnownValueIsAccepted) {
    for (const int raw :
         {NDKSIM_COMPLETE_INLINE, NDKSIM_COMPLETE_PENDING, NDKSIM_COMPLETE_RANDOM}) {
        EXPECT_EQ(STATUS_SUCCESS, create_with_raw(&ndksim_adapter_config::completion_style, raw))
            << raw;
    }
    for (const int raw :
         {NDKSIM_POLL_BLOCK, NDKSIM_POLL_SPIN, NDKSIM_POLL_SPIN_THEN_BLOCK, NDKSIM_POLL_CONSUMER}) {
        EXPECT_EQ(STATUS_SUCCESS, create_with_raw(&ndksim_adapter_config::poll_policy, raw)) << raw;
    }
    for (const int raw : {NDKSIM_WIRE_DEFAULT, NDKSIM_WIRE_INPROC}) {
        EXPECT_EQ(STATUS_SUCCESS, create_with_raw(&ndksim_adapter_config::wire, raw)) << raw;
    }
}

}  // namespace
