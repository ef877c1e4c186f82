#include "api/abi.hpp"

#include <algorithm>
#include <array>

#include "util/refusal.hpp"

namespace ndksim::api {

core::object* object_from_header(const NDK_OBJECT_HEADER* header, core::object_kind kind,
                                 const char* function) noexcept {
    // Every NDK provider function starts here, so this is where the IRQL rule they all share
    // is checked (REFERENCE.md 8.5).
    check_call(function, irql::dispatch_level, k_ndk_call_rule);
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
    core::object* o = object_from_header(header, kind, function);
    if (o == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    if (done == nullptr) {
        return consumer_error(function, "CloseCompletion is NULL", status::invalid_parameter);
    }
    return to_nt(o->close(
        [done, context] { run_callback("NDK_FN_CLOSE_COMPLETION", [&] { done(context); }); }));
}

NTSTATUS query_extension(NDK_OBJECT_HEADER* header, core::object_kind kind,
                         const char* function) noexcept {
    if (object_from_header(header, kind, function) == nullptr) {
        return STATUS_INVALID_PARAMETER;
    }
    return STATUS_NOT_SUPPORTED;
}

}  // namespace ndksim::api
