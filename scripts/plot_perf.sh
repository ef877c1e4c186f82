#!/usr/bin/env bash
# Renders an ndksim-perf CSV (--csv) into one PNG with two panels against message size (log
# scale): modelled latency (median and p99) and modelled bandwidth.
#   scripts/plot_perf.sh results.csv results.png
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 CSV PNG" >&2
    exit 2
fi
csv=$1
png=$2
if [ ! -r "$csv" ]; then
    echo "plot_perf: cannot read $csv" >&2
    exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    # shellcheck source=deps.sh
    source "$(dirname "$0")/deps.sh"
    ndksim_install_deps gnuplot-nox
fi
# The title names the test, mode and wire of the first data row.
title=$(awk -F, 'NR == 2 { printf "ndksim-perf: %s %s, %s wire, %s QP(s)", $1, $2, $3, $4 }' "$csv")
gnuplot <<GNUPLOT
set datafile separator ","
set terminal pngcairo size 1000,900 font ",10"
set output "$png"
set multiplot layout 2,1 title "$title"
set logscale x 2
set format x "%.0b %BB"
set grid
set key top left
set xlabel "message size"
set ylabel "latency [us, modelled]"
set logscale y
plot "$csv" using 6:8 skip 1 with linespoints title "median", \
     "$csv" using 6:9 skip 1 with linespoints title "p99"
unset logscale y
set ylabel "bandwidth [Gb/s, modelled]"
plot "$csv" using 6:12 skip 1 with linespoints title "bandwidth"
unset multiplot
GNUPLOT
echo "plot_perf: wrote $png"
