// SPDX-License-Identifier: MIT
// The tshark check of the connection manager's capture: dissects it with `tshark -V` and
// requires, for each CM frame the capture test listed (FILE.expected: the frame number, then
// tab-separated text), every listed text in that frame's dissection: the message's name as
// Wireshark's InfiniBand dissector gives it ("CM ConnectRequest" ... "CM DisconnectReply"),
// its communication ids, the reject reason, the IP CM addresses and the private data. No frame
// may be malformed or an unknown MAD.
//
//   cm_capture_check TSHARK FILE
//
// Exit status 0 when everything is found; otherwise each miss is printed.

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "capture/command_output.hpp"

namespace {

// tshark shows a byte field's first 36 bytes, then an ellipsis: a longer expectation is cut.
constexpr std::size_t k_shown_hex_digits = 2 * 36;

// The messages the capture must hold, as tshark names them.
constexpr const char* k_messages[] = {"CM ConnectRequest",    "CM ConnectReply",
                                      "CM ReadyToUse",        "CM ConnectReject",
                                      "CM DisconnectRequest", "CM DisconnectReply"};

bool is_hex(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: cm_capture_check TSHARK FILE\n";
        return 2;
    }
    const std::string command =
        std::string("'") + argv[1] + "' -V -r '" + argv[2] + "' 2>/dev/null";
    const auto dissected = ndksim::capture_test::output_lines(command);
    if (!dissected) {
        return 1;
    }
    const auto expected = ndksim::capture_test::file_lines(std::string(argv[2]) + ".expected");
    if (!expected) {
        return 2;
    }
    // Each frame's dissection starts with a line "Frame N: ...".
    std::map<unsigned long, std::string> frames;
    unsigned long current = 0;
    for (const std::string& line : *dissected) {
        if (line.rfind("Frame ", 0) == 0) {
            current = std::stoul(line.substr(6));
        }
        frames[current] += line + '\n';
    }
    int misses = 0;
    std::size_t checked = 0;
    std::set<std::string> names;
    for (const std::string& line : *expected) {
        const std::vector<std::string> cells = ndksim::capture_test::tab_cells(line);
        if (cells.size() < 2) {
            continue;
        }
        const unsigned long number = std::stoul(cells[0]);
        const auto frame = frames.find(number);
        if (frame == frames.end()) {
            std::cerr << "frame " << number << ": not in tshark's output\n";
            ++misses;
            continue;
        }
        ++checked;
        names.insert(cells[1]);
        for (std::size_t i = 1; i < cells.size(); ++i) {
            std::string want = cells[i];
            if (is_hex(want) && want.size() > k_shown_hex_digits) {
                want.resize(k_shown_hex_digits);
            }
            if (frame->second.find(want) == std::string::npos) {
                std::cerr << "frame " << number << ": tshark does not show '" << want << "'\n";
                ++misses;
            }
        }
        for (const char* bad : {"Malformed", "Unknown Attribute", "Unknown CM Attribute",
                                "Dissector Not Implemented"}) {
            if (frame->second.find(bad) != std::string::npos) {
                std::cerr << "frame " << number << ": tshark shows '" << bad << "'\n";
                ++misses;
            }
        }
    }
    for (const char* name : k_messages) {
        if (names.count(name) == 0) {
            std::cerr << "no frame is a " << name << '\n';
            ++misses;
        }
    }
    std::cout << checked << " CM frames checked against tshark's dissection, " << misses
              << " misses\n";
    return misses == 0 && checked > 0 ? 0 : 1;
}
