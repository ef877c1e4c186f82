#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ndksim-loopback --time synchronized: the two-process demo (over UDP and TCP) prints the
# modelled latency per operation of the in-process run, and prints it again on a second run.
# The demo's own waits do not all tell the simulation that they wait, so a run waits out the
# consumer grace now and then (its last line says "not exact"); on a host busy enough for that
# to move a measured operation, its latency differs. Such a run is run again, up to three times.
#   usage: synchronized_demo.sh path/to/ndksim-loopback
set -u
tool=$1
# A wire port of its own (from the process id), as the other loopback scripts take theirs.
port=$((20000 + ($$ * 29) % 30000))
latency() {
    local out
    out=$("$tool" --role both --time synchronized --port "$port" "$@" 2>&1)
    local value
    value=$(sed -n 's/.*modelled latency per op (median) \([0-9.]*\) us.*/\1/p' <<<"$out")
    if [[ -z $value ]]; then
        # No figure: show why, for the log of a failing run.
        echo "run with $*: no latency line; its last lines:" >&2
        tail -n 8 <<<"$out" >&2
    fi
    echo "$value"
}
# The in-process reference: the value two in-process runs agree on (at most four runs).
reference=""
previous=""
for _ in 1 2 3 4; do
    got=$(latency --wire inproc)
    echo "in process: '$got' us per op" >&2
    if [[ -n $got && $got == "$previous" ]]; then
        reference=$got
        break
    fi
    previous=$got
done
if [[ -z $reference ]]; then
    echo "FAIL: no two in-process runs printed the same modelled latency"
    exit 1
fi
fail=0
for wire in udp tcp udp tcp; do
    got=""
    for attempt in 1 2 3; do
        got=$(latency --wire "$wire")
        [[ $got == "$reference" ]] && break
        echo "over $wire, run $attempt: '$got' us per op; again" >&2
    done
    if [[ $got != "$reference" ]]; then
        echo "FAIL: over $wire the modelled latency per op is '$got' us, in process $reference us"
        fail=1
    else
        echo "over $wire: $got us per op, as in process"
    fi
done
exit "$fail"
