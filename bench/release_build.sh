# SPDX-License-Identifier: MIT
# Sourced by the bench scripts: configures a Release tree of the tools and benchmarks (through
# ccache when there is one) and builds the targets named.
#   ndksim_release_build DIR TARGET...
ndksim_release_build() {
    local build=$1
    shift
    local launcher=()
    if command -v ccache >/dev/null 2>&1; then
        launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
        export CCACHE_BASEDIR="$PWD" CCACHE_SLOPPINESS=pch_defines,time_macros
    fi
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNDKSIM_BUILD_TESTS=OFF \
        -DNDKSIM_BUILD_EXAMPLES=OFF -DNDKSIM_BUILD_BENCHMARKS=ON -DNDKSIM_BUILD_TOOLS=ON \
        "${launcher[@]}" >/dev/null
    cmake --build "$build" --target "$@" >/dev/null
}
