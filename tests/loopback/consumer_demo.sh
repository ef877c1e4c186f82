#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole demo with --poll consumer (both processes run their adapter's engine on their own
# waiting threads), on a wire port derived from this script's process id, as the other
# loopback scripts choose theirs: two copies of the suite on one host (parallel CI jobs on one
# runner) then do not bind the same addresses and port.
#   usage: consumer_demo.sh path/to/ndksim-loopback wire local-address peer-address
set -eu
tool=$1
wire=$2
local=$3
peer=$4
port=$((20000 + ($$ * 13) % 30000))
exec "$tool" --role both --wire "$wire" --poll consumer --local "$local" --peer "$peer" \
    --port "$port"
