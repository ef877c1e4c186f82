// SPDX-License-Identifier: MIT
// A socket wire's sync link (wire/sync_link.hpp) against a real sync domain: who becomes a peer
// (an address this adapter sent to, or whose frame matched), what is refused (a stranger's
// record, a record claiming frames never sent, a malformed one), that the first record to a new
// peer goes behind the frame that introduced this side, and that a peer that leaves is let go.

#include <gtest/gtest.h>

#include <future>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "timing/sync_domain.hpp"
#include "wire/socket_common.hpp"
#include "wire/sync_link.hpp"
#include "wire/sync_record.hpp"

namespace ndksim::wire {
namespace {

using timing::microseconds;
using timing::nanoseconds;
using timing::sync_domain;

constexpr ip_address k_peer = ip_address::v4(127, 0, 0, 2);
constexpr ip_address k_other = ip_address::v4(127, 0, 0, 3);
constexpr ip_address k_stranger = ip_address::v4(127, 0, 0, 9);

// The transport's side: records what the link queued, and where to.
struct recording_sender final : sync_link::sender {
    struct route_to final : transport::peer {
        explicit route_to(const ip_address& a) : address(a) {}
        ip_address address;
    };
    struct sent {
        ip_address to;
        sync_record record;
    };
    std::vector<sent> records;

    std::shared_ptr<transport::peer> route(const ip_address& address) override {
        return std::make_shared<route_to>(address);
    }
    void send_record(transport::peer& to, frame* f) override {
        sync_record r;
        EXPECT_EQ(sync_body::record,
                  decode_sync_record(std::span<const std::byte>(f->data, f->length), r));
        records.push_back({static_cast<route_to&>(to).address, r});
        frame_pool::release(f);
    }
};

sync_record record(timing::sim_time promise, std::uint64_t seen, std::uint64_t sent) {
    sync_record r;
    r.promise = promise;
    r.frames_seen = seen;
    r.frames_sent = sent;
    return r;
}

// A domain, its link, and a way to run on its engine thread (peers are touched there only).
class SyncLink : public ::testing::Test {
  protected:
    SyncLink()
        : link_(
              std::make_unique<sync_link>(domain_, "udp test", nanoseconds(65), out_, counters_)) {}

    ~SyncLink() override {
        on_engine([&] { link_->leave(); });
    }

    template <class F>
    void on_engine(F fn) {
        std::promise<void> done;
        boost::asio::post(domain_.sched().io(), [&] {
            fn();
            done.set_value();
        });
        done.get_future().wait();
    }

    recording_sender out_;  // outlives the domain, whose engine may still promise through it
    socket_counters counters_;
    sync_domain domain_{sync_domain::options{}};
    std::unique_ptr<sync_link> link_;
};

TEST_F(SyncLink, AStrangersRecordIsRefusedAndBoundsNothing) {
    on_engine([&] { link_->record_read(k_stranger, sync_body::record, record(0, 0, 0)); });
    EXPECT_EQ(counters_.sync_records_refused.load(), 1U);
    EXPECT_EQ(counters_.sync_records_received.load(), 0U);
    EXPECT_EQ(domain_.counters().peers, 0U);
    EXPECT_EQ(domain_.horizon(), std::numeric_limits<timing::sim_time>::max());
    EXPECT_FALSE(link_->is_peer(k_stranger));
}

TEST_F(SyncLink, ADestinationBecomesAPeerAndItsFirstRecordFollowsTheFrame) {
    on_engine([&] { link_->frame_sent(k_peer, microseconds(1)); });
    EXPECT_TRUE(link_->is_peer(k_peer));
    EXPECT_EQ(domain_.counters().peers, 1U);
    // It knew nothing of this side before that frame: no record may overtake it.
    EXPECT_TRUE(out_.records.empty());
    on_engine([&] { domain_.publish(); });
    ASSERT_EQ(out_.records.size(), 1U);
    EXPECT_EQ(out_.records[0].to, k_peer);
    EXPECT_EQ(out_.records[0].record.frames_sent, 1U) << "sent behind the frame";
    // Until it speaks, nothing runs past one lookahead.
    EXPECT_EQ(domain_.horizon(), nanoseconds(65));
}

TEST_F(SyncLink, ARecordClaimingFramesNeverSentIsRefused) {
    on_engine([&] {
        link_->frame_sent(k_peer, microseconds(1));
        link_->record_read(k_peer, sync_body::record, record(microseconds(5), 2, 0));
    });
    EXPECT_EQ(counters_.sync_records_refused.load(), 1U);
    EXPECT_EQ(domain_.horizon(), nanoseconds(65))
        << "it has not spoken: the refused record moved nothing";
    on_engine(
        [&] { link_->record_read(k_peer, sync_body::record, record(microseconds(5), 1, 0)); });
    EXPECT_EQ(counters_.sync_records_received.load(), 1U);
    EXPECT_EQ(domain_.horizon(), microseconds(5) + nanoseconds(65));
}

TEST_F(SyncLink, AMalformedRecordIsRefused) {
    on_engine([&] {
        link_->frame_sent(k_peer, microseconds(1));
        link_->record_read(k_peer, sync_body::bad_record, sync_record{});
    });
    EXPECT_EQ(counters_.sync_records_refused.load(), 1U);
    EXPECT_EQ(domain_.counters().sync_messages_received, 0U);
}

TEST_F(SyncLink, AFrameThatMatchedMakesItsSenderAPeer) {
    on_engine([&] {
        link_->confirm(k_other);
        // The sender counts the frame that introduced it; this side read none yet (it came
        // before the peer existed), so the record's count stands for it.
        link_->record_read(k_other, sync_body::record, record(microseconds(3), 0, 1));
        domain_.publish();
    });
    EXPECT_TRUE(link_->is_peer(k_other));
    EXPECT_EQ(counters_.sync_records_received.load(), 1U);
    EXPECT_EQ(domain_.horizon(), microseconds(3) + nanoseconds(65));
    ASSERT_FALSE(out_.records.empty());
    EXPECT_EQ(out_.records.back().record.frames_seen, 1U) << "the introducing frame, as read";
}

TEST_F(SyncLink, APeerThatLeavesIsLetGoAndFramesToItAreDropped) {
    on_engine([&] {
        link_->frame_sent(k_peer, microseconds(1));
        sync_record bye;
        bye.leaving = true;
        bye.promise = std::numeric_limits<timing::sim_time>::max();
        link_->record_read(k_peer, sync_body::record, bye);
    });
    EXPECT_FALSE(link_->is_peer(k_peer));
    EXPECT_EQ(domain_.counters().peers, 0U);
    EXPECT_EQ(domain_.counters().peers_lost, 0U) << "it left; it was not lost";
    bool may = true;
    on_engine([&] { may = link_->may_send(k_peer); });
    EXPECT_FALSE(may);
    EXPECT_EQ(counters_.frames_to_lost_peers.load(), 1U);
}

TEST_F(SyncLink, LeavingTellsEveryPeerAndStopsListening) {
    on_engine([&] {
        link_->frame_sent(k_peer, microseconds(1));
        link_->confirm(k_other);
        out_.records.clear();
        link_->leave();
        link_->record_read(k_peer, sync_body::record, record(microseconds(5), 1, 0));
    });
    ASSERT_EQ(out_.records.size(), 2U);
    for (const auto& r : out_.records) {
        EXPECT_TRUE(r.record.leaving);
    }
    EXPECT_EQ(domain_.counters().peers, 0U);
    EXPECT_EQ(counters_.sync_records_received.load(), 0U) << "nothing is taken after leaving";
}

}  // namespace
}  // namespace ndksim::wire
