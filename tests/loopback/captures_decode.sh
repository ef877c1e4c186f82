#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ndksim-loopback --role both --pcap FILE: the listener records to FILE and the connector to
# FILE with ".connector" before the extension, so a "*.pcap" glob finds both; and, given
# tshark, each shows the connection manager's handshake and disconnect as IBA CM messages. (The
# demo's refused write ends the connection on both sides at once: each sends a DREQ, and a
# process may exit before the other's DREQ or DREP reaches it, so a DREP is not required.)
#   usage: captures_decode.sh path/to/ndksim-loopback [path/to/tshark]
set -u
tool=$1
tshark=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A wire port of its own (from the process id), as the other loopback scripts take theirs.
port=$((20000 + ($$ * 23) % 30000))
if ! "$tool" --role both --local 127.0.8.1 --peer 127.0.8.2 --wire udp --port "$port" --size 4096 \
    --pcap "$dir/demo.pcap" >"$dir/out.txt" 2>&1; then
    cat "$dir/out.txt"
    echo "FAIL: the demo failed"
    exit 1
fi
files=("$dir"/*.pcap)
if [[ ${#files[@]} -ne 2 || ! -f $dir/demo.pcap || ! -f $dir/demo.connector.pcap ]]; then
    echo "FAIL: expected demo.pcap and demo.connector.pcap, found: $(ls "$dir")"
    exit 1
fi
if [[ -z $tshark ]]; then
    echo "both captures written; tshark not given, their dissection not checked"
    exit 0
fi
for f in "${files[@]}"; do
    summary=$("$tshark" -r "$f" 2>/dev/null)
    for message in ConnectRequest ConnectReply ReadyToUse DisconnectRequest; do
        if ! grep -q "CM: $message" <<<"$summary"; then
            echo "$summary" | head -40
            echo "FAIL: tshark shows no \"CM: $message\" in $(basename "$f")"
            exit 1
        fi
    done
    if grep -q "VENDOR\|Unknown\|Malformed" <<<"$summary"; then
        echo "$summary" | grep "VENDOR\|Unknown\|Malformed"
        echo "FAIL: tshark does not decode every frame of $(basename "$f")"
        exit 1
    fi
    echo "$(basename "$f"): tshark decodes the handshake and the disconnect"
done
