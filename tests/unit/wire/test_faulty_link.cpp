// SPDX-License-Identifier: MIT
// The fault layer over a recording transport: each fault does what ndksim_link_faults says,
// frames always go back to their pool, corruption is always caught by the ICRC, and the same
// seed repeats the same faults.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "wire/faulty_link.hpp"
#include "wire/lent_frames.hpp"
#include "wire_test_support.hpp"

namespace ndksim::wire {
namespace {

/// Records what the fault layer hands on, then returns each frame to its pool.
class recording_transport final : public transport {
  public:
    struct sent {
        std::vector<std::byte> bytes;
        timing::sim_time departure;
    };
    std::vector<sent> frames;
    std::vector<bool> elided;  ///< frame::icrc_elided of each frame sent
    bool icrc = true;          ///< what wants_icrc() answers

    std::shared_ptr<peer> resolve(const ip_address&) override { return std::make_shared<peer>(); }
    void send(peer&, frame* f, timing::sim_time departure) override {
        frames.push_back(sent{std::vector<std::byte>(f->data, f->data + f->length), departure});
        elided.push_back(f->icrc_elided);
        frame_pool::release(f);
    }
    bool wants_icrc() const noexcept override { return icrc; }
    const ip_address& local_address() const noexcept override { return address_; }
    const link_counters& counters() const noexcept override { return counters_; }

  private:
    ip_address address_ = ip_address::v4(127, 0, 0, 1);
    link_counters counters_;
};

class FaultyLink : public ::testing::Test {
  protected:
    void build(const fault_settings& s) {
        link_ = std::make_unique<faulty_link>(s, [this](frame* f) {
            ++received_;
            frame_pool::release(f);
        });
        auto base = std::make_unique<recording_transport>();
        base_ = base.get();
        rx_ = link_->receiver();
        link_->attach(std::move(base));
        peer_ = link_->resolve(ip_address::v4(127, 0, 0, 2));
    }

    /// Sends a sealed 256-byte WRITE ONLY frame leaving at `departure`; `elided` marks it as
    /// built without its ICRC (frame::icrc_elided).
    void send(timing::sim_time departure = 1000, bool elided = false) {
        const std::vector<std::byte> bytes = sample_frame();
        frame* f = pool_->take();
        std::memcpy(f->data, bytes.data(), bytes.size());
        f->length = static_cast<std::uint32_t>(bytes.size());
        f->icrc_elided = elided;
        link_->send(*peer_, f, departure);
    }

    static std::vector<std::byte> sample_frame() {
        const auto payload = test::pattern(256);
        return test::make_frame(test::sample_headers(opcode::rc_write_only), payload);
    }

    /// Frames taken from the pool and not returned (the pool must get every frame back).
    std::size_t frames_out() {
        // Take everything the pool holds: a frame not returned is one that was never freed.
        std::vector<frame*> taken;
        const std::size_t allocated = pool_->allocated();
        for (std::size_t i = 0; i < allocated; ++i) {
            taken.push_back(pool_->take());
        }
        const std::size_t grown = pool_->allocated() - allocated;
        for (frame* f : taken) {
            frame_pool::release(f);
        }
        return grown;
    }

