#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ndksim-loopback: --timeout-ms bounds every wait. A connector process killed mid-connection
# sends no disconnect; its listener must still end within a few multiples of --timeout-ms
# (here 1 s), not after waiting minutes for the next request. The script waits on the two
# processes' output lines (read -t), never on a fixed delay.
#   usage: listener_gives_up.sh path/to/ndksim-loopback
set -u
tool=$1
timeout_ms=1000
bound_s=30 # far below the 10 minutes the listener waited before, far above ~3 s it needs

# shellcheck source=wait_for_line.sh
source "$(dirname "$0")/wait_for_line.sh"

# A wire port of its own (from the process id): another copy of the suite on the host may run
# this test at the same time.
port=$((20000 + ($$ * 19) % 30000))
exec 3< <(exec "$tool" --role listen --local 127.0.7.1 --wire udp --port "$port" \
    --timeout-ms "$timeout_ms" 2>&1)
listener=$!
wait_for 3 "listening on" || exit 1
exec 4< <(exec "$tool" --role connect --local 127.0.7.2 --peer 127.0.7.1 --wire udp \
    --port "$port" --timeout-ms "$timeout_ms" --bench --iterations 1000000000 2>&1)
connector=$!
if ! wait_for 4 "received the listener's window"; then
    kill -KILL "$listener" "$connector" 2>/dev/null
    exit 1
fi
kill -KILL "$connector"
start=$SECONDS
# The listener's output ends when it exits.
while true; do
    IFS= read -r -t "$bound_s" line <&3
    status=$?
    ((status == 0)) || break
    echo "$line"
done
if ((status > 128)); then
    echo "FAIL: the listener still waits $((SECONDS - start)) s after its connector died"
    kill -KILL "$listener" 2>/dev/null
    exit 1
fi
echo "the listener ended $((SECONDS - start)) s after its connector died"
