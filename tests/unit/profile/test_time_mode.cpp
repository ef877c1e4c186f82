// ndksim_adapter_create checks the time mode: paced needs an engine thread and a factor above 0.

#include <gtest/gtest.h>

#include <cstring>

#include "ndksim.h"

namespace {

NTSTATUS create_with(ndksim_time_mode mode, double factor, ndksim_loop* loop) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "127.0.9.2";
    c.time_mode = mode;
    c.pace_factor = factor;
    c.loop = loop;
    ndksim_adapter* a = nullptr;
    const NTSTATUS st = ndksim_adapter_create(&c, &a);
    if (a != nullptr) {
        ndksim_adapter_destroy(a);
    }
    return st;
}

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

}  // namespace
