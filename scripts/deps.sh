# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages ndksim needs, when any is missing. Sourced by demo.sh/test.sh.
ndksim_packages=(cmake g++ clang ninja-build pkg-config libboost-dev libspdlog-dev libfmt-dev
                 libcli11-dev libgtest-dev libbenchmark-dev
                 libtomlplusplus-dev nlohmann-json3-dev libisal-dev zlib1g-dev)
# What the full test run (test.sh, CI) needs beyond a build: tshark dissects the capture test's
# pcap; ccache speeds up rebuilds of the three trees; doxygen builds the API reference in the
# `docs` test (warnings are errors); help2man writes the tools' man pages; dpkg-dev has
# dpkg-shlibdeps, which gives the package test's .deb its dependencies; clang-format is what the
# `format` test checks every source file with (the test fails without it).
ndksim_test_packages=(tshark ccache doxygen help2man dpkg-dev clang-format)

ndksim_install_deps() {
    local missing=()
    for p in "${ndksim_packages[@]}" "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "ndksim: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
