// SPDX-License-Identifier: MIT
// The ndksim.h entry points that change a running adapter's link: fault injection and cutting
// the cable. Both reach the fault layer that link_factory put over the base transport.

#include "api/adapter_state.hpp"
#include "api/link_factory.hpp"
#include "ndksim.h"
#include "util/log.hpp"

using namespace ndksim;

extern "C" {

NDKSIM_API NTSTATUS ndksim_adapter_set_faults(ndksim_adapter* adapter,
                                              const ndksim_link_faults* faults) {
    if (adapter == nullptr || faults == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_set_faults: NULL adapter or faults");
        return STATUS_INVALID_PARAMETER;
    }
    if (!api::valid_faults(*faults)) {
        NDKSIM_ERROR("{}: ndksim_adapter_set_faults: a rate is above 1000000 (parts per million)",
                     adapter->dev.name());
        return STATUS_INVALID_PARAMETER;
    }
    if (adapter->link.faults == nullptr) {
        return STATUS_INVALID_DEVICE_STATE;  // the adapter's link was not built
    }
    // The settings are atomics read by the engine at its next frame (wire/faulty_link.hpp).
    adapter->link.faults->configure(api::to_fault_settings(*faults, adapter->dev.config().seed));
    NDKSIM_INFO("{}: link faults: drop {} dup {} reorder {} corrupt {} ppm, delay {} ps",
                adapter->dev.name(), faults->drop_ppm, faults->duplicate_ppm, faults->reorder_ppm,
                faults->corrupt_ppm, faults->delay_ps);
    return STATUS_SUCCESS;
}

NDKSIM_API NTSTATUS ndksim_adapter_cut_link(ndksim_adapter* adapter, BOOLEAN cut) {
    if (adapter == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_cut_link: NULL adapter");
        return STATUS_INVALID_PARAMETER;
    }
    if (adapter->link.faults == nullptr) {
        return STATUS_INVALID_DEVICE_STATE;
    }
    adapter->link.faults->cut(cut != FALSE);
    NDKSIM_INFO("{}: link {}", adapter->dev.name(), cut != FALSE ? "cut" : "restored");
    return STATUS_SUCCESS;
}

}  // extern "C"
