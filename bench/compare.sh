#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every host-speed figure of the simulator beside a baseline measured in the same run, on the
# same machine: in-process RDMA writes against a memcpy and a single-producer single-consumer
# ring handoff (bench_inproc), and two-process RDMA writes over the UDP and TCP wires against
# iperf3, ucx_perftest, sockperf and fi_pingpong on loopback. Each figure and its baseline run
# back to back, the whole set --runs times (interleaved, so a change in the host's load touches
# both sides of a ratio alike); the table gives medians. A second table sets the two-process
# rows beside their floor: the same frames sent, checked and placed on loopback with nothing
# else done (bench_roce_floor), which no implementation of the wire can beat on this host. A
# third sets the default time mode (two threaded adapters in one process, as a consumer's
# tests run) beside the same baselines; its rows have no goal of their own.
# Figures only: nothing is asserted.
#
#   bench/compare.sh [--runs N] [--build DIR] [--quick]
#
#   --runs N     rounds of the whole set (default 3)
#   --build DIR  Release tree to build and use (default build-rel)
#   --quick      shorter runs (about a third of the time), for trying the script out
#
# All traffic stays on 127.0.0.0/8; every server is bounded by a timeout and ends by its own
# one-test mode or is killed once its client is done, so nothing outlives the script.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
build="build-rel"
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        *)
            echo "usage: $0 [--runs N] [--build DIR] [--quick]" >&2
            exit 2
            ;;
    esac
done
case "$runs" in
    '' | *[!0-9]* | 0) echo "compare.sh: --runs takes a positive number, not '$runs'" >&2; exit 2 ;;
esac

source scripts/deps.sh
ndksim_install_deps iperf3 sockperf ucx-utils libfabric-bin python3

source bench/release_build.sh
ndksim_release_build "$build" bench_inproc ndksim-perf bench_roce_floor
inproc="$build/bench/engine/bench_inproc"
perf="$build/sim/perf/ndksim-perf"
floor="$build/bench/wire/bench_roce_floor"

