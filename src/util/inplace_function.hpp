// SPDX-License-Identifier: MIT
#pragma once
// A move-only callable with fixed inline storage. Scheduling an event or a completion must not
// allocate (STYLE.md habit 7); std::function may, and std::move_only_function is C++23.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace ndksim::util {

template <class Signature, std::size_t Capacity = 64>
class inplace_function;

template <class R, class... Args, std::size_t Capacity>
class inplace_function<R(Args...), Capacity> {
  public:
    inplace_function() noexcept = default;

    /// Stores f inline. A callable larger than Capacity is a compile error, never an allocation.
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, inplace_function> &&
             std::is_invocable_r_v<R, std::remove_cvref_t<F>&, Args...>)
        inplace_function(F&& f) {  // NOLINT(google-explicit-constructor): used like std::function
        construct(std::forward<F>(f));
    }

    /// Replaces the stored callable with f, built in place (no temporary function is moved).
    template <class F>
    void emplace(F&& f) {
        if constexpr (std::is_same_v<std::remove_cvref_t<F>, inplace_function>) {
            *this = std::move(f);
        } else {
            reset();
            construct(std::forward<F>(f));
        }
    }

    inplace_function(inplace_function&& other) noexcept { take(other); }

    inplace_function& operator=(inplace_function&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }

    inplace_function(const inplace_function&) = delete;
    inplace_function& operator=(const inplace_function&) = delete;

    ~inplace_function() { reset(); }

    /// Calls the stored callable; calling an empty function is a precondition violation.
    R operator()(Args... args) { return invoke_(storage_, std::forward<Args>(args)...); }

    explicit operator bool() const noexcept { return invoke_ != nullptr; }

    /// Destroys the stored callable, leaving the function empty.
    void reset() noexcept {
        if (manage_ != nullptr) {
            manage_(nullptr, storage_);
        }
        invoke_ = nullptr;
        manage_ = nullptr;
    }

  private:
    template <class F>
    void construct(F&& f) {
        using D = std::remove_cvref_t<F>;
        static_assert(sizeof(D) <= Capacity, "callable too large for inplace_function");
        static_assert(alignof(D) <= alignof(std::max_align_t), "callable over-aligned");
        static_assert(std::is_nothrow_move_constructible_v<D>,
                      "callable must move without throwing");
        ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
        invoke_ = [](void* self, Args&&... args) -> R {
            return (*static_cast<D*>(self))(std::forward<Args>(args)...);
        };
        manage_ = [](void* dst, void* src) noexcept {
            if (dst != nullptr) {
                ::new (dst) D(std::move(*static_cast<D*>(src)));
            }
            static_cast<D*>(src)->~D();
        };
    }

    void take(inplace_function& other) noexcept {
        if (other.manage_ != nullptr) {
            other.manage_(storage_, other.storage_);
            invoke_ = other.invoke_;
            manage_ = other.manage_;
            other.invoke_ = nullptr;
            other.manage_ = nullptr;
        }
    }

    alignas(std::max_align_t) std::byte storage_[Capacity];
    R (*invoke_)(void*, Args&&...) = nullptr;
    void (*manage_)(void*, void*) noexcept = nullptr;
};

}  // namespace ndksim::util
