#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the demo.
# The demo is the best end-to-end program there is until the two-process loopback demo (which
# needs the UDP/TCP wire) exists: examples/02_rdma_write_read connects two simulated NICs of one
# process the NDK way and moves data with RDMA write, read and send, with every byte checked;
# examples/01_query_adapter shows one NIC's NDK_ADAPTER_INFO and object lifetimes. Exits 0
# only if every check in both passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ndksim_install_deps
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target 01_query_adapter 02_rdma_write_read
echo "=== examples/02_rdma_write_read: two NICs, one process, connected over the in-process link"
./build/examples/02_rdma_write_read
echo
echo "=== examples/01_query_adapter: one NIC, its adapter info and object lifetimes"
./build/examples/01_query_adapter
