// SPDX-License-Identifier: MIT
#pragma once
// What the tshark checks read: the lines a command prints, the lines of the expectation file a
// capture run wrote beside its capture, and the tab-separated cells of a line.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ndksim::capture_test {

/// The lines `command` (a shell command line) prints, without their newlines; nullopt, after
/// saying why on stderr, when it cannot run or exits with a failure.
inline std::optional<std::vector<std::string>> output_lines(const std::string& command) {
    std::FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) {
        std::cerr << "cannot run: " << command << '\n';
        return std::nullopt;
    }
    std::vector<std::string> lines;
    std::string line;
    char chunk[4096];
    while (std::fgets(chunk, sizeof chunk, p) != nullptr) {
        line += chunk;
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            lines.push_back(line);
            line.clear();
        }
    }
    const int rc = ::pclose(p);
    if (rc != 0) {
        std::cerr << "failed (status " << rc << "): " << command << '\n';
        return std::nullopt;
    }
    return lines;
}

/// The lines of `path`; nullopt, after saying why on stderr, when it cannot be read.
inline std::optional<std::vector<std::string>> file_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::cerr << "cannot read " << path << '\n';
        return std::nullopt;
    }
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    return lines;
}

/// The tab-separated cells of `line`; a trailing tab ends with an empty cell.
inline std::vector<std::string> tab_cells(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, '\t')) {
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == '\t') {
        out.emplace_back();
    }
    return out;
}

}  // namespace ndksim::capture_test
