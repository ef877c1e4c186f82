# SPDX-License-Identifier: MIT
# Sourced by the ndksim-loopback test scripts. wait_for FD PATTERN reads lines from file
# descriptor FD, echoing them, until one contains PATTERN; it fails after $bound_s seconds
# without a line, or at the end of the output.
wait_for() {
    local fd=$1 pattern=$2 line
    while IFS= read -r -t "$bound_s" line <&"$fd"; do
        echo "$line"
        [[ $line == *"$pattern"* ]] && return 0
    done
    echo "FAIL: no line with \"$pattern\""
    return 1
}
