// SPDX-License-Identifier: MIT
// ndksim_adapter_inject_frame: raw RoCEv2 bytes delivered to an adapter's engine as if they had
// arrived on its link, for tests of how a consumer and the NIC behave under a hostile peer.

#include <cstring>
#include <string>
#include <vector>

#include "api/adapter_state.hpp"
#include "core/net_address.hpp"
#include "ndksim.h"
#include "util/log.hpp"
#include "wire/frame.hpp"

using namespace ndksim;

extern "C" NDKSIM_API NTSTATUS ndksim_adapter_inject_frame(ndksim_adapter* adapter,
                                                           const void* roce_packet, ULONG length,
                                                           const char* source_address) {
    if (adapter == nullptr || roce_packet == nullptr || source_address == nullptr) {
        NDKSIM_ERROR("ndksim_adapter_inject_frame: NULL adapter, packet or source address");
        return STATUS_INVALID_PARAMETER;
    }
    if (length == 0) {
        // Not even a header; an empty copy would also hand memcpy a null pointer.
        NDKSIM_ERROR("ndksim_adapter_inject_frame: length is 0");
        return STATUS_INVALID_PARAMETER;
    }
    if (length > wire::k_max_frame_bytes) {
        NDKSIM_ERROR("ndksim_adapter_inject_frame: {} bytes exceed the frame size {}", length,
                     wire::k_max_frame_bytes);
        return STATUS_INVALID_PARAMETER;
    }
    core::net_address parsed;
    if (!core::net_address::parse_ip(source_address, parsed)) {
        NDKSIM_ERROR("ndksim_adapter_inject_frame: source '{}' is not an IPv4 or IPv6 literal",
                     source_address);
        return STATUS_INVALID_PARAMETER;
    }
    if (!adapter->engine || !adapter->link.receive) {
        return STATUS_INVALID_DEVICE_STATE;
    }
    wire::ip_address source;
    source.v6 = parsed.v6;
    source.bytes = parsed.bytes;
    // The caller's buffer is only valid during the call, while the frame is taken from the
    // engine's pool on the engine's thread (the pool has a single taker): copy the bytes now.
    const auto* bytes = static_cast<const std::byte*>(roce_packet);
    std::vector<std::byte> copy(bytes, bytes + length);
    timing::scheduler& sched = adapter->dev.sched();
    sched.post([adapter, source, copy = std::move(copy), &sched] {
        wire::frame* f = adapter->engine->frames().take();
        std::memcpy(f->data, copy.data(), copy.size());
        f->length = static_cast<std::uint32_t>(copy.size());
        f->source = source;
        f->arrival = sched.now();
        adapter->link.receive(f);
    });
    return STATUS_SUCCESS;
}
