// SPDX-License-Identifier: MIT
// ndksim_adapter_create checks the time mode: paced needs an engine thread and a factor above 0;
// synchronized needs an engine thread and the in-process wire; NDKSIM_TIME_MODE overrides the
// mode of threaded adapters.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "ndksim.h"

namespace {

NTSTATUS create_with(ndksim_time_mode mode, double factor, ndksim_loop* loop,
                     ndksim_wire wire = NDKSIM_WIRE_DEFAULT, std::string* json = nullptr,
                     const char* address = "127.0.9.2") {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = address;
    c.time_mode = mode;
    c.pace_factor = factor;
    c.loop = loop;
    c.wire = wire;
    c.port = 47917;
    ndksim_adapter* a = nullptr;
    const NTSTATUS st = ndksim_adapter_create(&c, &a);
    if (a != nullptr) {
        if (json != nullptr) {
            SIZE_T length = 1 << 16;
            json->assign(length, '\0');
            EXPECT_EQ(STATUS_SUCCESS, ndksim_adapter_stats_json(a, json->data(), &length));
        }
        ndksim_adapter_destroy(a);
    }
    return st;
}

// Sets NDKSIM_TIME_MODE for the life of the object.
struct time_mode_env {
    explicit time_mode_env(const char* value) { setenv("NDKSIM_TIME_MODE", value, 1); }
    ~time_mode_env() { unsetenv("NDKSIM_TIME_MODE"); }
    time_mode_env(const time_mode_env&) = delete;
    time_mode_env& operator=(const time_mode_env&) = delete;
};

TEST(TimeMode, DefaultsAreVirtualAtRealTimeScale) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    EXPECT_EQ(NDKSIM_TIME_VIRTUAL, c.time_mode);
    EXPECT_EQ(1.0, c.pace_factor);
}

TEST(TimeMode, PacedThreadedAdaptersAreCreated) {
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_PACED, 1.0, nullptr));
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_PACED, 10.0, nullptr));
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_PACED, 0.5, nullptr));
}

TEST(TimeMode, PacedOnADeterministicLoopIsRefused) {
    ndksim_loop* loop = nullptr;
    ASSERT_EQ(STATUS_SUCCESS, ndksim_loop_create(&loop));
    EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_PACED, 1.0, loop));
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_VIRTUAL, 1.0, loop));
    ndksim_loop_destroy(loop);
}

TEST(TimeMode, FactorsOutOfRangeAndUnknownModesAreRefused) {
    EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_PACED, 0.0, nullptr));
    EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_PACED, -1.0, nullptr));
    EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_PACED, 2e6, nullptr));
    // A C caller may store any int in the field; C++ code writes it through its bytes.
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "127.0.9.2";
    const int unknown = 7;
    std::memcpy(&c.time_mode, &unknown, sizeof unknown);
    ndksim_adapter* a = nullptr;
    EXPECT_EQ(STATUS_INVALID_PARAMETER, ndksim_adapter_create(&c, &a));
}

TEST(TimeMode, SynchronizedThreadedAdaptersAreCreatedAndReportTheirDomain) {
    std::string json;
    EXPECT_EQ(STATUS_SUCCESS,
              create_with(NDKSIM_TIME_SYNCHRONIZED, 1.0, nullptr, NDKSIM_WIRE_DEFAULT, &json));
    EXPECT_NE(std::string::npos, json.find("\"synchronization\"")) << json;
    EXPECT_EQ(STATUS_SUCCESS,
              create_with(NDKSIM_TIME_VIRTUAL, 1.0, nullptr, NDKSIM_WIRE_DEFAULT, &json));
    EXPECT_EQ(std::string::npos, json.find("\"synchronization\"")) << json;
}

TEST(TimeMode, SynchronizedOnALoopIsRefused) {
    ndksim_loop* loop = nullptr;
    ASSERT_EQ(STATUS_SUCCESS, ndksim_loop_create(&loop));
    EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_SYNCHRONIZED, 1.0, loop));
    ndksim_loop_destroy(loop);
}

// The tests that bind a socket run as separate processes, possibly at the same time (ctest -j):
// each binds an address of its own.
TEST(TimeMode, SynchronizedWorksOnTheSocketWires) {
    std::string json;
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_SYNCHRONIZED, 1.0, nullptr, NDKSIM_WIRE_UDP,
                                          &json, "127.0.9.4"));
    EXPECT_NE(std::string::npos, json.find("\"synchronization\"")) << json;
    EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_SYNCHRONIZED, 1.0, nullptr, NDKSIM_WIRE_TCP,
                                          &json, "127.0.9.4"));
    EXPECT_NE(std::string::npos, json.find("\"synchronization\"")) << json;
}

TEST(TimeMode, TheEnvironmentVariableChoosesTheModeOfThreadedAdapters) {
    std::string json;
    {
        const time_mode_env env("synchronized");
        EXPECT_EQ(STATUS_SUCCESS,
                  create_with(NDKSIM_TIME_VIRTUAL, 1.0, nullptr, NDKSIM_WIRE_DEFAULT, &json));
        EXPECT_NE(std::string::npos, json.find("\"synchronization\"")) << json;
        // A socket wire follows it too, and a loop is a loop.
        EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_VIRTUAL, 1.0, nullptr, NDKSIM_WIRE_UDP,
                                              &json, "127.0.9.5"));
        EXPECT_NE(std::string::npos, json.find("\"synchronization\"")) << json;
        ndksim_loop* loop = nullptr;
        ASSERT_EQ(STATUS_SUCCESS, ndksim_loop_create(&loop));
        EXPECT_EQ(STATUS_SUCCESS, create_with(NDKSIM_TIME_VIRTUAL, 1.0, loop));
        ndksim_loop_destroy(loop);
    }
    {
        const time_mode_env env("sometimes");
        EXPECT_EQ(STATUS_INVALID_PARAMETER, create_with(NDKSIM_TIME_VIRTUAL, 1.0, nullptr));
    }
}

}  // namespace

// The synchronized adapters of a process share one engine thread that their gate paces: a
// consumer thread cannot take it over, so the consumer policy is refused there, and accepted
// in the other threaded modes.
TEST(TimeMode, TheConsumerPollPolicyIsRefusedInSynchronizedTime) {
    for (const ndksim_time_mode mode :
         {NDKSIM_TIME_VIRTUAL, NDKSIM_TIME_PACED, NDKSIM_TIME_SYNCHRONIZED}) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.address = "127.0.9.2";
        c.time_mode = mode;
        c.poll_policy = NDKSIM_POLL_CONSUMER;
        ndksim_adapter* a = nullptr;
        const NTSTATUS st = ndksim_adapter_create(&c, &a);
        if (mode == NDKSIM_TIME_SYNCHRONIZED) {
            EXPECT_EQ(STATUS_INVALID_PARAMETER, st);
            EXPECT_EQ(nullptr, a);
        } else {
            EXPECT_EQ(STATUS_SUCCESS, st) << mode;
            // ndksim_adapter_wait runs the engine on this thread until it has nothing to do.
            EXPECT_EQ(STATUS_SUCCESS, ndksim_adapter_wait(a, 10000)) << mode;
            EXPECT_EQ(TRUE, ndksim_adapter_idle(a)) << mode;
            ndksim_adapter_destroy(a);
        }
    }
}
