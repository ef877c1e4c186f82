#include "core/srq.hpp"

#include "core/adapter.hpp"
#include "core/device.hpp"
#include "core/pd.hpp"

namespace ndksim::core {

status srq::check_create(const adapter_limits& limits, std::uint32_t depth,
                         std::uint32_t max_sge) noexcept {
    if (depth == 0 || depth > limits.max_srq_depth || max_sge > limits.max_receive_request_sge) {
        return status::invalid_parameter;
    }
    return status::success;
}

srq::srq(pd& owner, std::uint32_t depth, std::uint32_t max_sge, std::uint32_t notify_threshold,
         notify_fn notify, void* context)
    : object(object_kind::srq, owner.dev(), &owner.handle(), &owner),
      depth_(depth),
      max_sge_(max_sge),
      notify_threshold_(notify_threshold),
      notify_(notify),
      notify_context_(context) {}

ref<srq> srq::create(pd& owner, std::uint32_t depth, std::uint32_t max_sge,
                     std::uint32_t notify_threshold, notify_fn notify, void* context) {
    return ref<srq>(new srq(owner, depth, max_sge, notify_threshold, notify, context), false);
}

status srq::check_modify(std::uint32_t depth) const noexcept {
    if (depth > dev().limits().max_srq_depth) {
        return status::invalid_parameter;
    }
    return status::success;
}

void srq::apply_modify(std::uint32_t depth, std::uint32_t notify_threshold) noexcept {
    if (depth != 0) {
        depth_ = depth;
    }
    if (notify_threshold != 0) {
        notify_threshold_ = notify_threshold;
    }
}

}  // namespace ndksim::core
