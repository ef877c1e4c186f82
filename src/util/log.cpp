// SPDX-License-Identifier: MIT
#include "util/log.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace ndksim::log {
namespace {

std::atomic<sim_clock_fn> g_sim_clock{nullptr};

// The %* flag of the line pattern: "sim <seconds>.<nanoseconds>" of the engine the logging
// thread runs, as a capture stamps its frames (simulated time from the epoch, nanoseconds
// truncated), or "sim -" outside every engine.
class sim_time_flag final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg&, const std::tm&,
                spdlog::memory_buf_t& dest) override {
        std::uint64_t ps = 0;
        const sim_clock_fn clock = g_sim_clock.load(std::memory_order_acquire);
        if (clock == nullptr || !clock(ps)) {
            dest.append(std::string_view("sim -"));
            return;
        }
        const std::uint64_t ns = ps / 1000;
        fmt::format_to(std::back_inserter(dest), "sim {}.{:09}", ns / 1'000'000'000,
                       ns % 1'000'000'000);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<sim_time_flag>();
    }
};

// Sinks tests added (add_sink); every logger made gets them too.
std::vector<spdlog::sink_ptr> g_extra_sinks;

// The NDKSIM_LOG value last warned about as compiled out, so a reload with the same setting
// does not warn again; cleared by a setting the build can honour. Guarded by g_mutex.
std::string g_warned_level;

// NDKSIM_LOG asks for lines the compile-time floor removed: say so once, naming the option that
// keeps them, rather than print nothing and leave the user guessing.
void warn_if_compiled_out(spdlog::logger& logger, const std::string& requested,
                          spdlog::level::level_enum level) {
    constexpr auto floor = static_cast<spdlog::level::level_enum>(SPDLOG_ACTIVE_LEVEL);
    if (level >= floor) {
        g_warned_level.clear();
        return;
    }
    if (g_warned_level == requested) {
        return;
    }
    g_warned_level = requested;
    const auto floor_name = spdlog::level::to_string_view(floor);
    logger.warn(
        "NDKSIM_LOG={}: this build compiled out every log line below {}, so no {} line can "
        "appear; configure with -DNDKSIM_LOG_FLOOR={} to keep them",
        requested, std::string_view(floor_name.data(), floor_name.size()), requested, requested);
}

std::shared_ptr<spdlog::logger> make_logger() {
    std::vector<spdlog::sink_ptr> sinks;
    std::string file_error;
    const char* file = std::getenv("NDKSIM_LOG_FILE");
    if (file != nullptr && *file != '\0') {
        try {
            sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
        } catch (const spdlog::spdlog_ex& e) {
            file_error = e.what();
        }
    }
    if (sinks.empty()) {
        sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    }
    sinks.insert(sinks.end(), g_extra_sinks.begin(), g_extra_sinks.end());
    auto logger = std::make_shared<spdlog::logger>("ndksim", sinks.begin(), sinks.end());
    logger->set_formatter(make_formatter());
    if (!file_error.empty()) {
        logger->error("NDKSIM_LOG_FILE={}: {}; logging to stderr", file, file_error);
    }
    spdlog::level::level_enum level = spdlog::level::warn;
    if (const char* env = std::getenv("NDKSIM_LOG"); env != nullptr && *env != '\0') {
        level = spdlog::level::from_str(env);
        if (level == spdlog::level::off && std::string(env) != "off") {
            level = spdlog::level::warn;
            logger->warn(
                "NDKSIM_LOG={} is not a level (trace, debug, info, warn, error, "
                "critical, off); using warn",
                env);
        } else {
            warn_if_compiled_out(*logger, env, level);
        }
    }
    logger->set_level(level);
    logger->flush_on(spdlog::level::warn);
    return logger;
}

// Loggers are never destroyed while the process runs: a reload retires the old one instead, so
// a reference handed out by get() stays valid on every thread.
std::mutex g_mutex;
std::vector<std::shared_ptr<spdlog::logger>> g_loggers;
std::atomic<spdlog::logger*> g_current{nullptr};

void install(std::shared_ptr<spdlog::logger> logger) {
    g_current.store(logger.get(), std::memory_order_release);
    g_loggers.push_back(std::move(logger));
}

}  // namespace

spdlog::logger& get() noexcept {
    if (auto* current = g_current.load(std::memory_order_acquire)) {
        return *current;
    }
    std::lock_guard lock(g_mutex);
    if (g_current.load(std::memory_order_relaxed) == nullptr) {
        install(make_logger());
    }
    return *g_current.load(std::memory_order_relaxed);
}

void reload_from_environment() {
    std::lock_guard lock(g_mutex);
    install(make_logger());
}

void set_level(spdlog::level::level_enum level) {
    get().set_level(level);
}

void set_sim_clock(sim_clock_fn fn) noexcept {
    g_sim_clock.store(fn, std::memory_order_release);
}

std::unique_ptr<spdlog::formatter> make_formatter() {
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<sim_time_flag>('*');
    f->set_pattern("[%H:%M:%S.%f] [%*] [%^%l%$] [t%t] %v");
    return f;
}

void add_sink(spdlog::sink_ptr sink) {
    std::lock_guard lock(g_mutex);
    g_extra_sinks.push_back(std::move(sink));
    install(make_logger());
}

void remove_sink(const spdlog::sink_ptr& sink) {
    std::lock_guard lock(g_mutex);
    g_extra_sinks.erase(std::remove(g_extra_sinks.begin(), g_extra_sinks.end(), sink),
                        g_extra_sinks.end());
    install(make_logger());
}

}  // namespace ndksim::log
