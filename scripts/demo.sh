#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the demo.
# The demo is examples/01_query_adapter: one simulated NIC, its NDK_ADAPTER_INFO, and an object
# tree built and torn down with every call pending (the two-process loopback demo replaces it
# once the UDP/TCP wire exists). Exits 0 only if every check in it passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ndksim_install_deps
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target 01_query_adapter
./build/examples/01_query_adapter
