#pragma once
// A completion queue (NDK_CQ). Holds its depth, its notification callback and its interrupt
// moderation setting.

#include <cstdint>

#include "core/callbacks.hpp"
#include "core/object.hpp"

namespace ndksim::core {

struct adapter_limits;

class cq final : public object {
public:
    /// NdkCreateCq limits: 0 < depth <= MaxCqDepth, else invalid_parameter
    /// (ddi/nc-ndkpi-ndk_fn_create_cq.md).
    [[nodiscard]] static status check_create(const adapter_limits& limits, std::uint32_t depth,
                                             notify_fn notify) noexcept;

    /// Creates a CQ; call check_create first.
    static ref<cq> create(adapter& handle, std::uint32_t depth, notify_fn notify, void* context);

    /// NdkResizeCq limits: 0 < depth <= MaxCqDepth (ddi/nc-ndkpi-ndk_fn_resize_cq.md).
    [[nodiscard]] status check_resize(std::uint32_t depth) const noexcept;
    void apply_resize(std::uint32_t depth) noexcept { depth_ = depth; }

    /// NdkControlCqInterruptModeration (ddi/nc-ndkpi-ndk_fn_control_cq_interrupt_moderation.md):
    /// not_supported without the adapter flag; invalid_parameter_mix for Interval = MAXULONG
    /// with Count = MAXULONG or Count > depth; never pends.
    [[nodiscard]] status check_moderation(std::uint32_t interval_us,
                                          std::uint32_t count) const noexcept;
    void apply_moderation(std::uint32_t interval_us, std::uint32_t count) noexcept;

    std::uint32_t depth() const noexcept { return depth_; }
    std::uint32_t moderation_interval_us() const noexcept { return moderation_interval_us_; }
    std::uint32_t moderation_count() const noexcept { return moderation_count_; }
    notify_fn notification() const noexcept { return notify_; }
    void* notification_context() const noexcept { return notify_context_; }

private:
    cq(adapter& handle, std::uint32_t depth, notify_fn notify, void* context);

    std::uint32_t depth_;
    notify_fn notify_;
    void* notify_context_;
    // Moderation defaults to off (REFERENCE.md rule 17).
    std::uint32_t moderation_interval_us_ = 0;
    std::uint32_t moderation_count_ = 0;
};

}  // namespace ndksim::core
