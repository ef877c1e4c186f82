#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run every test three times:
# a normal build with warnings as errors, an ASan+UBSan build, and a TSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ndksim_install_deps tshark  # the capture test dissects its pcap with tshark
# The three trees take about 5 GB together; say so up front rather than fail mid-build.
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((6 * 1024 * 1024)) ]; then
    echo "warning: $((free_kb / 1024)) MB free here; the three builds need about 5 GB" >&2
fi
run_suite() {
    local dir=$1
    local jobs
    jobs=$(nproc)
    shift
    echo "=== ${dir}: $*"
    cmake -S . -B "$dir" -G Ninja -DNDKSIM_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
    ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DNDKSIM_SANITIZE=address \
    -DNDKSIM_BUILD_BENCHMARKS=OFF -DNDKSIM_BUILD_TOOLS=OFF
# TSan needs a fixed address layout on kernels with high mmap entropy; setarch -R provides it.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    setarch "$(uname -m)" -R bash -c "set -euo pipefail; $(declare -f run_suite); run_suite build-tsan \
    -DCMAKE_BUILD_TYPE=Debug -DNDKSIM_SANITIZE=thread -DNDKSIM_BUILD_BENCHMARKS=OFF \
    -DNDKSIM_BUILD_TOOLS=OFF -DNDKSIM_BUILD_EXAMPLES=OFF"
