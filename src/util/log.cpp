#include "util/log.hpp"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace ndksim::log {
namespace {

std::shared_ptr<spdlog::logger> make_logger() {
    std::shared_ptr<spdlog::logger> logger;
    const char* file = std::getenv("NDKSIM_LOG_FILE");
    if (file != nullptr && *file != '\0') {
        try {
            auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file);
            logger = std::make_shared<spdlog::logger>("ndksim", std::move(sink));
        } catch (const spdlog::spdlog_ex& e) {
            auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
            logger = std::make_shared<spdlog::logger>("ndksim", std::move(sink));
            logger->error("NDKSIM_LOG_FILE={}: {}; logging to stderr", file, e.what());
        }
    } else {
        auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        logger = std::make_shared<spdlog::logger>("ndksim", std::move(sink));
    }
    logger->set_pattern("[%H:%M:%S.%f] [%^%l%$] [t%t] %v");
    spdlog::level::level_enum level = spdlog::level::warn;
    if (const char* env = std::getenv("NDKSIM_LOG"); env != nullptr && *env != '\0') {
        level = spdlog::level::from_str(env);
        if (level == spdlog::level::off && std::string(env) != "off") {
            level = spdlog::level::warn;
            logger->warn(
                "NDKSIM_LOG={} is not a level (trace, debug, info, warn, error, "
                "critical, off); using warn",
                env);
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

}  // namespace ndksim::log
