#include "core/cq.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"

namespace ndksim::core {

status cq::check_create(const adapter_limits& limits, std::uint32_t depth,
                        notify_fn notify) noexcept {
    // The notification callback is a required parameter of NdkCreateCq.
    if (notify == nullptr || depth == 0 || depth > limits.max_cq_depth) {
        return status::invalid_parameter;
    }
    return status::success;
}

cq::cq(adapter& handle, std::uint32_t depth, notify_fn notify, void* context)
    : object(object_kind::cq, handle.dev(), &handle, &handle),
      depth_(depth),
      notify_(notify),
      notify_context_(context) {}

ref<cq> cq::create(adapter& handle, std::uint32_t depth, notify_fn notify, void* context) {
    return ref<cq>(new cq(handle, depth, notify, context), false);
}

status cq::check_resize(std::uint32_t depth) const noexcept {
    if (depth == 0 || depth > dev().limits().max_cq_depth) {
        return status::invalid_parameter;
    }
    return status::success;
}

status cq::check_moderation(std::uint32_t interval_us, std::uint32_t count) const noexcept {
    constexpr std::uint32_t k_maxulong = 0xFFFFFFFFu;
    if ((dev().limits().adapter_flags & adapter_flag::cq_interrupt_moderation) == 0) {
        return status::not_supported;
    }
    if (interval_us == k_maxulong && (count == k_maxulong || count > depth_)) {
        return status::invalid_parameter_mix;
    }
    return status::success;
}

void cq::apply_moderation(std::uint32_t interval_us, std::uint32_t count) noexcept {
    moderation_interval_us_ = interval_us;
    moderation_count_ = count;
}

}  // namespace ndksim::core
