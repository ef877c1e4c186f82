#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RDMA write bandwidth between two processes over the UDP and TCP wires (ndksim-loopback
# --bench) at 64 KiB and 1 MiB, against a plain TCP stream between two processes on loopback
# (iperf3) measured in the same run; plus the 64-byte write rate and latency. Prints a table
# with each figure's ratio to the iperf3 baseline. Figures only: nothing here is asserted.
#
#   bench/wire/bench_wire.sh [build-dir]     (default build-rel, a Release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-rel}
if ! command -v iperf3 >/dev/null; then
    source scripts/deps.sh
    ndksim_install_deps iperf3
fi
if [ ! -d "$build" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNDKSIM_BUILD_TESTS=OFF \
        -DNDKSIM_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
        -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
fi
cmake --build "$build" --target ndksim-loopback >/dev/null
demo="$build/sim/demo/ndksim-loopback"

# iperf3 baseline: one TCP stream, 5 s, on loopback.
iport=$((5201 + RANDOM % 1000))
iperf3 -s -1 -p "$iport" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do
    iperf3 -c 127.0.0.1 -p "$iport" -t 5 -J >/tmp/bench_wire_iperf.$$ 2>/dev/null && break
done
wait "$server" || true
base=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["end"]["sum_received"]["bits_per_second"]/8e6)' /tmp/bench_wire_iperf.$$)
rm -f /tmp/bench_wire_iperf.$$

run() {  # wire size iterations -> the bench line's fields
    "$demo" --role both --bench --wire "$1" --size "$2" --iterations "$3" --port $((30000 + RANDOM % 20000)) \
        --timeout-ms 60000 2>/dev/null | grep 'bench:' | sed 's/.*bench: //'
}
field() { echo "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }

printf '%-34s %12s %12s %14s %10s\n' "case" "MB/s" "ops/s" "latency (us)" "vs iperf3"
printf '%-34s %12.1f %12s %14s %10s\n' "iperf3 TCP stream, loopback" "$base" "-" "-" "1.00"
status=0
for wire in udp tcp; do
    for spec in "65536 2000" "1048576 200" "64 20000"; do
        set -- $spec
        line=$(run "$wire" "$1" "$2") || true
        if [ -z "$line" ]; then
            printf '%-34s %s\n' "$wire write ${1} B" "FAILED (see ndksim-loopback --bench)"
            status=1
            continue
        fi
        mbps=$(field "$line" MB/s)
        printf '%-34s %12s %12s %14s %10.2f\n' "ndksim $wire RDMA write ${1} B" "$mbps" \
            "$(field "$line" ops/s)" "$(field "$line" lat_us_median)" \
            "$(python3 -c "print($mbps/$base)")"
    done
done
exit $status
