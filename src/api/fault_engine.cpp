// SPDX-License-Identifier: MIT
#include "api/fault_engine.hpp"

#include <array>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/completion_policy.hpp"
#include "core/object.hpp"
#include "core/qp.hpp"
#include "util/log.hpp"

namespace ndksim::api {
namespace {

thread_local call_context t_call{};

struct op_name {
    core::op_type type;
    std::string_view name;
};

// Request types as the coverage record names them (NDK_OPERATION_TYPE, REFERENCE.md 2.2).
constexpr std::array k_op_names{
    op_name{core::op_type::receive, "Receive"},
    op_name{core::op_type::send, "Send"},
    op_name{core::op_type::fast_register, "FastRegister"},
    op_name{core::op_type::bind, "Bind"},
    op_name{core::op_type::invalidate, "Invalidate"},
    op_name{core::op_type::read, "Read"},
    op_name{core::op_type::write, "Write"},
    op_name{core::op_type::receive_and_invalidate, "ReceiveAndInvalidate"},
};

std::string_view name_of(core::op_type t) noexcept {
    for (const op_name& o : k_op_names) {
        if (o.type == t) {
            return o.name;
        }
    }
    return "Unknown";
}

constexpr std::array<std::string_view, 3> k_path_names{"returned", "callback", "completion"};

bool ends_with(std::string_view text, std::string_view suffix) noexcept {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

call_context current_call() noexcept {
    return t_call;
}

void set_current_call(call_context c) noexcept {
    t_call = c;
}

fault_engine::fault_engine(fault_script script, std::uint64_t adapter_seed,
                           std::function<void()> kill_peer)
    : script_(std::move(script)),
      rng_(script_.seed != 0 ? script_.seed : adapter_seed),
      kill_peer_(std::move(kill_peer)) {}

status fault_engine::before_call(const char* function, core::object& o) {
    bool kill = false;
    status verdict = status::success;
    {
        std::lock_guard lock(mutex_);
        for (call_fault& f : script_.calls) {
            if (f.function != function) {
                continue;
            }
            ++f.calls;
            bool hit = false;
            if (f.nth != 0) {
                hit = f.calls == f.nth;
            } else {
                // Drawn for every call of the function, hit or not, so the sequence of draws
                // (and so the faults) depends only on the seed and the call sequence.
                hit = rng_() % 100 < f.share_percent && (f.times == 0 || f.fired < f.times);
            }
            if (!hit) {
                continue;
            }
            ++f.fired;
            ++fired_;
            NDKSIM_INFO("{}: fault script: {} call {} of {}", o.ident(),
                        f.action == call_action::fail ? "fails" : "changes", f.calls, function);
            switch (f.action) {
                case call_action::fail:
                    verdict = f.with;
                    break;
                case call_action::pend:
                    core::completion_policy::force_next(true);
                    break;
                case call_action::inline_:
                    core::completion_policy::force_next(false);
                    break;
                case call_action::delay:
                    core::completion_policy::add_delay(f.delay);
                    break;
                case call_action::kill_peer:
                    kill = true;
                    break;
            }
            if (verdict != status::success) {
                record_locked(seen_as::returned, function, verdict, true);
                break;
            }
        }
    }
    if (kill && kill_peer_) {
        kill_peer_();
    }
    return verdict;
}

void fault_engine::after_call(const char* function, status s) {
    core::completion_policy::clear_overrides();
    std::lock_guard lock(mutex_);
    record_locked(seen_as::returned, function, s, false);
}

void fault_engine::on_callback(const char* function, status s) {
    std::lock_guard lock(mutex_);
    record_locked(seen_as::callback, function, s, false);
}

core::completion_verdict fault_engine::on_completion(core::qp& q, core::completion& c,
                                                     std::uint64_t bytes) {
    std::lock_guard lock(mutex_);
    core::completion_verdict verdict = core::completion_verdict::none;
    bool injected = false;
    const bool request =
        c.type != core::op_type::receive && c.type != core::op_type::receive_and_invalidate;
    for (completion_fault& f : script_.completions) {
        if (!request || f.fired || (!f.qp.empty() && !ends_with(q.ident(), "/" + f.qp))) {
            continue;
        }
        ++f.seen;
        f.bytes += bytes;
        const bool hit = f.nth != 0 ? f.seen == f.nth : f.bytes >= f.after_bytes;
        if (!hit) {
            continue;
        }
        f.fired = true;
        ++fired_;
        NDKSIM_INFO("{}: fault script: request completion {} ({} bytes so far)", q.ident(), f.seen,
                    f.bytes);
        switch (f.action) {
            case completion_action::error:
                c.status = static_cast<std::int32_t>(f.with);
                injected = true;
                verdict = core::completion_verdict::fail_qp;
                break;
            case completion_action::overrun_cq:
                verdict = core::completion_verdict::overrun_cq;
                break;
            case completion_action::disconnect:
                verdict = core::completion_verdict::fail_qp;
                break;
        }
        break;
    }
    record_locked(seen_as::completion, name_of(c.type), static_cast<status>(c.status), injected);
    return verdict;
}

std::uint64_t fault_engine::fired() const {
    std::lock_guard lock(mutex_);
    return fired_;
}

fault_engine::coverage_map fault_engine::coverage() const {
    std::lock_guard lock(mutex_);
    return coverage_;
}

void fault_engine::record_locked(seen_as path, std::string_view name, status s, bool injected) {
    coverage_cell& cell = coverage_[{path, std::string(name)}][static_cast<std::int32_t>(s)];
    ++cell.count;
    cell.injected += injected ? 1 : 0;
}

std::string coverage_json(const fault_engine::coverage_map& m) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    for (const auto& [key, statuses] : m) {
        nlohmann::ordered_json& entry =
            doc[std::string(k_path_names[static_cast<std::size_t>(key.first)])][key.second];
        for (const auto& [raw, cell] : statuses) {
            entry[std::string(status_name(raw))] = {{"count", cell.count},
                                                    {"injected", cell.injected}};
        }
    }
    return doc.dump(2);
}

std::string coverage_table(const fault_engine::coverage_map& m) {
    std::string out = fmt::format("{:<11} {:<32} {}\n", "seen as", "function or request",
                                  "statuses (count, injected in brackets)");
    for (const auto& [key, statuses] : m) {
        std::string cells;
        for (const auto& [raw, cell] : statuses) {
            cells +=
                fmt::format("{}{} x{}", cells.empty() ? "" : ", ", status_name(raw), cell.count);
            if (cell.injected != 0) {
                cells += fmt::format(" [{}]", cell.injected);
            }
        }
        out += fmt::format("{:<11} {:<32} {}\n", k_path_names[static_cast<std::size_t>(key.first)],
                           key.second, cells);
    }
    return out;
}

}  // namespace ndksim::api
