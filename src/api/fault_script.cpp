// SPDX-License-Identifier: MIT
#include "api/fault_script.hpp"

// toml++ header-only with the same settings as timing/profile.cpp.
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "api/ndk_functions.hpp"
#include "util/status_names.hpp"

namespace ndksim::api {
namespace {

template <class Action>
struct action_name {
    std::string_view name;
    Action value;
};

constexpr std::array k_call_actions{
    action_name<call_action>{"fail", call_action::fail},
    action_name<call_action>{"pend", call_action::pend},
    action_name<call_action>{"inline", call_action::inline_},
    action_name<call_action>{"delay", call_action::delay},
    action_name<call_action>{"kill_peer", call_action::kill_peer},
};

constexpr std::array k_completion_actions{
    action_name<completion_action>{"error", completion_action::error},
    action_name<completion_action>{"overrun_cq", completion_action::overrun_cq},
    action_name<completion_action>{"disconnect", completion_action::disconnect},
};

// Reads one table of the script, refusing keys it does not know: a misspelt key would
// otherwise silently leave its fault out.
class reader {
  public:
    reader(const toml::table& t, std::string where) : t_(t), where_(std::move(where)) {}

    bool keys_known(std::initializer_list<std::string_view> known) {
        for (const auto& [key, value] : t_) {
            if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
                return fail(fmt::format("unknown key '{}'", key.str()));
            }
        }
        return true;
    }

    bool number(std::string_view key, std::uint64_t& out, std::uint64_t max) {
        const toml::node* n = t_.get(key);
        if (n == nullptr) {
            return true;
        }
        const auto v = n->value<std::int64_t>();
        if (!v || *v < 0 || static_cast<std::uint64_t>(*v) > max) {
            return fail(fmt::format("'{}' must be an integer from 0 to {}", key, max));
        }
        out = static_cast<std::uint64_t>(*v);
        return true;
    }

    bool text(std::string_view key, std::string& out) {
        const toml::node* n = t_.get(key);
        if (n == nullptr) {
            return true;
        }
        const auto v = n->value<std::string>();
        if (!v) {
            return fail(fmt::format("'{}' must be a string", key));
        }
        out = *v;
        return true;
    }

    bool status_of(status& out) {
        std::string name;
        if (!text("status", name)) {
            return false;
        }
        if (name.empty()) {
            return true;
        }
        if (!status_from_name(name, out) || succeeded(out)) {
            return fail(fmt::format("'{}' is not a failure status ndksim knows", name));
        }
        return true;
    }

    template <class Action, std::size_t N>
    bool action(const std::array<action_name<Action>, N>& names, Action& out) {
        std::string name;
        if (!text("action", name)) {
            return false;
        }
        if (name.empty()) {
            return true;  // the section's default: fail, or error
        }
        for (const auto& a : names) {
            if (a.name == name) {
                out = a.value;
                return true;
            }
        }
        return fail(fmt::format("'{}' is not an action of this section", name));
    }

    bool fail(const std::string& why) {
        error_ = fmt::format("{}: {}", where_, why);
        return false;
    }

    const std::string& error() const noexcept { return error_; }

