// SPDX-License-Identifier: MIT
// ndksim_adapter_create picks the adapter's NIC profile: a name, a path, or the default.

#include <gtest/gtest.h>

#include <string>

#include "ndksim.h"

namespace {

const std::string data_dir = NDKSIM_TEST_PROFILE_DATA;

NTSTATUS create_with(const char* profile) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "127.0.9.1";
    c.profile = profile;
    ndksim_adapter* a = nullptr;
    const NTSTATUS st = ndksim_adapter_create(&c, &a);
    if (a != nullptr) {
        ndksim_adapter_destroy(a);
    }
    return st;
}

TEST(ProfileSelection, DefaultAndShippedNamesAreAccepted) {
    EXPECT_EQ(create_with(nullptr), STATUS_SUCCESS);
    EXPECT_EQ(create_with("cx4-edr"), STATUS_SUCCESS);
    EXPECT_EQ(create_with("roce-100g"), STATUS_SUCCESS);
    EXPECT_EQ(create_with("roce-25g"), STATUS_SUCCESS);
}

TEST(ProfileSelection, AFileByPathIsAccepted) {
    EXPECT_EQ(create_with((data_dir + "/partial.toml").c_str()), STATUS_SUCCESS);
}

TEST(ProfileSelection, UnknownNameIsNotSupported) {
    EXPECT_EQ(create_with("no-such-nic"), STATUS_NOT_SUPPORTED);
}

TEST(ProfileSelection, BadFileIsAnInvalidParameter) {
    EXPECT_EQ(create_with((data_dir + "/unknown_field.toml").c_str()), STATUS_INVALID_PARAMETER);
    EXPECT_EQ(create_with((data_dir + "/missing.toml").c_str()), STATUS_INVALID_PARAMETER);
}

}  // namespace
