// SPDX-License-Identifier: MIT
// The tshark check: dissects a capture with tshark's InfiniBand dissector and compares its
// fields, frame by frame, with the ones the capture test decoded itself (FILE.expected).
//
//   capture_check TSHARK FILE
//
// Exit status 0 when every frame matches; otherwise each difference is printed.

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "capture/command_output.hpp"

namespace {

// The InfiniBand dissector fields, in the column order of FILE.expected.
constexpr const char* k_fields[] = {
    "frame.number",           "infiniband.bth.opcode",    "infiniband.bth.destqp",
    "infiniband.bth.psn",     "infiniband.reth.va",       "infiniband.reth.r_key",
    "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.ieth",
};
constexpr std::size_t k_ieth_column = 9;

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out = ndksim::capture_test::tab_cells(line);
    out.resize(std::size(k_fields));
    return out;
}

// tshark prints integers in each field's display base ("0x0000000c" or "12") and byte fields
// as hex digits, possibly colon-separated; both sides become decimal text.
std::string normalize(const std::string& cell, bool bytes) {
    if (cell.empty()) {
        return cell;
    }
    std::string digits;
    for (char c : cell) {
        if (c != ':') {
            digits += c;
        }
    }
    const unsigned long long v = std::strtoull(digits.c_str(), nullptr, bytes ? 16 : 0);
    return std::to_string(v);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: capture_check TSHARK FILE\n";
        return 2;
    }
    std::string command =
        std::string("'") + argv[1] + "' -r '" + argv[2] + "' -T fields -E occurrence=f";
    for (const char* f : k_fields) {
        command += std::string(" -e ") + f;
    }
    command += " 2>/dev/null";
    const auto dissected_lines = ndksim::capture_test::output_lines(command);
    if (!dissected_lines) {
        return 1;
    }
    const auto expected_lines =
        ndksim::capture_test::file_lines(std::string(argv[2]) + ".expected");
    if (!expected_lines) {
        return 2;
    }
    const std::vector<std::string>& dissected = *dissected_lines;
    const std::vector<std::string>& expected = *expected_lines;
    int differences = 0;
    if (expected.size() != dissected.size()) {
        std::cerr << "tshark shows " << dissected.size() << " frames, the test recorded "
                  << expected.size() << '\n';
        ++differences;
    }
    std::size_t data_frames = 0;
    for (std::size_t i = 0; i < std::min(expected.size(), dissected.size()); ++i) {
        const auto want = split(expected[i]);
        const auto got = split(dissected[i]);
        // Connection-management datagrams (UD, opcode 0x64, to QP 1): only their BTH is
        // compared here; cm_capture_check.cpp checks tshark's decode of their MADs.
        const bool cm = want[1] == "100";
        data_frames += cm ? 0 : 1;
        const std::size_t columns = cm ? 4 : std::size(k_fields);
        for (std::size_t c = 0; c < columns; ++c) {
            const std::string w = normalize(want[c], false);
            const std::string g = normalize(got[c], c == k_ieth_column);
            if (w != g) {
                std::cerr << "frame " << want[0] << ": " << k_fields[c] << " is '" << got[c]
                          << "' in tshark, expected " << w << '\n';
                ++differences;
            }
        }
    }
    std::cout << dissected.size() << " frames (" << data_frames << " data packets) compared, "
              << differences << " differences\n";
    return differences == 0 && data_frames > 0 ? 0 : 1;
}
