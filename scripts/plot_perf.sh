#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Renders ndksim-perf CSVs (--csv) into one PNG with two panels against message size (log
# scale): modelled latency (median and p99) and modelled bandwidth, one pair of curves per CSV
# (e.g. a latency run and a bandwidth run of the same test).
#   scripts/plot_perf.sh results.csv [more.csv ...] results.png
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 CSV [CSV ...] PNG" >&2
    exit 2
fi
png=${*: -1}
csvs=("${@:1:$#-1}")
for csv in "${csvs[@]}"; do
    if [ ! -r "$csv" ]; then
        echo "plot_perf: cannot read $csv" >&2
        exit 1
    fi
    case $csv in
        *\"* | *\\*) echo "plot_perf: $csv: quotes and backslashes are not supported" >&2; exit 1 ;;
    esac
done
# A plotting script changes nothing on the system: it names what is missing and stops.
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plot_perf: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
    exit 1
fi
# The title names the test, wire and QPs of the first file's first data row; each curve's label
# its file's mode (lat: one-way latency; bw: post to completion with requests outstanding).
title=$(awk -F, 'NR == 2 { printf "ndksim-perf: %s, %s wire, %s QP(s)", $1, $3, $4 }' "${csvs[0]}")
lat_plot=""
bw_plot=""
for csv in "${csvs[@]}"; do
    mode=$(awk -F, 'NR == 2 { m = $2; if ($2 == "bw") m = "bw (" $5 " outstanding)"; print m }' "$csv")
    lat_plot+="${lat_plot:+, }\"$csv\" using 6:8 skip 1 with linespoints title \"$mode median\""
    lat_plot+=", \"$csv\" using 6:9 skip 1 with linespoints title \"$mode p99\""
    bw_plot+="${bw_plot:+, }\"$csv\" using 6:12 skip 1 with linespoints title \"$mode\""
done
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
plot $lat_plot
unset logscale y
set ylabel "bandwidth [Gb/s, modelled]"
plot $bw_plot
unset multiplot
GNUPLOT
echo "plot_perf: wrote $png"
