// SPDX-License-Identifier: MIT
// C++ half of the package test: <ndksim/ndkpi.h> spelled with its directory.
#include <ndksim/ndkpi.h>
#include <ndksim/ndksim.h>

#include <cstdio>

extern "C" ULONG consumer_c_max_cq_depth(ndksim_adapter* adapter);

int main() {
    ndksim_adapter_config config;
    ndksim_adapter_config_init(&config);
    config.address = "127.0.0.9";
    ndksim_adapter* adapter = nullptr;
    if (!NT_SUCCESS(ndksim_adapter_create(&config, &adapter))) {
        std::fprintf(stderr, "ndksim_adapter_create failed\n");
        return 1;
    }
    const ULONG depth = consumer_c_max_cq_depth(adapter);
    ndksim_adapter_destroy(adapter);
    std::printf("ndksim %s: MaxCqDepth %u\n", ndksim_version(), depth);
    return depth > 0 ? 0 : 1;
}
