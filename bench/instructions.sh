#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per in-process RDMA write, counted by callgrind (valgrind): a figure of the
# simulator's host cost that the host's load does not move, for comparing two builds on a
# shared machine where timings of one binary swing by 10-30 % between runs. bench_inproc's
# BM_InprocWrite runs under callgrind, which counts only inside its batches of writes
# (pair::write_batch: the posts, the loop's events, the CQ polls), leaving out the set-up and
# teardown of its adapter pair; the frame and event pools' one-time growth inside a batch is
# taken out too. Instructions are not time (a cache miss costs more than an add): the figure
# shows work removed or added, not the time a change saves. Nothing is asserted.
#
#   bench/instructions.sh [--build DIR] [SIZE...]
#
#   --build DIR  Release tree to build and use (default build-rel)
#   SIZE         write sizes in bytes, each one of bench_inproc's (64, 4096, 65536, 1048576);
#                default: 64 1048576
set -euo pipefail
cd "$(dirname "$0")/.."

build="build-rel"
sizes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        64 | 4096 | 65536 | 1048576) sizes+=("$1"); shift ;;
        *)
            echo "usage: $0 [--build DIR] [64|4096|65536|1048576 ...]" >&2
            exit 2
            ;;
    esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(64 1048576)

source scripts/deps.sh
ndksim_install_deps valgrind python3

source bench/release_build.sh
ndksim_release_build "$build" bench_inproc
inproc="$build/bench/engine/bench_inproc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# size min_time -> "writes instructions": the writes posted (NdkWrite calls) and the
# instructions of the batches that posted and completed them, the pools' one-time growth
# taken out.
count() {
    local out="$work/cg.$1"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*write_batch*' \
        "$inproc" --benchmark_filter="BM_InprocWrite/$1\$" --benchmark_min_time="$2" \
        >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$out" 2>/dev/null |
        python3 -c '
import re, sys
text = sys.stdin.read().splitlines()
def inclusive(pattern):
    for line in text:
        if re.search(r"\*  \?\?\?:" + pattern, line):
            return int(line.split()[0].replace(",", ""))
    return 0
writes = 0
for line in text:
    m = re.search(r">   \?\?\?:ndksim::api::\(anonymous namespace\)::NdkWrite\(.*\((\d[\d,]*)x\)", line)
    if m:
        writes = int(m.group(1).replace(",", ""))
        break
work = (inclusive(r"\(anonymous namespace\)::pair::write_batch")
        - inclusive(r"ndksim::wire::frame_pool::grow")
        - inclusive(r"ndksim::timing::event_queue::add_chunk"))
print(writes, work)
'
}

echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| write size | instructions per write | writes counted |"
echo "|---|---|---|"
for size in "${sizes[@]}"; do
    # Large writes take longer each, so a shorter run holds enough of them.
    if [ "$size" -ge 65536 ]; then min_time=0.3; else min_time=0.5; fi
    read -r writes instructions <<<"$(count "$size" "$min_time")"
    python3 - "$size" "$writes" "$instructions" <<'EOF'
import sys
size, writes, instructions = (int(x) for x in sys.argv[1:])
if writes == 0 or instructions <= 0:
    print(f"| {size} B | failed: nothing counted | |")
else:
    print(f"| {size} B | {instructions / writes:,.0f} | {writes:,} |")
EOF
done
