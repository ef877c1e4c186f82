// SPDX-License-Identifier: MIT
// The calibration report: runs the cx4-edr profile through the public API in deterministic
// mode and compares each modelled figure with its published counterpart (bench/calibration/
// points.md lists every point with its source; docs/timing.md derives the figures). Prints one
// row per point with its role and error; exits non-zero when a point the profile was fitted to
// is off by more than its tolerance (3 % for the original points, 5 % for those added since)
// or a held-out point by more than 5 %. All figures are modelled time (ndksim_loop_now), so the
// report is the same on every machine.
//
//   calibration_report [profile]      (default cx4-edr)

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "model_pair.hpp"

namespace {

using ndksim::model::model_pair;
using end = model_pair::end;

constexpr double ps_per_us = 1e6;

// What a point is for (bench/calibration/points.md, "Roles").
enum class role {
    fit,       // the original calibration: within 3 %
    fit_new,   // fitted since, on the points between the inline limit and 4 KiB: within 5 %
    held_out,  // not used to choose a parameter: within 5 %
};

struct point {
    const char* what;
    const char* unit;
    double published;
    role r;
    std::optional<double> modelled;  // empty: the run failed
};

const char* role_name(role r) {
    switch (r) {
        case role::fit:
            return "fit";
        case role::fit_new:
            return "fit (new)";
        case role::held_out:
            return "held out";
    }
    return "";
}

double tolerance_of(role r) {
    return r == role::fit ? 0.03 : 0.05;
}

// A profile file that is the default profile (cx4-edr) with another path MTU, for the points
// measured at other MTUs; written to the temporary directory. Empty when it cannot be written.
std::string profile_with_mtu(unsigned mtu) {
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::temp_directory_path(ec) /
                                       ("ndksim-calibration-mtu" + std::to_string(mtu) + ".toml");
    if (ec) {
        return {};
    }
    std::ofstream out(path);
    out << "[profile]\nname = \"cx4-edr-mtu" << mtu << "\"\n[wire]\nmtu_bytes = " << mtu << "\n";
    return out ? path.string() : std::string();
}

// Half the round trip of a SEND ping-pong of `bytes` (silent sends: only receives complete).
std::optional<double> ping_pong_us(const char* profile, ULONG bytes, bool inline_data) {
    model_pair::options o;
    o.profile = profile;
    model_pair p(o);
    if (!p.ok()) {
        std::fprintf(stderr, "setup: %s\n", p.error().c_str());
        return std::nullopt;
    }
    // The first round trips warm the translation caches; only the later ones are timed.
    constexpr unsigned warm_up = 5;
    constexpr unsigned iterations = 50;
    for (unsigned i = 0; i < warm_up + iterations; ++i) {
        p.receive(end::a, 0, bytes);
        p.receive(end::b, 0, bytes);
    }
    const ULONG flags = NDK_OP_FLAG_SILENT_SUCCESS | (inline_data ? NDK_OP_FLAG_INLINE : 0);
    ULONG64 start = p.now();
    for (unsigned i = 0; i < warm_up + iterations; ++i) {
        if (i == warm_up) {
            start = p.now();
        }
        if (p.send(end::a, 0, bytes, flags) != STATUS_SUCCESS || p.run_until(end::b, 1) == 0 ||
            p.send(end::b, 0, bytes, flags) != STATUS_SUCCESS || p.run_until(end::a, 1) == 0) {
            return std::nullopt;
        }
    }
    const double round_trip = static_cast<double>(p.now() - start) / iterations;
    return p.failed() == 0 ? std::optional<double>(round_trip / 2 / ps_per_us) : std::nullopt;
}

enum class kind { write, read };

// Completions per second of a stream: `per_qp` requests of `bytes` on each of `qps` QPs,
// a doorbell every `batch` posts.
std::optional<double> stream_rate(const char* profile, kind k, ULONG bytes, unsigned qps,
                                  unsigned per_qp, unsigned batch) {
    model_pair::options o;
    o.profile = profile;
    o.qps = qps;
    o.queue_depth = per_qp;
    model_pair p(o);
    if (!p.ok()) {
        std::fprintf(stderr, "setup: %s\n", p.error().c_str());
        return std::nullopt;
    }
    // A warm-up request per QP first loads the QP contexts and translation entries, as the
    // warm-up iterations of a benchmark do: 64 cold QP context misses at the responder would
    // otherwise pile up the start of the 64-QP stream.
    for (unsigned q = 0; q < qps; ++q) {
        if ((k == kind::write ? p.write(q, bytes, 0) : p.read(q, bytes, 0)) != STATUS_SUCCESS) {
            return std::nullopt;
        }
    }
    if (p.run_until(end::a, qps) == 0) {
        return std::nullopt;
    }
    p.settle();
    for (unsigned i = 0; i < per_qp; ++i) {
        for (unsigned q = 0; q < qps; ++q) {
            const ULONG flags = (i + 1) % batch == 0 || i + 1 == per_qp ? 0 : NDK_OP_FLAG_DEFER;
            const NTSTATUS st =
                k == kind::write ? p.write(q, bytes, flags) : p.read(q, bytes, flags);
            if (st != STATUS_SUCCESS) {
                std::fprintf(stderr, "post: %s\n", ndksim_status_name(st));
                return std::nullopt;
            }
        }
    }
    std::vector<ULONG64> times;
    const unsigned total = qps * per_qp;
    if (!p.record(end::a, total, times) || p.failed() != 0) {
        return std::nullopt;
    }
    // The steady state: the second half (the start pays cold translation caches, whose
    // penalty lets data pile up ahead of the link, and the first round trips).
    const unsigned from = total / 2;
    return static_cast<double>(total - 1 - from) * 1e12 /
           static_cast<double>(times.back() - times[from]);
}

}  // namespace

