#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, command 2: install what is missing, build, and run every test three times:
# a normal build with warnings as errors, an ASan+UBSan build, and a TSan build; the threaded,
# two-process and socket tests of the TSan build run in the load check, three times each while
# busy loops take every core (the other TSan tests run on an idle host just before).
#
#   scripts/test.sh               everything above
#   scripts/test.sh --under-load  the TSan build and the load check only
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ndksim_install_deps "${ndksim_test_packages[@]}"

only_load=0
for arg in "$@"; do
    case "$arg" in
        --under-load) only_load=1 ;;
        *)
            echo "usage: $0 [--under-load]" >&2
            exit 2
            ;;
    esac
done

# The three trees take about 6 GB together; say so up front rather than fail mid-build.
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((6 * 1024 * 1024)) ]; then
    echo "warning: $((free_kb / 1024)) MB free here; the three builds need about 6 GB" >&2
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    # Paths relative to the clone, so that another clone of the same commit reuses the cache;
    # the sloppiness lets compiles that use the precompiled headers hit (CMakeLists.txt).
    export CCACHE_BASEDIR="$PWD"
    export CCACHE_SLOPPINESS=pch_defines,time_macros
fi

# Unity builds: each target compiles its sources eight to a translation unit, so the headers
# and templates they share (Asio, spdlog, GoogleTest) are parsed and generated once per eight
# files instead of once per file; the three trees build in less than half the time. A
# development tree, configured without it, still compiles every file on its own: that is where
# a missing include shows.
build_tree() {
    local dir=$1
    shift
    echo "=== ${dir}: $*"
    cmake -S . -B "$dir" -G Ninja -DNDKSIM_WERROR=ON -DCMAKE_UNITY_BUILD=ON "${launcher[@]}" "$@" \
        >/dev/null
    cmake --build "$dir" -j "$(nproc)"
}

run_suite() {
    local dir=$1
    shift
    build_tree "$dir" "$@"
    ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
}

# The tests whose outcome could depend on the host's speed: everything that runs an engine
# thread, a socket or a second process (ctest names; the TSan tree builds only suites that
# start threads, and these are the threaded tests among them).
load_tests='Threaded|Wires/|TcpTransport\.|UdpTransport\.|SchedulerAdvanceTo\.|DisconnectStress\.'
load_tests+='|^Concurrency\.|StatsBlock\.Snapshots|CqClose\.|TimeMode\.Paced'
# The consumer poll policy: consumer threads and the engine thread hand the engine over.
load_tests+='|^ConsumerPolicy\.|^ConsumerProgress\.|^RcConsumerDriven\.'
# Synchronized time: the sync domain's engine and the threaded synchronized trace.
load_tests+='|^SyncDomainEngine\.|^SynchronizedTrace\.'
# The kernel runtime's waits, spin locks and interlocked operations, which run threads too.
load_tests+='|^Event\.|^SpinLock\.|^Interlocked\.|^Irql\.|^KernelRuntime\.|^Wsk\.|IrqlBridge'
# The simulated DPC, timer and worker threads, system threads, and the locks and lists drivers
# share between threads.
load_tests+='|^Clock\.|^Dpc\.|^Timer\.|^SystemThread\.|^Rundown\.|^WorkItem\.|^Io\.'
load_tests+='|^DriverHost\.|^PushLock\.|^Resource\.|^SList\.|^Lookaside\.|KernelConsumer\.'

# TSan needs a fixed address layout on kernels with high mmap entropy; setarch -R provides it.
tsan() {
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch "$(uname -m)" -R "$@"
}

tsan_flags=(-DCMAKE_BUILD_TYPE=Debug -DNDKSIM_SANITIZE=thread -DNDKSIM_BUILD_BENCHMARKS=OFF
            -DNDKSIM_BUILD_TOOLS=OFF)

if [ "$only_load" -eq 0 ]; then
    run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DNDKSIM_SANITIZE=address \
        -DNDKSIM_BUILD_BENCHMARKS=OFF -DNDKSIM_BUILD_TOOLS=OFF
    build_tree build-tsan "${tsan_flags[@]}"
    # The load check below runs the threaded tests of this tree three times; here the rest.
    tsan ctest --test-dir build-tsan --output-on-failure -j "$(nproc)" -E "$load_tests"
else
    build_tree build-tsan "${tsan_flags[@]}"
fi

# The load check: one busy loop per core competes with the tests, as other jobs on a shared
# CI machine do; each test must pass three times in a row.
echo "=== load check: threaded, two-process and socket tests (TSan) against $(nproc) busy loops"
busy=()
stop_busy() {
    if [ ${#busy[@]} -gt 0 ]; then
        kill "${busy[@]}" 2>/dev/null || true
        wait "${busy[@]}" 2>/dev/null || true
        busy=()
    fi
}
trap stop_busy EXIT
for _ in $(seq "$(nproc)"); do
    bash -c 'while :; do :; done' &
    busy+=($!)
done
tsan ctest --test-dir build-tsan --output-on-failure -j "$(nproc)" -R "$load_tests" \
    --repeat until-fail:3
stop_busy
