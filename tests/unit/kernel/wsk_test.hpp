// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the WSK and IP Helper tests: simulated adapters with chosen interface identities,
// and a WSK client's registration block and tables.

#include <gtest/gtest.h>

#include <string>

#include "kernel_test.hpp"
#include "ndksim.h"
#include "netioapi.h"
#include "wskndk.h"

namespace ndksim::kernel::test {

/// One simulated adapter on its own deterministic loop, destroyed at scope end.
class sim_adapter {
  public:
    explicit sim_adapter(const char* address, NET_IFINDEX index = 0, const char* alias = nullptr,
                         const char* name = nullptr) {
        EXPECT_EQ(ndksim_loop_create(&loop_), STATUS_SUCCESS);
        ndksim_adapter_config config;
        ndksim_adapter_config_init(&config);
        config.address = address;
        config.loop = loop_;
        config.interface_index = index;
        config.interface_alias = alias;
        config.name = name;
        status_ = ndksim_adapter_create(&config, &adapter_);
    }
    ~sim_adapter() {
        if (adapter_ != nullptr) {
            ndksim_adapter_destroy(adapter_);
        }
        ndksim_loop_destroy(loop_);
    }
    sim_adapter(const sim_adapter&) = delete;
    sim_adapter& operator=(const sim_adapter&) = delete;

    NTSTATUS status() const { return status_; }
    ndksim_adapter* get() const { return adapter_; }
    NET_IFINDEX index() const { return ndksim_adapter_interface_index(adapter_); }
    NET_LUID luid() const {
        NET_LUID l{};
        l.Value = ndksim_adapter_interface_luid(adapter_);
        return l;
    }

  private:
    ndksim_loop* loop_ = nullptr;
    ndksim_adapter* adapter_ = nullptr;
    NTSTATUS status_ = STATUS_UNSUCCESSFUL;
};

/// A WSK client: its dispatch table (asking for `version`), NPI and registration block.
struct wsk_client {
    explicit wsk_client(USHORT version = MAKE_WSK_VERSION(1, 0)) {
        dispatch.Version = version;
        npi.ClientContext = this;
        npi.Dispatch = &dispatch;
    }
    NTSTATUS register_() { return WskRegister(&npi, &registration); }

    WSK_CLIENT_DISPATCH dispatch{};
    WSK_CLIENT_NPI npi{};
    WSK_REGISTRATION registration{};
};

/// The NDK extension table of a captured provider NPI; fails the test when it cannot be had.
inline WSK_PROVIDER_NDK_DISPATCH ndk_dispatch(const WSK_PROVIDER_NPI& provider) {
    WSK_PROVIDER_NDK_DISPATCH table{};
    EXPECT_EQ(
        provider.Dispatch->WskControlClient(provider.Client, WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH,
                                            0, nullptr, sizeof table, &table, nullptr, nullptr),
        STATUS_SUCCESS);
    return table;
}

}  // namespace ndksim::kernel::test