  private:
    const toml::table& t_;
    std::string where_;
    std::string error_;
};

std::string read_link(const toml::table& t, std::string_view origin, fault_script& out) {
    reader r(t, fmt::format("{} [link]", origin));
    std::uint64_t drop = 0, dup = 0, reorder = 0, corrupt = 0, delay_ns = 0, reorder_ns = 0;
    constexpr std::uint64_t ppm = 1'000'000;
    constexpr std::uint64_t max_ns = 1'000'000'000'000ULL;
    if (!r.keys_known({"drop_ppm", "duplicate_ppm", "reorder_ppm", "corrupt_ppm", "delay_ns",
                       "reorder_delay_ns"}) ||
        !r.number("drop_ppm", drop, ppm) || !r.number("duplicate_ppm", dup, ppm) ||
        !r.number("reorder_ppm", reorder, ppm) || !r.number("corrupt_ppm", corrupt, ppm) ||
        !r.number("delay_ns", delay_ns, max_ns) ||
        !r.number("reorder_delay_ns", reorder_ns, max_ns)) {
        return r.error();
    }
    out.has_link = true;
    out.link.drop_ppm = static_cast<ULONG>(drop);
    out.link.duplicate_ppm = static_cast<ULONG>(dup);
    out.link.reorder_ppm = static_cast<ULONG>(reorder);
    out.link.corrupt_ppm = static_cast<ULONG>(corrupt);
    out.link.delay_ps = delay_ns * 1000;
    out.link.reorder_delay_ps = reorder_ns * 1000;
    return {};
}

std::string read_call(const toml::table& t, std::string where, call_fault& f) {
    reader r(t, std::move(where));
    std::uint64_t share = 0;
    std::uint64_t delay_us = 0;
    if (!r.keys_known(
            {"function", "nth", "share_percent", "times", "action", "status", "delay_us"}) ||
        !r.text("function", f.function) || !r.number("nth", f.nth, ~0ULL >> 1) ||
        !r.number("share_percent", share, 100) || !r.number("times", f.times, ~0ULL >> 1) ||
        !r.action(k_call_actions, f.action) || !r.status_of(f.with) ||
        !r.number("delay_us", delay_us, 1'000'000'000)) {
        return r.error();
    }
    ndk_function known{};
    if (!function_named(f.function, known)) {
        r.fail(fmt::format("'{}' is not an NDK provider function", f.function));
        return r.error();
    }
    f.share_percent = static_cast<std::uint32_t>(share);
    if ((f.nth == 0) == (f.share_percent == 0)) {
        r.fail("give exactly one of nth and share_percent");
        return r.error();
    }
    f.delay = timing::microseconds(delay_us);
    return {};
}

std::string read_completion(const toml::table& t, std::string where, completion_fault& f) {
    reader r(t, std::move(where));
    if (!r.keys_known({"qp", "nth", "after_bytes", "action", "status"}) || !r.text("qp", f.qp) ||
        !r.number("nth", f.nth, ~0ULL >> 1) ||
        !r.number("after_bytes", f.after_bytes, ~0ULL >> 1) ||
        !r.action(k_completion_actions, f.action) || !r.status_of(f.with)) {
        return r.error();
    }
    if ((f.nth == 0) == (f.after_bytes == 0)) {
        r.fail("give exactly one of nth and after_bytes");
        return r.error();
    }
    return {};
}

// Reads every table of the array `key` with `read`.
template <class Fault, class Read>
std::string read_array(const toml::table& root, std::string_view key, std::string_view origin,
                       std::vector<Fault>& out, Read read) {
    const toml::node* n = root.get(key);
    if (n == nullptr) {
        return {};
    }
    const toml::array* list = n->as_array();
    if (list == nullptr) {
        return fmt::format("{}: '{}' must be an array of tables ([[{}]])", origin, key, key);
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const toml::table* t = list->get(i)->as_table();
        if (t == nullptr) {
            return fmt::format("{}: [[{}]] #{} is not a table", origin, key, i + 1);
        }
        Fault f;
        if (std::string e = read(*t, fmt::format("{} [[{}]] #{}", origin, key, i + 1), f);
            !e.empty()) {
            return e;
        }
        out.push_back(std::move(f));
    }
    return {};
}

}  // namespace

std::string parse_fault_script(std::string_view text, std::string_view origin, fault_script& out) {
    out = fault_script{};
    toml::table root;
    try {
        root = toml::parse(text, origin);
    } catch (const toml::parse_error& e) {
        return fmt::format("{}: {}", origin, e.description());
    }
    reader top(root, std::string(origin));
    if (!top.keys_known({"seed", "link", "call", "completion"}) ||
        !top.number("seed", out.seed, ~0ULL >> 1)) {
        return top.error();
    }
    if (const toml::node* link = root.get("link")) {
        if (link->as_table() == nullptr) {
            return fmt::format("{}: 'link' must be a table ([link])", origin);
        }
        if (std::string e = read_link(*link->as_table(), origin, out); !e.empty()) {
            return e;
        }
    }
    if (std::string e = read_array(root, "call", origin, out.calls, read_call); !e.empty()) {
        return e;
    }
    return read_array(root, "completion", origin, out.completions, read_completion);
}

std::string load_fault_file(const std::string& path, fault_script& out) {
    std::ifstream in(path);
    if (!in) {
        return fmt::format("{}: cannot be opened", path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_fault_script(text.str(), path, out);
}

}  // namespace ndksim::api
