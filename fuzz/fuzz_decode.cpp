// SPDX-License-Identifier: MIT
// libFuzzer target for the wire decoders. Each input is one frame (BTH through ICRC) that
// arrived on the flow 127.0.0.1:4791 -> 127.0.0.2:4791. The input is decoded as it is, then
// again with its ICRC recomputed so that the checks behind the ICRC are reached too; frames
// that decode as CM datagrams go through the CM decoder, and the raw input is also decoded as
// a bare CM payload. Whatever decodes must re-encode to the same fields (decode -> encode ->
// decode is the identity); a difference or an out-of-bounds access is a finding.
//
// The unit test tests/unit/wire/test_corpus_replay.cpp links this file and replays
// fuzz/corpus/ through LLVMFuzzerTestOneInput, so the corpus is checked without libFuzzer.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "wire/cm_proto.hpp"
#include "wire/codec.hpp"
#include "wire/icrc.hpp"

namespace {

using namespace ndksim::wire;

flow corpus_flow() {
    flow f;
    f.src = ip_address::v4(127, 0, 0, 1);
    f.dst = ip_address::v4(127, 0, 0, 2);
    return f;
}

void require(bool condition) {
    if (!condition) {
        std::abort();
    }
}

void check_cm(std::span<const std::byte> payload) {
    const cm_decode_result c = decode_cm_payload(payload);
    if (!c.ok()) {
        return;
    }
    std::vector<std::byte> again(cm_mad_size);
    const cm_encode_result e = encode_cm_payload(c.message, again);
    require(e.ok());
    again.resize(e.size);
    const cm_decode_result c2 = decode_cm_payload(again);
    require(c2.ok() && c2.message == c.message);
}

void check_frame(std::span<const std::byte> frame, const flow& f) {
    const decode_result r = decode_frame(frame, f);
    if (!r.ok()) {
        return;
    }
    const decoded_packet& p = r.packet;
    require(p.info != nullptr && p.info->valid);
    require(p.payload.data() >= frame.data() &&
            p.payload.data() + p.payload.size() <= frame.data() + frame.size());
    require(p.header_size + p.payload.size() + p.headers.bth.pad_count + icrc_size == frame.size());

    std::vector<std::byte> again(frame.size());
    const encode_result e = encode_frame(p.headers, p.payload, f, again);
    require(e.ok() && e.frame_size == frame.size());
    const decode_result r2 = decode_frame(again, f);
    require(r2.ok() && r2.packet.headers == p.headers);

    if (is_cm_packet(p)) {
        check_cm(p.payload);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
    const flow f = corpus_flow();
    check_frame(input, f);
    if (size >= bth_size + icrc_size && size <= max_frame_size) {
        std::vector<std::byte> sealed(input.begin(), input.end());
        const std::size_t covered = size - icrc_size;
        store_icrc(sealed.data() + covered, compute_icrc(f, std::span(sealed).first(covered)));
        check_frame(sealed, f);
    }
    check_cm(input);
    return 0;
}
