// SPDX-License-Identifier: MIT
#include "core/outstanding_contexts.hpp"

#include <new>

namespace ndksim::core {

outstanding_contexts::posted outstanding_contexts::post(std::uint32_t queue, const void* context,
                                                        const char* call, bool silent) noexcept {
    std::lock_guard lock(mutex_);
    try {
        context_ledger& ledger = ledgers_[queue];
        const context_ledger::earlier earlier = ledger.outstanding(context);
        ledger.post(context, call, silent);
        tracking_.store(true, std::memory_order_relaxed);
        return posted{true, earlier};
    } catch (const std::bad_alloc&) {
        return posted{false, {nullptr, false}};
    }
}

void outstanding_contexts::refused(std::uint32_t queue, const void* context) noexcept {
    std::lock_guard lock(mutex_);
    if (const auto it = ledgers_.find(queue); it != ledgers_.end()) {
        it->second.refused(context);
    }
}

void outstanding_contexts::retrieved(std::uint32_t queue, const void* context) noexcept {
    std::lock_guard lock(mutex_);
    if (const auto it = ledgers_.find(queue); it != ledgers_.end()) {
        it->second.retrieved(context);
    }
}

void outstanding_contexts::forget(std::uint32_t queue) noexcept {
    if (!tracking()) {
        return;
    }
    std::lock_guard lock(mutex_);
    ledgers_.erase(queue);
}

}  // namespace ndksim::core
