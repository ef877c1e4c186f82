// SPDX-License-Identifier: MIT
#include "util/verifier.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "util/log.hpp"

namespace ndksim::verifier {
namespace {

std::atomic<std::uint64_t> g_total{0};

// Adapters alive per mode: the thread rules take the strongest mode present.
std::array<std::atomic<std::uint32_t>, 3> g_alive{};

std::mutex g_sink_mutex;
sink_fn g_sink = nullptr;
void* g_sink_context = nullptr;

consteval std::uint32_t default_enabled_mask() {
    std::uint32_t mask = 0;
    for (const rule_info& r : k_rules) {
        if (!r.opt_in && r.id != rule::none) {
            mask |= 1U << static_cast<unsigned>(r.id);
        }
    }
    return mask;
}
static_assert(k_rule_count <= 32, "the enabled set is one 32-bit mask");
std::atomic<std::uint32_t> g_enabled{default_enabled_mask()};

// The frames above the consumer's call: every frame of the object this code lives in, when
// that object is the shared library (a test linked with the modules has one object, and then
// only the report's own two frames are skipped).
std::string call_site() {
    std::array<void*, 128> frames{};
    const int n = ::backtrace(frames.data(), static_cast<int>(frames.size()));
    Dl_info self{};
    Dl_info main_program{};
    const bool known = ::dladdr(reinterpret_cast<void*>(&call_site), &self) != 0;
    const bool linked_in = known && ::dladdr(::dlsym(RTLD_DEFAULT, "main"), &main_program) != 0 &&
                           main_program.dli_fbase == self.dli_fbase;
    int first = 2;
    if (known && !linked_in) {
        while (first < n) {
            Dl_info at{};
            if (::dladdr(frames[static_cast<std::size_t>(first)], &at) == 0 ||
                at.dli_fbase != self.dli_fbase) {
                break;
            }
            ++first;
        }
    }
    if (first == n) {
        first = 2;  // raised with no consumer frame above the library (an engine thread's task)
    }
    const std::unique_ptr<char*, decltype(&std::free)> names(
        ::backtrace_symbols(frames.data() + first, n - first), &std::free);
    std::string out;
    for (int i = 0; i < n - first; ++i) {
        fmt::format_to(std::back_inserter(out), "    #{} {}\n", i,
                       names ? names.get()[i] : "(no symbols)");
    }
    return out;
}

std::string format_report(const rule_info& r, std::string_view object, std::string_view call,
                          status result, std::string_view detail, std::string_view site) {
    std::string text = fmt::format("ndksim verifier: rule {} ({}): {}\n  source: {}\n",
                                   static_cast<unsigned>(r.id), r.key, r.name, r.source);
    if (!object.empty()) {
        fmt::format_to(std::back_inserter(text), "  object: {}\n", object);
    }
    if (result == status::success) {
        fmt::format_to(std::back_inserter(text), "  call:   {} (the call goes on)\n", call);
    } else {
        fmt::format_to(std::back_inserter(text), "  call:   {} returned {}\n", call, result);
    }
    if (!detail.empty()) {
        fmt::format_to(std::back_inserter(text), "  detail: {}\n", detail);
    }
    fmt::format_to(std::back_inserter(text), "  at:\n{}", site);
    return text;
}

void deliver(mode m, const rule_info& r, std::string_view object, std::string_view call,
             status result, std::string_view detail) {
    const std::string site = call_site();
    const std::string text = format_report(r, object, call, result, detail, site);
    if (m == mode::abort) {
        // Written directly, as a bug check screen is: the logger may be in any state.
        std::fprintf(stderr, "%s(NDKSIM_VERIFIER=report logs it and goes on instead)\n",
                     text.c_str());
        std::fflush(stderr);
        std::abort();
    }
    g_total.fetch_add(1, std::memory_order_relaxed);
    NDKSIM_WARN("{}", text);
    std::lock_guard lock(g_sink_mutex);
    if (g_sink != nullptr) {
        const report rep{&r, object, call, result, detail, site, text};
        g_sink(rep, g_sink_context);
    }
}

}  // namespace

checker::checker() noexcept {
    g_alive[static_cast<std::size_t>(mode::off)].fetch_add(1, std::memory_order_relaxed);
}

checker::~checker() {
    g_alive[static_cast<std::size_t>(current())].fetch_sub(1, std::memory_order_relaxed);
}

void checker::set_mode(mode m) noexcept {
    const mode before = mode_.exchange(m, std::memory_order_relaxed);
    g_alive[static_cast<std::size_t>(before)].fetch_sub(1, std::memory_order_relaxed);
    g_alive[static_cast<std::size_t>(m)].fetch_add(1, std::memory_order_relaxed);
}

void checker::raise(rule r, std::string_view object, std::string_view call, status result,
                    std::string_view detail) const {
    const mode m = current();
    if (m == mode::off || !enabled(r)) {
        return;
    }
    if (m != mode::abort) {
        count_.fetch_add(1, std::memory_order_relaxed);
        by_rule_[static_cast<std::size_t>(r)].fetch_add(1, std::memory_order_relaxed);
    }
    deliver(m, info(r), object, call, result, detail);
}

serial_section::entry serial_section::enter() noexcept {
    // The address of a thread-local names the thread without a system call.
    static thread_local const char t_me = 0;
    const void* expected = nullptr;
    if (owner_.compare_exchange_strong(expected, &t_me, std::memory_order_acquire)) {
        return entry::owned;
    }
    return expected == &t_me ? entry::nested : entry::contended;
}

void section_guard::enter(const checker& v, serial_section& s, rule r, const char* object,
                          const char* call) noexcept {
    const serial_section::entry e = s.enter();
    if (e == serial_section::entry::owned) {
        owned_ = &s;
        return;
    }
    if (e == serial_section::entry::nested) {
        return;
    }
    try {
        v.raise(r, object, call, status::success,
                "another thread was inside a call on the same queue or CQ at that moment");
    } catch (const std::exception&) {
        // Only the report could not be formatted; the call goes on either way.
    }
}

mode from_environment() noexcept {
    const char* env = std::getenv("NDKSIM_VERIFIER");
    if (env == nullptr) {
        return mode::off;
    }
    const std::string_view v(env);
    if (v == "off") {
        return mode::off;
    }
    if (v == "report") {
        return mode::report;
    }
    if (v == "break") {
        return mode::abort;
    }
    NDKSIM_WARN("NDKSIM_VERIFIER='{}' is not off, report or break; the verifier stays off", v);
    return mode::off;
}

void set_sink(sink_fn sink, void* context) noexcept {
    std::lock_guard lock(g_sink_mutex);
    g_sink = sink;
    g_sink_context = context;
}

std::uint64_t total_count() noexcept {
    return g_total.load(std::memory_order_relaxed);
}

bool enabled(rule r) noexcept {
    return (g_enabled.load(std::memory_order_relaxed) >> static_cast<unsigned>(r) & 1U) != 0;
}

void set_enabled(rule r, bool on) noexcept {
    const std::uint32_t bit = 1U << static_cast<unsigned>(r);
    if (on) {
        g_enabled.fetch_or(bit, std::memory_order_relaxed);
    } else {
        g_enabled.fetch_and(~bit, std::memory_order_relaxed);
    }
}

mode thread_rules_mode() noexcept {
    if (g_alive[static_cast<std::size_t>(mode::abort)].load(std::memory_order_relaxed) != 0) {
        return mode::abort;
    }
    if (g_alive[static_cast<std::size_t>(mode::report)].load(std::memory_order_relaxed) != 0) {
        return mode::report;
    }
    return mode::off;
}

bool raise_thread_rule(rule r, std::string_view call, std::string_view detail) {
    const mode m = thread_rules_mode();
    if (m == mode::off) {
        return false;
    }
    if (enabled(r)) {
        deliver(m, info(r), "", call, status::success, detail);
    }
    return true;
}

std::string_view mode_name(mode m) noexcept {
    switch (m) {
        case mode::off:
            return "off";
        case mode::report:
            return "report";
        case mode::abort:
            return "break";
    }
    return "?";
}

}  // namespace ndksim::verifier
