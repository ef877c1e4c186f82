#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 1: install what is missing, build ndksim-loopback, and run the
# two-process demo over the UDP wire (127.0.0.1 <-> 127.0.0.2), then over the TCP wire.
# Each run forks a listener process and runs the connector; it exits 0 only if both processes
# passed every check. This script exits non-zero if any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ndksim_install_deps
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target ndksim-loopback
failed=0
for wire in udp tcp; do
    echo
    echo "=== ndksim-loopback --role both --wire $wire --time synchronized: two processes, one" \
        "simulated NIC each, exact modelled time"
    if ! ./build/sim/demo/ndksim-loopback --role both --wire "$wire" --time synchronized; then
        echo "=== the $wire run FAILED"
        failed=1
    fi
done
exit $failed
