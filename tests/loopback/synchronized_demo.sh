#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ndksim-loopback --time synchronized: the two-process demo (over UDP and TCP) prints the
# modelled latency per operation of the in-process run, and prints it again on a second run.
#   usage: synchronized_demo.sh path/to/ndksim-loopback
set -u
tool=$1
latency() {
    "$tool" --role both --time synchronized "$@" 2>&1 |
        sed -n 's/.*modelled latency per op (median) \([0-9.]*\) us.*/\1/p'
}
reference=$(latency --wire inproc)
if [[ -z $reference ]]; then
    echo "FAIL: the in-process run printed no modelled latency"
    exit 1
fi
fail=0
for wire in udp tcp udp tcp; do
    got=$(latency --wire "$wire")
    if [[ $got != "$reference" ]]; then
        echo "FAIL: over $wire the modelled latency per op is '$got' us, in process $reference us"
        fail=1
    else
        echo "over $wire: $got us per op, as in process"
    fi
done
exit "$fail"
