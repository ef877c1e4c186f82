#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What synchronized time costs (docs/timing.md, "Cost and scale"), measured on this machine:
#
#  1. Scale: 2, 8 and 32 adapters across processes, as 1, 4 and 16 ndksim-perf client/server
#     pairs over the UDP wire running at once, each pair a client process and a server process
#     in synchronized time. For each size: whether every run stayed exact, the modelled figure
#     (it must not move with the number of processes), the host rate per pair beside the rate of
#     the same number of in-process deterministic runs at once (the baseline: the same model,
#     the same host load, no synchronization), and the sync records per message.
#  2. Lookahead: one pair with the link's propagation (the lookahead) at 65 ns (cx4-edr),
#     650 ns and 6.5 us: host rate and records per message. The modelled figures move with the
#     propagation, as they should; the host cost of synchronization falls with it.
#
# Figures only: nothing is asserted. Medians over --runs rounds.
#
#   bench/sync_scale.sh [--runs N] [--build DIR] [--iters N]
#
#   --runs N     rounds of each point (default 3)
#   --build DIR  Release tree to build and use (default build-rel)
#   --iters N    messages per run (default 2000)
#
# All traffic stays on 127.0.0.0/8; every process is bounded by a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
build=build-rel
iters=2000
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        *)
            echo "usage: $0 [--runs N] [--build DIR] [--iters N]" >&2
            exit 2
            ;;
    esac
done
for value in "$runs" "$iters"; do
    case "$value" in
        '' | *[!0-9]* | 0) echo "sync_scale.sh: a positive number expected, not '$value'" >&2; exit 2 ;;
    esac
done

source scripts/deps.sh
ndksim_install_deps python3

source bench/release_build.sh
ndksim_release_build "$build" ndksim-perf
perf="$build/sim/perf/ndksim-perf"

work=$(mktemp -d)
cleanup() {
    jobs -p | xargs -r kill 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# run_set NAME PAIRS ARGS...: PAIRS runs of ndksim-perf ARGS at once, each writing
# $work/NAME.<k>.json (results) and $work/NAME.<k>.stats.json (statistics).
run_set() {
    local name=$1 pairs=$2
    shift 2
    local k
    for k in $(seq 1 "$pairs"); do
        timeout 600 "$perf" "$@" --quiet --out_json "$work/$name.$k.json" \
            --stats-json "$work/$name.$k.stats.json" >/dev/null 2>"$work/$name.$k.err" &
    done
    wait
}

# The lookahead's profiles: cx4-edr with another propagation.
for ns in 65 650 6500; do
    sed "s/^propagation_ns = [0-9.]*/propagation_ns = $ns.0/" profiles/cx4-edr.toml \
        >"$work/prop$ns.toml"
done

echo "sync_scale: $runs round(s), $iters messages per run, $(nproc) cores" >&2
for round in $(seq 1 "$runs"); do
    for adapters in 2 8 32; do
        pairs=$((adapters / 2))
        for test in write_lat write_bw; do
            size=8
            [ "$test" = write_bw ] && size=65536
            common=("$test" -s "$size" -n "$iters" --poll block)
            run_set "sync.$adapters.$test.$round" "$pairs" "${common[@]}" \
                --time synchronized --role both --wire udp
            run_set "inproc.$adapters.$test.$round" "$pairs" "${common[@]}"
        done
    done
    for ns in 65 650 6500; do
        for test in write_lat write_bw; do
            size=8
            [ "$test" = write_bw ] && size=65536
            run_set "lookahead.$ns.$test.$round" 1 "$test" -s "$size" -n "$iters" --poll block \
                -d "$work/prop$ns.toml" --time synchronized --role both --wire udp
        done
    done
done

python3 - "$work" "$runs" "$iters" <<'EOF'
import json, os, statistics, sys

work, runs, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def load(name, k):
    base = os.path.join(work, f"{name}.{k}")
    try:
        with open(base + ".json") as f:
            result = json.load(f)["results"][0]
        with open(base + ".stats.json") as f:
            stats = json.load(f)
    except (OSError, ValueError, KeyError, IndexError):
        return None
    return result, stats

def point(prefix, pairs, field):
    """Per round: the modelled figure, host rate per pair, exactness, records per message."""
    modelled, rate, records, exact, failed = [], [], [], True, 0
    for r in range(1, runs + 1):
        rates = []
        for k in range(1, pairs + 1):
            got = load(f"{prefix}.{r}", k)
            if got is None:
                failed += 1
                continue
            result, stats = got
            modelled.append(result["modelled"][field])
            rates.append(result["host"]["msg_per_s"])
            sync = stats["adapters"][0].get("synchronization")
            if sync is not None:
                exact = exact and all(a["synchronization"]["exact"] for a in stats["adapters"])
                sent = sum(a["synchronization"]["sync_messages_sent"] for a in stats["adapters"])
                records.append(sent / result["messages"])
        if rates:
            rate.append(statistics.median(rates))
    def med(v):
        return statistics.median(v) if v else float("nan")
    return {"modelled": med(modelled), "spread": (max(modelled) - min(modelled)) if modelled else 0,
            "rate": med(rate), "records": med(records) if records else None, "exact": exact,
            "failed": failed}

fields = {"write_lat": ("t_typical_usec", "us"), "write_bw": ("bw_average_mb_sec", "MB/s")}
print("### Adapters across processes (ndksim-perf pairs over UDP at once)\n")
print("| test | adapters (processes) | exact | modelled | modelled spread | host msg/s per pair, "
      "synchronized | in-process, same load | ratio | sync records per message |")
print("|---|---|---|---|---|---|---|---|---|")
for test, (field, unit) in fields.items():
    for adapters in (2, 8, 32):
        s = point(f"sync.{adapters}.{test}", adapters // 2, field)
        b = point(f"inproc.{adapters}.{test}", adapters // 2, field)
        note = f" ({s['failed']} runs failed)" if s["failed"] else ""
        print(f"| {test} | {adapters} | {'yes' if s['exact'] else 'no'}{note} | "
              f"{s['modelled']:.3f} {unit} (in-process {b['modelled']:.3f}) | {s['spread']:.3f} | "
              f"{s['rate']:,.0f} | {b['rate']:,.0f} | {s['rate'] / b['rate']:.4f} | "
              f"{s['records']:.1f} |")
print("\n### Lookahead (one pair over UDP, cx4-edr with another propagation)\n")
print("| test | propagation | exact | modelled | host msg/s | sync records per message |")
print("|---|---|---|---|---|---|")
for test, (field, unit) in fields.items():
    for ns in (65, 650, 6500):
        s = point(f"lookahead.{ns}.{test}", 1, field)
        print(f"| {test} | {ns} ns | {'yes' if s['exact'] else 'no'} | {s['modelled']:.3f} {unit} | "
              f"{s['rate']:,.0f} | {s['records']:.1f} |")
print(f"\n{runs} round(s) of {iters} messages, medians; {os.cpu_count()} cores.")
EOF
