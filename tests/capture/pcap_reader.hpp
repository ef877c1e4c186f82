// SPDX-License-Identifier: MIT
#pragma once
// A minimal reader of the classic pcap files the capture layer writes, written independently
// of src/wire/pcap_writer so that the tests check the file format rather than re-use it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ndksim::capture_test {

struct pcap_record {
    std::uint32_t seconds = 0;
    std::uint32_t fraction = 0;  ///< nanoseconds with the nanosecond magic
    std::vector<std::byte> bytes;
};

struct pcap_file {
    bool ok = false;
    std::string error;
    std::uint32_t magic = 0;
    std::uint16_t major = 0;
    std::uint16_t minor = 0;
    std::uint32_t snaplen = 0;
    std::uint32_t linktype = 0;
    std::vector<pcap_record> records;
};

template <class T>
T host_at(const std::vector<std::byte>& b, std::size_t at) {
    T v{};
    std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}

inline std::uint32_t be_at(const std::byte* p, std::size_t n) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        v = (v << 8) | std::to_integer<std::uint32_t>(p[i]);
    }
    return v;
}

inline pcap_file read_pcap(const std::string& path) {
    pcap_file f;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        f.error = "cannot open " + path;
        return f;
    }
    std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> b(raw.size());
    std::memcpy(b.data(), raw.data(), raw.size());
    if (b.size() < 24) {
        f.error = "shorter than the global header";
        return f;
    }
    f.magic = host_at<std::uint32_t>(b, 0);
    f.major = host_at<std::uint16_t>(b, 4);
    f.minor = host_at<std::uint16_t>(b, 6);
    f.snaplen = host_at<std::uint32_t>(b, 16);
    f.linktype = host_at<std::uint32_t>(b, 20);
    std::size_t at = 24;
    while (at < b.size()) {
        if (b.size() - at < 16) {
            f.error = "truncated record header at offset " + std::to_string(at);
            return f;
        }
        pcap_record r;
        r.seconds = host_at<std::uint32_t>(b, at);
        r.fraction = host_at<std::uint32_t>(b, at + 4);
        const auto incl = host_at<std::uint32_t>(b, at + 8);
        const auto orig = host_at<std::uint32_t>(b, at + 12);
        at += 16;
        if (incl != orig || b.size() - at < incl) {
            f.error = "bad record length at offset " + std::to_string(at);
            return f;
        }
        r.bytes.assign(b.begin() + static_cast<std::ptrdiff_t>(at),
                       b.begin() + static_cast<std::ptrdiff_t>(at + incl));
        at += incl;
        f.records.push_back(std::move(r));
    }
    f.ok = true;
    return f;
}

}  // namespace ndksim::capture_test
