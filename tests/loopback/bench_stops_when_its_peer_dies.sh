#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ndksim-loopback --bench is honest when its peer dies mid-run: the listener process is killed
# while the connector keeps 16 writes in flight. The connector must stop at the first write
# that fails (its QP then refuses or flushes everything behind it), wait only for the writes it
# posted, and end with a failure whose summary counts only completed writes: bytes = writes x
# size, far below the 10^9 planned. Its --timeout-ms is 10 minutes, so waiting that out for
# completions that never come would exceed the script's bound. The script waits on the
# processes' output lines (read -t), never on a fixed delay.
# In synchronized time (third argument) the connector's clock cannot pass what the dead
# listener promised; it must find the peer lost after --peer-silence-ms of wall time and fail
# its connection as on a lost link.
#   usage: bench_stops_when_its_peer_dies.sh path/to/ndksim-loopback [wire] [time]
set -u
tool=$1
wire=${2:-udp}
time=${3:-virtual}
time_args=(--time "$time")
if [[ $time == synchronized ]]; then
    time_args+=(--peer-silence-ms 1000)
fi
size=65536
planned=1000000000
bound_s=90 # far below the 600 s timeout, far above the ~2 s the retries take

# shellcheck source=wait_for_line.sh
source "$(dirname "$0")/wait_for_line.sh"

port=$((20000 + ($$ * 17) % 30000))
exec 3< <(exec "$tool" --role listen --local 127.0.8.1 --wire "$wire" --port "$port" \
    --timeout-ms 600000 "${time_args[@]}" 2>&1)
listener=$!
wait_for 3 "listening on" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
exec 4< <(exec "$tool" --role connect --local 127.0.8.2 --peer 127.0.8.1 --wire "$wire" \
    --port "$port" --timeout-ms 600000 --ack-timeout-us 20000 --bench --size "$size" \
    --iterations "$planned" "${time_args[@]}" 2>&1)
connector=$!
if ! wait_for 4 "received the listener's window"; then
    kill -KILL "$listener" "$connector" 2>/dev/null
    exit 1
fi
kill -KILL "$listener"
# The connector's output ends when it exits.
while true; do
    IFS= read -r -t "$bound_s" line <&4
    status=$?
    ((status == 0)) || break
    echo "$line"
    echo "$line" >>"$out"
done
if ((status > 128)); then
    echo "FAIL: the connector still runs $bound_s s after its peer died"
    kill -KILL "$connector" 2>/dev/null
    exit 1
fi
wait "$connector"
rc=$?
fail=0
if ((rc == 0)); then
    echo "FAIL: the connector exited 0 although its peer died"
    fail=1
fi
if ! grep -Eq "bench: write [0-9]+ (completed with STATUS_|not posted: STATUS_)" "$out"; then
    echo "FAIL: no line names the first failed write and its status"
    fail=1
fi
stopped=$(sed -n "s/.*bench: stopped after \([0-9]*\) completed writes of $planned planned.*/\1/p" "$out")
summary=$(sed -n 's/.*summary: \([0-9]*\) operations, \([0-9]*\) bytes.*/\1 \2/p' "$out")
if [[ -z $stopped || -z $summary ]]; then
    echo "FAIL: no 'stopped after' or 'summary' line"
    exit 1
fi
read -r ops bytes <<<"$summary"
if ((ops != stopped || bytes != ops * size || ops >= planned)); then
    echo "FAIL: the summary counts $ops operations and $bytes bytes; $stopped writes of $size bytes completed"
    fail=1
fi
if [[ $time == synchronized ]] && ! grep -q "synchronized time: peer .* lost" "$out"; then
    echo "FAIL: no line says the silent peer was lost"
    fail=1
fi
((fail == 0)) && echo "the connector stopped after $ops completed writes ($bytes bytes) and failed"
exit "$fail"