int main(int argc, char** argv) {
    const char* profile = argc > 1 ? argv[1] : "cx4-edr";
    std::vector<point> points;
    const auto us = [&](const char* what, double published, role r, ULONG bytes, bool inline_data,
                        const char* on = nullptr) {
        points.push_back({what, "us", published, r,
                          ping_pong_us(on != nullptr ? on : profile, bytes, inline_data)});
        return points.back().modelled;
    };

    // The rows of bench/calibration/points.md, in its order.
    us("RC SEND latency, 32 B inline (ping-pong / 2)", 0.82, role::fit, 32, true);
    const std::optional<double> lat4k =
        us("RC SEND latency, 4 KiB (ping-pong / 2)", 2.265, role::fit, 4096, false);
    const std::optional<double> lat32k = ping_pong_us(profile, 32768, false);
    std::optional<double> slope;
    if (lat4k && lat32k) {
        slope = (32768.0 - 4096.0) / ((*lat32k - *lat4k) * 1e3);  // bytes per ns = GB/s
    }
    points.push_back({"latency slope 4-32 KiB", "GB/s", 12.4, role::fit, slope});

    std::optional<double> bw = stream_rate(profile, kind::write, 65536, 1, 256, 1);
    if (bw) {
        *bw *= 65536.0 * 8 / 1e9;
    }
    points.push_back({"ib_write_bw ceiling, 64 KiB, 1 QP", "Gb/s", 96.6, role::fit, bw});

    const auto millions = [](std::optional<double> r) {
        return r ? std::optional<double>(*r / 1e6) : std::nullopt;
    };
    points.push_back({"1-QP WRITE rate, 8 B, a doorbell per post", "M/s", 2.64, role::fit,
                      millions(stream_rate(profile, kind::write, 8, 1, 512, 1))});
    points.push_back({"1-QP READ rate, 8 B, 16 outstanding", "M/s", 2.55, role::fit,
                      millions(stream_rate(profile, kind::read, 8, 1, 512, 1))});
    points.push_back({"1-QP WRITE rate, 8 B, doorbell per 128 posts", "M/s", 7.5, role::fit,
                      millions(stream_rate(profile, kind::write, 8, 1, 512, 128))});
    points.push_back({"NIC WRITE rate, 8 B, 64 QPs", "M/s", 150.0, role::fit,
                      millions(stream_rate(profile, kind::write, 8, 64, 64, 1))});

    us("RC SEND latency, 1 KiB (ping-pong / 2)", 1.61, role::fit_new, 1024, false);
    points.push_back(
        {"RC SEND latency, 32 KiB (ping-pong / 2)", "us", 4.57, role::held_out, lat32k});

    // Other path MTUs: the same profile with wire.mtu_bytes changed.
    const std::string mtu256 = profile_with_mtu(256);
    const std::string mtu512 = profile_with_mtu(512);
    const std::string mtu1024 = profile_with_mtu(1024);
    const std::string mtu2048 = profile_with_mtu(2048);
    us("RC SEND latency, 1 KiB, MTU 256", 1.58, role::fit_new, 1024, false, mtu256.c_str());
    us("RC SEND latency, 1 KiB, MTU 1024", 1.52, role::fit_new, 1024, false, mtu1024.c_str());
    us("RC SEND latency, 4 KiB, MTU 256", 2.26, role::fit_new, 4096, false, mtu256.c_str());
    us("RC SEND latency, 4 KiB, MTU 1024", 2.25, role::fit_new, 4096, false, mtu1024.c_str());
    us("RC SEND latency, 4 KiB, MTU 2048", 2.27, role::fit_new, 4096, false, mtu2048.c_str());
    us("RC SEND latency, 1 KiB, MTU 512", 1.58, role::held_out, 1024, false, mtu512.c_str());
    us("RC SEND latency, 4 KiB, MTU 512", 2.25, role::held_out, 4096, false, mtu512.c_str());
    us("RC SEND latency, 1 KiB, MTU 2048", 1.60, role::held_out, 1024, false, mtu2048.c_str());
    us("RC SEND latency, 32 KiB, MTU 2048", 4.58, role::held_out, 32768, false, mtu2048.c_str());
    for (const std::string& file : {mtu256, mtu512, mtu1024, mtu2048}) {
        std::error_code ec;
        std::filesystem::remove(file, ec);
    }

    std::printf("calibration of profile %s (modelled time, deterministic loop)\n", profile);
    std::printf(
        "points and sources: bench/calibration/points.md; the MTU rows run the default "
        "profile (cx4-edr) at that path MTU\n\n");
    std::printf("%-48s %-10s %13s %13s %8s\n", "point", "role", "published", "modelled", "error");
    bool ok = true;
    for (const point& pt : points) {
        const double tolerance = tolerance_of(pt.r);
        if (!pt.modelled) {
            std::printf("%-48s %-10s %8.3f %-4s %12s %8s\n", pt.what, role_name(pt.r), pt.published,
                        pt.unit, "FAILED", "-");
            ok = false;
            continue;
        }
        const double error = (*pt.modelled - pt.published) / pt.published;
        const bool within = std::fabs(error) <= tolerance;
        ok = ok && within;
        std::printf("%-48s %-10s %8.3f %-4s %8.3f %-4s %+7.1f%%%s\n", pt.what, role_name(pt.r),
                    pt.published, pt.unit, *pt.modelled, pt.unit, error * 100,
                    within ? "" : "  <- off by more than its tolerance");
    }
    std::printf("\n%s\n", ok ? "every point within its tolerance (fit 3 %, fit (new) and held out "
                               "5 %)"
                             : "some points are off by more than their tolerance");
    return ok ? 0 : 1;
}