    std::shared_ptr<frame_pool> pool_ = frame_pool::create(8);
    std::unique_ptr<faulty_link> link_;
    recording_transport* base_ = nullptr;
    transport::receive_fn rx_;
    std::shared_ptr<transport::peer> peer_;
    int received_ = 0;
};

fault_settings with_seed(std::uint64_t seed) {
    fault_settings s;
    s.seed = seed;
    return s;
}

TEST_F(FaultyLink, APerfectLinkPassesEveryFrameUnchanged) {
    build(with_seed(1));
    send(500);
    ASSERT_EQ(1U, base_->frames.size());
    EXPECT_EQ(sample_frame(), base_->frames[0].bytes);
    EXPECT_EQ(500U, base_->frames[0].departure);
}

TEST_F(FaultyLink, ALentFrameCarriesItsOwnPayloadWhileFramesMayBeHeldCopiedOrCorrupted) {
    // A lent frame (lent_frames.hpp) reads the sender's memory later than it left; a frame the
    // link may hold back, copy or corrupt copies its payload in first, and on a perfect link
    // it stays lent.
    const std::vector<std::byte> whole = sample_frame();
    const std::vector<std::byte> payload = test::pattern(256);
    const std::uint32_t offset = static_cast<std::uint32_t>(whole.size() - icrc_size - 256);
    fault_settings delayed = with_seed(1);
    delayed.delay_ps = 5000;
    fault_settings duplicated = with_seed(1);
    duplicated.duplicate_ppm = 1;
    fault_settings reordered = with_seed(1);
    reordered.reorder_ppm = 1;
    fault_settings corrupted = with_seed(1);
    corrupted.corrupt_ppm = 1;
    for (const fault_settings& s : {with_seed(1), delayed, duplicated, reordered, corrupted}) {
        build(s);
        lent_frames lent;
        frame* f = pool_->take();
        std::memcpy(f->data, whole.data(), whole.size());
        std::memset(f->data + offset, 0, 256);
        f->length = static_cast<std::uint32_t>(whole.size());
        lent.lend(*f, payload.data(), offset, 256, 1);
        link_->send(*peer_, f, 100);
        ASSERT_EQ(1U, base_->frames.size());
        const bool perfect =
            s.delay_ps == 0 && s.duplicate_ppm == 0 && s.reorder_ppm == 0 && s.corrupt_ppm == 0;
        EXPECT_EQ(base_->frames[0].bytes == whole, !perfect)
            << "the frame holds its payload exactly when a fault may touch it";
        EXPECT_TRUE(lent.empty());
        EXPECT_EQ(0U, frames_out());
    }
}

TEST_F(FaultyLink, DroppedFramesGoBackToTheirPool) {
    fault_settings s = with_seed(1);
    s.drop_ppm = k_fault_ppm_max;
    build(s);
    for (int i = 0; i < 20; ++i) {
        send();
    }
    EXPECT_TRUE(base_->frames.empty());
    EXPECT_EQ(20U, link_->faults().dropped.load());
    EXPECT_EQ(0U, frames_out());
}

TEST_F(FaultyLink, DuplicatesAreSecondFramesWithTheSameBytes) {
    fault_settings s = with_seed(1);
    s.duplicate_ppm = k_fault_ppm_max;
    build(s);
    send(700);
    ASSERT_EQ(2U, base_->frames.size());
    EXPECT_EQ(base_->frames[0].bytes, base_->frames[1].bytes);
    EXPECT_EQ(700U, base_->frames[1].departure);
    EXPECT_EQ(1U, link_->faults().duplicated.load());
    EXPECT_EQ(0U, frames_out());
}

TEST_F(FaultyLink, ReorderedFramesLeaveLaterByTheReorderDelay) {
    fault_settings s = with_seed(1);
    s.reorder_ppm = k_fault_ppm_max;
    build(s);
    send(1000);
    ASSERT_EQ(1U, base_->frames.size());
    EXPECT_EQ(1000U + k_default_reorder_delay, base_->frames[0].departure);
    s.reorder_delay_ps = 3'000'000;
    s.delay_ps = 250;
    link_->configure(s);
    send(1000);
    EXPECT_EQ(1000U + 250U + 3'000'000U, base_->frames[1].departure);
    EXPECT_EQ(2U, link_->faults().reordered.load());
    EXPECT_EQ(1U, link_->faults().delayed.load());
}

TEST_F(FaultyLink, EveryCorruptedFrameFailsItsIcrcAndNothingElse) {
    fault_settings s = with_seed(3);
    s.corrupt_ppm = k_fault_ppm_max;
    build(s);
    for (int i = 0; i < 500; ++i) {
        send();
    }
    ASSERT_EQ(500U, base_->frames.size());
    const std::vector<std::byte> original = sample_frame();
    for (const auto& sent : base_->frames) {
        int bits = 0;
        for (std::size_t i = 0; i < original.size(); ++i) {
            bits += __builtin_popcount(std::to_integer<unsigned>(sent.bytes[i] ^ original[i]));
        }
        EXPECT_EQ(1, bits);
        const decode_result r = decode_frame(sent.bytes, test::test_flow());
        EXPECT_EQ(decode_error::bad_icrc, r.error);
    }
    EXPECT_EQ(500U, link_->faults().corrupted.load());
}

// A sender leaves the ICRC out only when the link says nothing can change the frame; while
// corruption is on the fault layer says otherwise, so every corrupted frame carries an ICRC
// the receiver checks.
TEST_F(FaultyLink, AsksForTheIcrcWhileCorruptionIsOn) {
    build(with_seed(1));
    base_->icrc = false;
    EXPECT_FALSE(link_->wants_icrc());
    fault_settings s = with_seed(1);
    s.corrupt_ppm = 1;
    link_->configure(s);
    EXPECT_TRUE(link_->wants_icrc());
    base_->icrc = true;
    link_->configure(with_seed(1));
    EXPECT_TRUE(link_->wants_icrc());
}

// A frame built without its ICRC before corruption was turned on (a consumer thread changed
// the settings meanwhile) is passed intact: a flipped bit nobody can detect would hand corrupt
// data to the receiver as good.
TEST_F(FaultyLink, AFrameWithoutItsIcrcIsNeverCorrupted) {
    fault_settings s = with_seed(3);
    s.corrupt_ppm = k_fault_ppm_max;
    s.duplicate_ppm = k_fault_ppm_max;
    build(s);
    send(1000, true);
    ASSERT_EQ(2U, base_->frames.size());
    EXPECT_EQ(sample_frame(), base_->frames[0].bytes);
    EXPECT_EQ(sample_frame(), base_->frames[1].bytes);
    EXPECT_TRUE(base_->elided[0]) << "the duplicate keeps the mark";
    EXPECT_TRUE(base_->elided[1]);
    EXPECT_EQ(0U, link_->faults().corrupted.load());
}

TEST_F(FaultyLink, ACutLinkLosesFramesBothWays) {
    build(with_seed(1));
    link_->cut(true);
    send();
    EXPECT_TRUE(base_->frames.empty());
    rx_(pool_->take());
    EXPECT_EQ(0, received_);
    EXPECT_EQ(1U, link_->faults().cut_sent.load());
    EXPECT_EQ(1U, link_->faults().cut_received.load());
    link_->cut(false);
    send();
    rx_(pool_->take());
    EXPECT_EQ(1U, base_->frames.size());
    EXPECT_EQ(1, received_);
    EXPECT_EQ(0U, frames_out());
}

TEST_F(FaultyLink, TheSameSeedGivesTheSameFaults) {
    fault_settings s = with_seed(77);
    s.drop_ppm = 300'000;
    s.duplicate_ppm = 200'000;
    s.reorder_ppm = 200'000;
    const auto run = [&] {
        build(s);
        for (int i = 0; i < 200; ++i) {
            send(static_cast<timing::sim_time>(i));
        }
        std::vector<timing::sim_time> departures;
        for (const auto& f : base_->frames) {
            departures.push_back(f.departure);
        }
        return departures;
    };
    const auto first = run();
    const auto second = run();
    EXPECT_EQ(first, second);
    s.seed = 78;
    EXPECT_NE(first, run());
}

}  // namespace
}  // namespace ndksim::wire
