// The calibration report: runs the cx4-edr profile through the public API in deterministic
// mode and compares each modelled figure with its published counterpart
// (/work/shared/calibration/published-numbers.md, docs/timing.md). Prints one row per point;
// exits non-zero when any point is off by more than 10%. All figures are modelled time
// (ndksim_loop_now), so the report is the same on every machine.
//
//   calibration_report [profile]      (default cx4-edr)

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "model_pair.hpp"

namespace {

using ndksim::model::model_pair;
using end = model_pair::end;

constexpr double tolerance = 0.10;
constexpr double ps_per_us = 1e6;

struct point {
    const char* what;
    const char* unit;
    double published;
    std::optional<double> modelled;  // empty: the run failed
};

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

    const std::optional<double> lat32 = ping_pong_us(profile, 32, true);
    const std::optional<double> lat4k = ping_pong_us(profile, 4096, false);
    const std::optional<double> lat32k = ping_pong_us(profile, 32768, false);
    points.push_back({"RC SEND latency, 32 B inline (ping-pong / 2)", "us", 0.82, lat32});
    points.push_back({"RC SEND latency, 4 KiB (ping-pong / 2)", "us", 2.265, lat4k});
    std::optional<double> slope;
    if (lat4k && lat32k) {
        slope = (32768.0 - 4096.0) / ((*lat32k - *lat4k) * 1e3);  // bytes per ns = GB/s
    }
    points.push_back({"latency slope 4-32 KiB", "GB/s", 12.4, slope});

    std::optional<double> bw = stream_rate(profile, kind::write, 65536, 1, 256, 1);
    if (bw) {
        *bw *= 65536.0 * 8 / 1e9;
    }
    points.push_back({"ib_write_bw ceiling, 64 KiB, 1 QP", "Gb/s", 96.6, bw});

    const auto millions = [](std::optional<double> r) {
        return r ? std::optional<double>(*r / 1e6) : std::nullopt;
    };
    points.push_back({"1-QP WRITE rate, 8 B, a doorbell per post", "M/s", 2.64,
                      millions(stream_rate(profile, kind::write, 8, 1, 512, 1))});
    points.push_back({"1-QP READ rate, 8 B, 16 outstanding", "M/s", 2.55,
                      millions(stream_rate(profile, kind::read, 8, 1, 512, 1))});
    points.push_back({"1-QP WRITE rate, 8 B, doorbell per 128 posts", "M/s", 7.5,
                      millions(stream_rate(profile, kind::write, 8, 1, 512, 128))});
    points.push_back({"NIC WRITE rate, 8 B, 64 QPs", "M/s", 150.0,
                      millions(stream_rate(profile, kind::write, 8, 64, 64, 1))});

    std::printf("calibration of profile %s (modelled time, deterministic loop)\n\n", profile);
    std::printf("%-48s %12s %12s %8s\n", "point", "published", "modelled", "error");
    bool ok = true;
    for (const point& pt : points) {
        if (!pt.modelled) {
            std::printf("%-48s %9.3f %-3s %12s %8s\n", pt.what, pt.published, pt.unit, "FAILED",
                        "-");
            ok = false;
            continue;
        }
        const double error = (*pt.modelled - pt.published) / pt.published;
        const bool within = std::fabs(error) <= tolerance;
        ok = ok && within;
        std::printf("%-48s %9.3f %-3s %8.3f %-3s %+7.1f%%%s\n", pt.what, pt.published, pt.unit,
                    *pt.modelled, pt.unit, error * 100, within ? "" : "  <- off by more than 10%");
    }
    std::printf("\n%s\n", ok ? "all points within 10%" : "some points are off by more than 10%");
    return ok ? 0 : 1;
}
