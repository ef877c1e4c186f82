#pragma once
// A shared receive queue (NDK_SRQ): depth, SGE limit and the notify threshold.

#include <cstdint>

#include "core/callbacks.hpp"
#include "core/object.hpp"

namespace ndksim::core {

struct adapter_limits;
class pd;

class srq final : public object {
public:
    /// NdkCreateSrq limits (ddi/nc-ndkpi-ndk_fn_create_srq.md): 0 < depth <= MaxSrqDepth
    /// (an adapter with MaxSrqDepth 0 has no SRQs), max_sge <= MaxReceiveRequestSge; else
    /// invalid_parameter.
    [[nodiscard]] static status check_create(const adapter_limits& limits, std::uint32_t depth,
                                             std::uint32_t max_sge) noexcept;

    static ref<srq> create(pd& owner, std::uint32_t depth, std::uint32_t max_sge,
                           std::uint32_t notify_threshold, notify_fn notify, void* context);

    /// NdkModifySrq (ddi/nc-ndkpi-ndk_fn_modify_srq.md): depth 0 keeps the depth, a depth
    /// above MaxSrqDepth is invalid_parameter; threshold 0 keeps threshold and arm state.
    [[nodiscard]] status check_modify(std::uint32_t depth) const noexcept;
    void apply_modify(std::uint32_t depth, std::uint32_t notify_threshold) noexcept;

    std::uint32_t depth() const noexcept { return depth_; }
    std::uint32_t max_sge() const noexcept { return max_sge_; }
    std::uint32_t notify_threshold() const noexcept { return notify_threshold_; }
    notify_fn notification() const noexcept { return notify_; }
    void* notification_context() const noexcept { return notify_context_; }

private:
    srq(pd& owner, std::uint32_t depth, std::uint32_t max_sge, std::uint32_t notify_threshold,
        notify_fn notify, void* context);

    std::uint32_t depth_;
    std::uint32_t max_sge_;
    std::uint32_t notify_threshold_;
    notify_fn notify_;
    void* notify_context_;
};

}  // namespace ndksim::core
