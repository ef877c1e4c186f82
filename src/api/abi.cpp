// SPDX-License-Identifier: MIT
#include "api/abi.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "util/refusal.hpp"
#include "util/verifier.hpp"

namespace ndksim::api {

namespace {

core::object* resolve(const NDK_OBJECT_HEADER* header, core::object_kind kind,
                      const char* function) noexcept {
    if (header == nullptr) {
        NDKSIM_ERROR("{}: NULL object pointer", function);
        return nullptr;
    }
    const auto* slot = reinterpret_cast<const core::abi_slot*>(header);
    if (slot->magic != core::abi_slot::k_magic || slot->owner == nullptr) {
        NDKSIM_ERROR("{}: {} is not an ndksim NDK object (or was already closed)", function,
                     static_cast<const void*>(header));
        return nullptr;
    }
    core::object* o = slot->owner;
    if (o->kind() != kind) {
        NDKSIM_ERROR("{}: {} is a {}, expected a {}", function, o->ident(),
                     core::kind_name(o->kind()), core::kind_name(kind));
        return nullptr;
    }
    return o;
}

// Rules 4 and 5: once its close is requested, the consumer makes no call on the object.
void verify_open(const core::object& o, const char* function) noexcept {
    if (!o.is_open()) {
        try {
            o.dev().verifier().raise(verifier::rule::use_after_close, o.ident(), function,
                                     status::success, "the object's close was requested earlier");
        } catch (const std::exception&) {
            // Only the report could not be formatted; the call goes on.
        }
    }
}

// Rule 4 (a second close) and, opt-in, rule 6 (a parent closed before its children).
void verify_close(const core::object& o, const char* function) {
    const verifier::checker& v = o.dev().verifier();
    if (!o.is_open()) {
        v.raise(verifier::rule::double_close, o.ident(), function, status::success,
                "the object's close was requested earlier; the provider ignores this one");
        return;
    }
    if (o.open_successors() != 0 && verifier::enabled(verifier::rule::close_with_children)) {
        std::vector<const core::object*> open;
        o.collect_open_descendants(open);
        std::string names;
        for (const core::object* c : open) {
            names += names.empty() ? "" : ", ";
            names += c->ident();
        }
        v.raise(verifier::rule::close_with_children, o.ident(), function, status::success,
                fmt::format("the close pends until these close: {}", names));
    }
}

}  // namespace

core::object* object_from_header(const NDK_OBJECT_HEADER* header, core::object_kind kind,
                                 const char* function) noexcept {
    // Every NDK provider function starts here, so this is where the IRQL rule they all share
    // is checked (REFERENCE.md 8.5).
    check_call(function, irql::dispatch_level, k_ndk_call_rule);
    core::object* o = resolve(header, kind, function);
    if (o != nullptr && o->dev().verifier().on()) [[unlikely]] {
        verify_open(*o, function);
    }
    return o;
}

NTSTATUS consumer_error(const char* function, const char* what, status s) noexcept {
    NDKSIM_ERROR("{}: {} -> {}", function, what, s);
    std::array<char, 320> text{};
    const auto r =
        fmt::format_to_n(text.data(), text.size(), "{} refused with {}: {}", function, s, what);
    refusal::set_last_on_this_thread({text.data(), std::min(r.size, text.size())});
    return to_nt(s);
}

NTSTATUS close_object(NDK_OBJECT_HEADER* header, core::object_kind kind,
                      NDK_FN_CLOSE_COMPLETION done, PVOID context, const char* function) noexcept {
    check_call(function, irql::dispatch_level, k_ndk_call_rule);
    core::object* o = resolve(header, kind, function);
    if (o == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (done == nullptr) {
        return consumer_error(function, "CloseCompletion is NULL", status::invalid_parameter);
    }
    if (o->dev().verifier().on()) [[unlikely]] {
        try {
            verify_close(*o, function);
        } catch (const std::exception&) {
            // Only the report could not be formatted; the close goes on.
        }
    }
    return to_nt(o->close([done, context, call = current_call()] {
        if (call.hooks != nullptr) [[unlikely]] {
            call.hooks->on_callback(call.function, status::success);
        }
        run_callback("NDK_FN_CLOSE_COMPLETION", [&] { done(context); });
    }));
}

NTSTATUS query_extension(NDK_OBJECT_HEADER* header, core::object_kind kind,
                         const char* function) noexcept {
    if (object_from_header(header, kind, function) == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return STATUS_NOT_SUPPORTED;
}

}  // namespace ndksim::api
