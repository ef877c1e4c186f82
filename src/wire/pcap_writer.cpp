// SPDX-License-Identifier: MIT
#include "wire/pcap_writer.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "util/log.hpp"

namespace ndksim::wire {
namespace {

constexpr std::size_t ethernet_size = 14;
constexpr std::size_t ipv4_size = 20;
constexpr std::size_t ipv6_size = 40;
constexpr std::size_t udp_size = 8;
constexpr std::uint8_t default_ttl = 64;
constexpr std::uint32_t snap_length = 262'144;

/// Stores `v` in host byte order: the pcap headers are written in the writer's byte order,
/// which readers detect from the magic number.
template <class T>
void store_host(std::byte* p, T v) noexcept {
    std::memcpy(p, &v, sizeof v);
}

/// 16-byte form of an address: IPv6 as is, IPv4 v4-mapped (as the ICRC pseudo header).
std::array<std::uint8_t, 16> as_v6(const ip_address& a) noexcept {
    if (a.v6) {
        return a.bytes;
    }
    std::array<std::uint8_t, 16> r{};
    r[10] = 0xFF;
    r[11] = 0xFF;
    for (std::size_t i = 0; i < 4; ++i) {
        r[12 + i] = a.bytes[i];
    }
    return r;
}

void put_mac(std::byte* p, const ip_address& a) noexcept {
    const std::array<std::uint8_t, 6> mac = adapter_mac(a);
    for (std::size_t i = 0; i < mac.size(); ++i) {
        p[i] = static_cast<std::byte>(mac[i]);
    }
}

/// Ones' complement sum of 16-bit big-endian words (RFC 1071), not yet folded.
std::uint32_t sum16(const std::byte* p, std::size_t n, std::uint32_t sum = 0) noexcept {
    for (std::size_t i = 0; i + 1 < n; i += 2) {
        sum +=
            (std::to_integer<std::uint32_t>(p[i]) << 8) | std::to_integer<std::uint32_t>(p[i + 1]);
    }
    if (n % 2 != 0) {
        sum += std::to_integer<std::uint32_t>(p[n - 1]) << 8;
    }
    return sum;
}

std::uint16_t fold(std::uint32_t sum) noexcept {
    while ((sum >> 16) != 0) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<std::uint16_t>(~sum & 0xFFFF);
}

}  // namespace

std::size_t build_outer_headers(const flow& f, std::size_t frame_size, std::byte* out) noexcept {
    const bool v6 = f.src.v6 || f.dst.v6;
    put_mac(out + 0, f.dst);
    put_mac(out + 6, f.src);
    store_be<2>(out + 12, v6 ? 0x86DD : 0x0800);
    std::byte* ip = out + ethernet_size;
    const std::size_t udp_length = udp_size + frame_size;
    std::byte* udp = nullptr;
    if (!v6) {
        // Every field the ICRC covers as icrc.cpp's pseudo header has it (wire-format.md, ICRC).
        store_be<1>(ip + 0, 0x45);
        store_be<1>(ip + 1, 0);  // TOS (masked by the ICRC)
        store_be<2>(ip + 2, ipv4_size + udp_length);
        store_be<2>(ip + 4, f.ipv4_id);
        store_be<2>(ip + 6, 0x4000);  // DF, fragment offset 0
        store_be<1>(ip + 8, default_ttl);
        store_be<1>(ip + 9, 17);
        store_be<2>(ip + 10, 0);
        for (std::size_t i = 0; i < 4; ++i) {
            ip[12 + i] = static_cast<std::byte>(f.src.bytes[i]);
            ip[16 + i] = static_cast<std::byte>(f.dst.bytes[i]);
        }
        store_be<2>(ip + 10, fold(sum16(ip, ipv4_size)));  // RFC 791 header checksum
        udp = ip + ipv4_size;
    } else {
        store_be<4>(ip + 0, 0x6000'0000u);  // version 6, traffic class and flow label 0
        store_be<2>(ip + 4, udp_length);
        store_be<1>(ip + 6, 17);
        store_be<1>(ip + 7, default_ttl);
        const auto s = as_v6(f.src);
        const auto d = as_v6(f.dst);
        for (std::size_t i = 0; i < 16; ++i) {
            ip[8 + i] = static_cast<std::byte>(s[i]);
            ip[24 + i] = static_cast<std::byte>(d[i]);
        }
        udp = ip + ipv6_size;
    }
    store_be<2>(udp + 0, f.src_port);
    store_be<2>(udp + 2, f.dst_port);
    store_be<2>(udp + 4, udp_length);
    store_be<2>(udp + 6, 0);  // no UDP checksum; see write() for IPv6
    return static_cast<std::size_t>(udp + udp_size - out);
}

pcap_writer::pcap_writer(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) {
        const int error = errno;
        throw std::runtime_error("cannot open pcap file '" + path + "': " + std::strerror(error));
    }
    std::setvbuf(file_, buffer_, _IOFBF, sizeof buffer_);
    std::array<std::byte, pcap_global_header_size> h{};
    store_host<std::uint32_t>(h.data() + 0, pcap_magic_ns);
    store_host<std::uint16_t>(h.data() + 4, 2);  // version 2.4
    store_host<std::uint16_t>(h.data() + 6, 4);
    store_host<std::uint32_t>(h.data() + 8, 0);   // thiszone
    store_host<std::uint32_t>(h.data() + 12, 0);  // sigfigs
    store_host<std::uint32_t>(h.data() + 16, snap_length);
    store_host<std::uint32_t>(h.data() + 20, pcap_linktype_ethernet);
    if (std::fwrite(h.data(), 1, h.size(), file_) != h.size() || std::fflush(file_) != 0) {
        const int error = errno;
        std::fclose(file_);
        file_ = nullptr;
        throw std::runtime_error("cannot write pcap file '" + path + "': " + std::strerror(error));
    }
}

pcap_writer::~pcap_writer() {
    close();
}

void pcap_writer::fail(const char* what, int error) noexcept {
    if (!failed_) {
        failed_ = true;
        NDKSIM_ERROR("pcap capture {}: {} failed: {}; later frames are not recorded", path_, what,
                     std::strerror(error));
    }
}

void pcap_writer::write(const flow& f, std::span<const std::byte> frame,
                        timing::sim_time when) noexcept {
    if (file_ == nullptr || failed_) {
        return;
    }
    std::array<std::byte, pcap_record_header_size + pcap_max_outer_size> h{};
    std::byte* outer = h.data() + pcap_record_header_size;
    const std::size_t outer_size = build_outer_headers(f, frame.size(), outer);
    if (f.src.v6 || f.dst.v6) {
        // RFC 8200 section 8.1: a UDP checksum of 0 is not allowed over IPv6, so compute it over
        // the pseudo header (addresses, upper-layer length, next header), UDP header and frame.
        std::byte* udp = outer + outer_size - udp_size;
        std::uint32_t sum = sum16(outer + ethernet_size + 8, 32);
        sum += static_cast<std::uint32_t>(udp_size + frame.size()) + 17;
        sum = sum16(udp, udp_size, sum);
        sum = sum16(frame.data(), frame.size(), sum);
        std::uint16_t c = fold(sum);
        store_be<2>(udp + 6, c == 0 ? 0xFFFF : c);
    }
    const std::uint64_t ns = when / 1'000;
    const auto captured = static_cast<std::uint32_t>(outer_size + frame.size());
    store_host<std::uint32_t>(h.data() + 0, static_cast<std::uint32_t>(ns / 1'000'000'000));
    store_host<std::uint32_t>(h.data() + 4, static_cast<std::uint32_t>(ns % 1'000'000'000));
    store_host<std::uint32_t>(h.data() + 8, captured);
    store_host<std::uint32_t>(h.data() + 12, captured);
    const std::size_t head = pcap_record_header_size + outer_size;
    if (std::fwrite(h.data(), 1, head, file_) != head ||
        std::fwrite(frame.data(), 1, frame.size(), file_) != frame.size()) {
        fail("write", errno);
        return;
    }
    ++records_;
}

bool pcap_writer::flush() noexcept {
    if (file_ == nullptr) {
        return !failed_;
    }
    if (std::fflush(file_) != 0) {
        fail("flush", errno);
    }
    return !failed_;
}

bool pcap_writer::close() noexcept {
    if (file_ == nullptr) {
        return !failed_;
    }
    flush();
    if (std::fclose(file_) != 0) {
        fail("close", errno);
    }
    file_ = nullptr;
    return !failed_;
}

}  // namespace ndksim::wire
