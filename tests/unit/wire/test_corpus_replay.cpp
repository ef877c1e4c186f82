// SPDX-License-Identifier: MIT
// Replays the fuzz corpus (fuzz/corpus/) through the fuzz target's entry point, and checks the
// expectation each seed's file name states:
//
//   <frame>__<description>             decode_frame gives <frame> (a decode_error name)
//   <frame>__cm-<cm>__<description>    ... and decode_cm of the frame gives <cm> (a cm_error name)
//
// Files with other names (inputs libFuzzer found) are replayed without an expectation. Run
// under ASan, this shows that no corpus input makes a decoder read outside its buffer.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "wire/cm_proto.hpp"
#include "wire/codec.hpp"
#include "wire_test_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace ndksim::wire {
namespace {

std::vector<std::byte> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
    std::vector<std::byte> out(raw.size());
    std::transform(raw.begin(), raw.end(), out.begin(),
                   [](char c) { return static_cast<std::byte>(c); });
    return out;
}

std::optional<decode_error> parse_decode_error(const std::string& name) {
    for (std::size_t i = 0; i < decode_error_count; ++i) {
        if (decode_error_name(static_cast<decode_error>(i)) == name) {
            return static_cast<decode_error>(i);
        }
    }
    return std::nullopt;
}

std::optional<cm_error> parse_cm_error(const std::string& name) {
    for (std::size_t i = 0; i < cm_error_count; ++i) {
        if (cm_error_name(static_cast<cm_error>(i)) == name) {
            return static_cast<cm_error>(i);
        }
    }
    return std::nullopt;
}

std::vector<std::filesystem::path> corpus_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(NDKSIM_FUZZ_CORPUS_DIR)) {
        if (entry.is_regular_file()) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

TEST(CorpusReplay, EverySeedMeetsTheExpectationInItsName) {
    const auto files = corpus_files();
    std::size_t with_expectation = 0;
    std::size_t ok_frames = 0;
    std::size_t cm_frames = 0;
    for (const auto& path : files) {
        const std::string name = path.stem().string();
        SCOPED_TRACE(name);
        const std::vector<std::byte> data = read_file(path);

        // Through the fuzz target (it aborts on a broken invariant).
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());

        const auto sep = name.find("__");
        if (sep == std::string::npos) {
            continue;
        }
        const auto frame_expect = parse_decode_error(name.substr(0, sep));
        if (!frame_expect) {
            continue;
        }
        ++with_expectation;
        const decode_result r = decode_frame(data, test::test_flow());
        EXPECT_EQ(decode_error_name(r.error), decode_error_name(*frame_expect));
        ok_frames += r.ok() ? 1 : 0;

        const std::string rest = name.substr(sep + 2);
        if (rest.rfind("cm-", 0) == 0) {
            const auto sep2 = rest.find("__");
            ASSERT_NE(sep2, std::string::npos);
            const auto cm_expect = parse_cm_error(rest.substr(3, sep2 - 3));
            ASSERT_TRUE(cm_expect.has_value());
            ASSERT_TRUE(r.ok());
            EXPECT_EQ(cm_error_name(decode_cm(r.packet).error), cm_error_name(*cm_expect));
            ++cm_frames;
        }
    }
    // The committed seeds: valid frames of several opcodes, every frame error, CM messages.
    EXPECT_GE(with_expectation, 20u);
    EXPECT_GE(ok_frames, 10u);
    EXPECT_GE(cm_frames, 4u);
}

TEST(CorpusReplay, EveryFrameErrorHasASeed) {
    std::vector<bool> seen(decode_error_count, false);
    for (const auto& path : corpus_files()) {
        const std::string name = path.stem().string();
        const auto sep = name.find("__");
        if (sep == std::string::npos) {
            continue;
        }
        if (const auto e = parse_decode_error(name.substr(0, sep))) {
            seen[static_cast<std::size_t>(*e)] = true;
        }
    }
    for (std::size_t i = 0; i < decode_error_count; ++i) {
        EXPECT_TRUE(seen[i]) << decode_error_name(static_cast<decode_error>(i));
    }
}

}  // namespace
}  // namespace ndksim::wire