work=$(mktemp -d)
cleanup() {
    # Servers end by themselves (one test each, under a timeout); this only catches an interrupt.
    jobs -p | xargs -r kill 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Scale of each measurement (quick mode: for trying the script, not for figures).
if [ "$quick" -eq 1 ]; then
    secs=1 min_time=0.3 bw_n=100 rate_n=30000 lat_n=3000
else
    secs=3 min_time=1 bw_n=400 rate_n=200000 lat_n=20000
fi
limit=$((secs * 20 + 60))  # wall seconds any one command may take
bounded() { timeout --kill-after=5 "$limit" "$@"; }
# Starts a baseline's server under the same bound, in the background of this shell, and sets
# `server` to timeout's own PID: killing that stops the server too (timeout passes the signal
# on). A backgrounded `bounded` left the PID of a subshell, whose kill let the server live
# until its bound.
start_server() {
    timeout --kill-after=5 "$limit" "$@" >/dev/null 2>&1 &
    server=$!
}
free_port() {  # a port the kernel says is free now (RANDOM would repeat in each subshell)
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
free_port_pair() {  # a port P with P and P+1 free now (bench_roce_floor's sides A and B)
    python3 -c '
import socket
for _ in range(100):
    held = []
    try:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        held.append(s)
        p = s.getsockname()[1]
        if p >= 65535:
            continue
        for port, kind in ((p, socket.SOCK_DGRAM), (p + 1, socket.SOCK_STREAM),
                           (p + 1, socket.SOCK_DGRAM)):
            t = socket.socket(socket.AF_INET, kind)
            held.append(t)
            t.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for t in held:
            t.close()
    print(p)
    break
'
}
json_get() {  # file python-expression-on-d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# The perf tool's latency and message-rate runs busy-poll where it can, as sockperf,
# fi_pingpong and ucx_perftest do. Latency: fi_pingpong's thread drives its transport's
# progress itself, as --poll consumer does. Rate: with a window of writes in flight, a spinning
# engine thread beside the tool's works in parallel with it.
poll=()
rate_poll=()
if "$perf" --help 2>/dev/null | grep -q -- 'spin-then-block|consumer'; then
    poll=(--poll consumer)
    rate_poll=(--poll spin)
elif "$perf" --help 2>/dev/null | grep -q -- '--poll'; then
    poll=(--poll spin)
    rate_poll=(--poll spin)
fi

# ---- in-process (bench_inproc: Google Benchmark, CPU time of the calling thread) ----------
inproc_run() {  # filter -> json file
    bounded "$inproc" --benchmark_filter="$1" --benchmark_min_time="$min_time" \
        --benchmark_format=json >"$work/inproc.json" 2>/dev/null
}
bench_field() {  # name field
    json_get "$work/inproc.json" "next(b['$2'] for b in d['benchmarks'] if b['name'].startswith('$1'))"
}
m_inproc_rate() { inproc_run 'BM_InprocWrite/64$' && bench_field BM_InprocWrite/64 items_per_second; }
m_spsc() {  # the faster of the ring's two pinned directions (bench_inproc.cpp, two_cpus)
    inproc_run 'BM_SpscHandoff' &&
        json_get "$work/inproc.json" \
            "max(b['items_per_second'] for b in d['benchmarks'] if b['name'].startswith('BM_SpscHandoff'))"
}
m_inproc_bw() {  # GB/s, and the real-time factor of the same run into $work/rtf
    inproc_run 'BM_InprocWrite/1048576$'
    bench_field BM_InprocWrite/1048576 rtf >"$work/rtf"
    python3 -c "print($(bench_field BM_InprocWrite/1048576 bytes_per_second) / 1e9)"
}
m_memcpy() {
    inproc_run 'BM_Memcpy/1048576$'
    python3 -c "print($(bench_field BM_Memcpy/1048576 bytes_per_second) / 1e9)"
}

# ---- two processes: ndksim-perf --role both (host wall time of the measured run) ---------
perf_run() {  # wire mode size iterations [extra...] -> results json in $work/perf.json
    local wire=$1 mode=$2 size=$3 n=$4
    shift 4
    bounded "$perf" --role both --wire "$wire" --test write --mode "$mode" --sizes "$size" \
        -n "$n" --port "$(free_port)" --json "$work/perf.json" --quiet "$@" >/dev/null 2>&1
}
m_wire_bw() {  # wire -> MB/s, 16 writes outstanding (the figure's definition)
    # The JSON's mb_per_sec counts MiB (perftest's MB); iperf3 and the floor count 10^6 bytes.
    perf_run "$1" bw 1M "$bw_n" --outstanding 16 &&
        json_get "$work/perf.json" "d['results'][0]['host']['mb_per_sec'] * 1.048576"
}
m_wire_rate() {  # wire -> writes/s; polling, as ucx_perftest's thread does
    perf_run "$1" bw 64 "$rate_n" "${rate_poll[@]}" && json_get "$work/perf.json" "d['results'][0]['host']['msg_per_s']"
}
m_wire_lat() {  # wire -> one-way host latency in us (half a ping-pong round trip)
    perf_run "$1" lat 8 "$lat_n" "${poll[@]}" &&
        json_get "$work/perf.json" \
            "d['results'][0]['host']['wall_s'] / d['results'][0]['messages'] / 2 * 1e6"
}

# ---- the default time mode: two threaded adapters in one process, ndksim-perf --threaded ----
# Each engine on its own thread, as a consumer's tests run by default; the tool's own poll
# policies (consumer for latency, spin-then-block for bandwidth): spinning threads outnumber
# two cores here.
threaded_run() {  # mode size iterations -> results json in $work/perf.json
    bounded "$perf" --threaded --test write --mode "$1" --sizes "$2" -n "$3" \
        --json "$work/perf.json" --quiet >/dev/null 2>&1
}
m_threaded_bw() {  # GB/s (10^9 bytes), 1 MiB writes, the tool's 128 outstanding
    threaded_run bw 1M "$bw_n" &&
        json_get "$work/perf.json" "d['results'][0]['host']['mb_per_sec'] * 1.048576 / 1000"
}
m_threaded_rate() {  # 64 B writes/s
    threaded_run bw 64 "$rate_n" && json_get "$work/perf.json" "d['results'][0]['host']['msg_per_s']"
}
m_threaded_lat() {  # one-way host latency in us (half a ping-pong round trip)
    threaded_run lat 8 "$lat_n" &&
        json_get "$work/perf.json" \
            "d['results'][0]['host']['wall_s'] / d['results'][0]['messages'] / 2 * 1e6"
}

# ---- the floor: the same datagrams without the simulator (bench/wire/roce_floor.cpp) -------
# The floor runs ten (rate) and four (bw) times as many writes as ndksim's rows: at its speed
# the same count would take tens of milliseconds, where one preemption moves the figure.
m_floor_rate() {  # 64 B writes/s, the perf tool's default window of 128, UDP GSO/GRO
    bounded "$floor" rate -p "$(free_port_pair)" -n "$((rate_n * 10))" -s 64 -w 128
}
m_floor_bw() {  # wire -> MB/s, 1 MiB writes, 16 outstanding (as the 1 MiB rows)
    bounded "$floor" bw --wire "$1" -p "$(free_port_pair)" -n "$((bw_n * 4))" -w 16
}
m_floor_lat() {  # 8 B writes, ping-pong; one way, us
    bounded "$floor" lat -p "$(free_port_pair)" -n "$lat_n" -s 8
}

# ---- baselines on loopback --------------------------------------------------------------
m_iperf3() {  # one TCP stream, MB/s
    local p
    p=$(free_port)
    # A server that stays up (killed below): a one-off server (-1) would end at the first
    # failed attempt, and a client that starts before it listens fails, so the loop retries.
    local server
    start_server iperf3 -s -B 127.0.0.1 -p "$p"
    local v=""
    for _ in $(seq 50); do
        # A test that failed part-way still exits 0 with an "error" and no sum in its JSON.
        if bounded iperf3 -c 127.0.0.1 -p "$p" -t "$secs" -J >"$work/iperf.json" 2>/dev/null &&
            v=$(json_get "$work/iperf.json" \
                "d['end']['sum_received']['bits_per_second'] / 8e6" 2>/dev/null); then
            break
        fi
        v=""
        sleep 0.1 # the server is starting: poll its port
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    [ -n "$v" ] && echo "$v"
}
ucx_run() {  # test size iterations -> the client's "Final:" line
    local p
    p=$(free_port)
    local server
    start_server env UCX_TLS=tcp ucx_perftest -p "$p"
    local line=""
    for _ in $(seq 50); do
        line=$(UCX_TLS=tcp bounded ucx_perftest 127.0.0.1 -p "$p" -t "$1" -s "$2" -n "$3" 2>/dev/null |
            grep '^Final:' || true)
        [ -n "$line" ] && break
        sleep 0.1
    done
    wait "$server" || true
    echo "$line"
}
# Final: iterations median average overall MB/s-avg MB/s-overall msg/s-avg msg/s-overall
m_ucx_rate() { ucx_run ucp_put_bw 8 "$rate_n" | awk '{ print $NF }'; }
m_ucx_lat() { ucx_run ucp_put_lat 8 "$lat_n" | awk '{ print $3 }'; }
m_sockperf() {  # TCP ping-pong, 64 B, busy-polling both sides (epoll timeout 0); one way, us
    local p
    p=$(free_port)
    local server
    start_server sockperf sr --tcp -i 127.0.0.1 -p "$p" --timeout 0
    local out=""
    for _ in $(seq 50); do
        out=$(bounded sockperf pp --tcp -i 127.0.0.1 -p "$p" -m 64 -t "$secs" --timeout 0 2>&1 |
            grep 'percentile 50.000' || true)
        [ -n "$out" ] && break
        sleep 0.1
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    echo "$out" | awk '{ print $NF }'
}
m_fi_pingpong() {  # libfabric tcp provider, 64 B, msg endpoints; one way, us
    local p
    p=$(free_port)
    local server
    start_server fi_pingpong -p tcp -e msg -B "$p" -I "$lat_n" -S 64
    local out=""
    for _ in $(seq 50); do
        out=$(bounded fi_pingpong -p tcp -e msg -P "$p" -I "$lat_n" -S 64 127.0.0.1 2>/dev/null |
            awk '$1 == 64 { print $7 }' || true)
        [ -n "$out" ] && break
        sleep 0.1
    done
    wait "$server" || true
    echo "$out"
}

# ---- the rounds ---------------------------------------------------------------------------
# Each row: key, measure command, baseline key, baseline command.
declare -A values
values[one]="1 "  # the real-time factor's baseline: modelled time passing as fast as host time
record() {  # key command...
    local key=$1
    shift
    local v
    v=$("$@" 2>/dev/null | tail -n 1) || v=""
    [ -n "$v" ] || v=nan
    values[$key]+="$v "
}
for round in $(seq "$runs"); do
    echo "round $round of $runs ..." >&2
    record inproc_rate m_inproc_rate
    record spsc m_spsc
    record inproc_bw m_inproc_bw
    record rtf cat "$work/rtf"
    record memcpy m_memcpy
    record udp_bw m_wire_bw udp
    record iperf3 m_iperf3
    record tcp_bw m_wire_bw tcp
    record floor_udp_bw m_floor_bw udp
    record floor_tcp_bw m_floor_bw tcp
    record udp_rate m_wire_rate udp
    record ucx_rate m_ucx_rate
    record floor_rate m_floor_rate
    record udp_lat m_wire_lat udp
    record sockperf m_sockperf
    record fi_pingpong m_fi_pingpong
    record ucx_lat m_ucx_lat
    record floor_lat m_floor_lat
    record threaded_bw m_threaded_bw
    record threaded_rate m_threaded_rate
    record threaded_lat m_threaded_lat
done

median() {  # key -> median of the recorded values (nan when any run failed)
    python3 - "${values[$1]}" <<'EOF'
import math, statistics, sys
v = [float(x) for x in sys.argv[1].split()]
print("nan" if not v or any(math.isnan(x) for x in v) else statistics.median(v))
EOF
}
best() {  # key -> the highest recorded value (nan when any run failed)
    python3 - "${values[$1]}" <<'EOF'
import math, sys
v = [float(x) for x in sys.argv[1].split()]
print("nan" if not v or any(math.isnan(x) for x in v) else max(v))
EOF
}

row() {  # figure ndksim-key unit baseline-label baseline-key scale goal [baseline-statistic]
    local a b
    a=$(median "$2")
    b=$("${8:-median}" "$5")
    python3 - "$1" "$a" "$3" "$4" "$b" "$6" "$7" <<'EOF'
import math, sys
fig, a, unit, blabel, b, scale, goal = sys.argv[1:]
a, b, scale = float(a), float(b), float(scale)
ratio = float("nan") if math.isnan(a) or math.isnan(b) or b == 0 else a / b
def show(x):
    if math.isnan(x):
        return "failed"
    x *= scale
    for div, suffix in ((1e6, " M"), (1e3, " k")):
        if abs(x) >= div * 10:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"
print(f"| {fig} | {show(a)} {unit} | {blabel} {show(b)} {unit} | {'-' if math.isnan(ratio) else f'{ratio:.3f}'} | {goal} |")
EOF
}

echo
echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
     "kernel $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Medians of $runs interleaved rounds (the SPSC baseline: its best round, as its two threads"\
     "share the host's cores with its neighbours); in-process rates are per CPU second of the"\
     "benchmark thread."
echo
echo "| figure | ndksim | baseline (same run) | ratio | goal |"
echo "|---|---|---|---|---|"
row "in-process 64 B RDMA writes/s" inproc_rate "/s" "SPSC ring handoff (best round)" spsc 1 ">= 0.10" best
row "in-process 1 MiB write bandwidth" inproc_bw "GB/s" "memcpy 1 MiB" memcpy 1 ">= 0.50"
row "real-time factor at 1 MiB (modelled / host time)" rtf "" "real time" one 1 ">= 1.0"
row "two-process UDP wire, 1 MiB writes" udp_bw "MB/s" "iperf3 one TCP stream" iperf3 1 ">= 0.6"
row "two-process TCP wire, 1 MiB writes" tcp_bw "MB/s" "iperf3 one TCP stream" iperf3 1 ">= 0.9"
row "two-process 64 B writes/s, UDP" udp_rate "/s" "ucx_perftest tcp put 8 B rate" ucx_rate 1 ">= 10"
row "two-process 8 B write latency, one way" udp_lat "us" "sockperf TCP busy-poll 64 B" sockperf 1 "<= 1.5"
row "  (same)" udp_lat "us" "fi_pingpong tcp 64 B" fi_pingpong 1 "< 1"
row "  (same)" udp_lat "us" "ucx_perftest tcp put 8 B" ucx_lat 1 "< 1"
echo
echo "The floor: the same frames on loopback without the simulator (bench_roce_floor):"
echo
echo "| figure | ndksim | floor (same run) | ratio |"
echo "|---|---|---|---|"
row "two-process UDP wire, 1 MiB writes" udp_bw "MB/s" "frames checked and placed, 16 outstanding" floor_udp_bw 1 "" | sed 's/ | *|$/ |/'
row "two-process TCP wire, 1 MiB writes" tcp_bw "MB/s" "records checked and placed, 16 outstanding" floor_tcp_bw 1 "" | sed 's/ | *|$/ |/'
row "two-process 64 B writes/s, UDP" udp_rate "/s" "64 B write datagrams and ACKs, window 128" floor_rate 1 "" | sed 's/ | *|$/ |/'
row "two-process 8 B write latency, one way" udp_lat "us" "request and ACK datagrams, ping-pong" floor_lat 1 "" | sed 's/ | *|$/ |/'
echo
echo "The default time mode: two threaded adapters in one process (ndksim-perf --threaded), beside"
echo "the same baselines:"
echo
echo "| figure | ndksim | baseline (same run) | ratio |"
echo "|---|---|---|---|"
row "threaded in-process 1 MiB write bandwidth" threaded_bw "GB/s" "memcpy 1 MiB" memcpy 1 "" | sed 's/ | *|$/ |/'
row "threaded in-process 64 B RDMA writes/s" threaded_rate "/s" "SPSC ring handoff (best round)" spsc 1 "" best | sed 's/ | *|$/ |/'
row "threaded in-process 8 B write latency, one way" threaded_lat "us" "fi_pingpong tcp 64 B" fi_pingpong 1 "" | sed 's/ | *|$/ |/'
