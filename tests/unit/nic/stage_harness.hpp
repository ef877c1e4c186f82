// SPDX-License-Identifier: MIT
#pragma once
// One NIC engine driven stage by stage, for the unit tests of the protocol stages: a device on
// a deterministic loop, an engine whose hardware model takes no time (zero_cost_hardware) and
// whose link only captures what it is given, and one QP made "connected" by hand to a peer
// that exists only as an address. A test hands request or response packets straight to the
// responder or the completer (on_request / on_response, no frame demux), or posts work
// requests and runs the requester, then reads back the frames the stage sent and the
// completions it queued.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "core/adapter.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/mr.hpp"
#include "core/pd.hpp"
#include "core/qp.hpp"
#include "nic/engine.hpp"
#include "nic/pipeline.hpp"
#include "nic/post.hpp"
#include "nic/qp_context.hpp"
#include "timing/scheduler.hpp"
#include "unit/mem/mem_test_support.hpp"
#include "wire/codec.hpp"

namespace ndksim::nic::test {

/// A frame the engine sent, decoded again.
struct sent_frame {
    timing::sim_time departure = 0;
    std::vector<std::byte> bytes;
    wire::decoded_packet packet;  ///< points into `bytes`
};

/// The engine's link: keeps a copy of every frame sent and delivers nothing. It reports input
/// waiting unread (transport::input_pending) while `unread` is set, a peer whose engine is
/// behind (transport::output_pending) while `behind` is, one that has not run what it had due
/// before a time after `peer_mark` (transport::peer_behind), and a timeline shared with
/// its receivers (transport::shares_timeline) while `shared` is. With `lends` as well, it lends
/// (transport::lends_payload, no ICRC) and keeps each lent frame in `held`, in flight, until
/// the test releases it.
class capturing_link final : public wire::transport {
  public:
    capturing_link(const wire::ip_address& local, std::deque<sent_frame>& sent, const bool& unread,
                   const bool& behind, const timing::sim_time& peer_mark, const bool& shared,
                   const bool& lends, std::vector<wire::frame*>& held)
        : local_(local),
          sent_(sent),
          unread_(unread),
          behind_(behind),
          peer_mark_(peer_mark),
          shared_(shared),
          lends_(lends),
          held_(held) {}

    std::shared_ptr<peer> resolve(const wire::ip_address&) override {
        return std::make_shared<peer>();
    }
    void send(peer&, wire::frame* f, timing::sim_time departure) override {
        counters_.frames_sent.fetch_add(1);
        if (f->lender != nullptr) {
            held_.push_back(f);
            return;
        }
        sent_frame& s = sent_.emplace_back();
        s.departure = departure;
        s.bytes.assign(f->data, f->data + f->length);
        wire::frame_pool::release(f);
    }
    bool input_pending() const noexcept override { return unread_; }
    bool output_pending(const peer&) const noexcept override { return behind_; }
    bool peer_behind(const peer&, timing::sim_time before) const noexcept override {
        return peer_mark_ < before;
    }
    bool shares_timeline(const peer&) const noexcept override { return shared_; }
    bool lends_payload(const peer&) const noexcept override { return shared_ && lends_; }
    bool wants_icrc() const noexcept override { return !lends_; }
    const wire::ip_address& local_address() const noexcept override { return local_; }
    const wire::link_counters& counters() const noexcept override { return counters_; }

  private:
    wire::ip_address local_;
    std::deque<sent_frame>& sent_;
    const bool& unread_;
    const bool& behind_;
    const timing::sim_time& peer_mark_;
    const bool& shared_;
    const bool& lends_;
    std::vector<wire::frame*>& held_;
    wire::link_counters counters_;
};

class stage_harness : public ::testing::Test {
  protected:
    static constexpr std::uint32_t k_peer_qpn = 0x42;
    static constexpr std::size_t k_buffer = 128 * 1024;

    /// An engine configuration with the transport timer off (IB's infinite timeout), for the
    /// tests that run the loop dry without a peer to answer.
    static engine_config timer_off() {
        engine_config c;
        c.ack_timeout = 0;
        return c;
    }

    /// The one frame sent since the last look; fails unless exactly one was.
    wire::packet_headers one_sent() {
        std::deque<sent_frame> sent = take_sent();
        EXPECT_EQ(sent.size(), 1U);
        return sent.empty() ? wire::packet_headers{} : sent.front().packet.headers;
    }

    /// Creates the device, the engine and the connected QP; `cfg` is the engine's (made
    /// zero-cost); `ird`/`ord` the connection's read limits.
    void start(engine_config cfg = {}, std::uint32_t ird = 4, std::uint32_t ord = 4) {
        core::device_config d;
        d.name = "stage";
        d.address = "10.0.0.1";
        d.loop = &loop_;
        dev_ = std::make_unique<core::device>(std::move(d), core::connectx_like_limits());
        cfg.zero_cost_hardware = true;
        engine_ = std::make_unique<engine>(*dev_, std::move(cfg), [this](auto) {
            return std::make_unique<capturing_link>(local_, sent_, link_unread_, link_behind_,
                                                    link_peer_mark_, link_shared_, link_lends_,
                                                    held_);
        });
        handle_ = core::adapter::open(*dev_, core::adapter::k_highest_v2).detach();
        // Each creation's reference is the consumer's, as an NDK handle's is: the close gives
        // it up.
        core::ref<core::pd> pd;
        ASSERT_EQ(core::pd::create(*handle_, pd), status::success);
        pd_ = pd.detach();
        cq_ = core::cq::create(*handle_, 256, core::notify_fn{}).detach();
        const core::qp_params p{this, 64, 64, 4, 4, 64};
        core::ref<core::qp> qp;
        ASSERT_EQ(core::qp::create(*pd_, *cq_, *cq_, nullptr, p, qp), status::success);
        qp_ = qp.detach();
        engine_->attach_qp(*qp_);
        qp_context& ctx = context_of(*qp_);
        ctx.peer = engine_->link().resolve(peer_);
        ctx.flow = wire::flow{local_, peer_};
        ctx.peer_qpn = k_peer_qpn;
        ctx.ird = ird;
        ctx.ord = ord;
        qp_->set_state(core::qp_state::connected);
        // One region the peer may read and write, and that local SGEs may name.
        core::ref<core::mr> mr;
        ASSERT_EQ(core::mr::create(*pd_, false, mr), status::success);
        mr_ = mr.detach();
        memory_builder_ = std::make_unique<mem::test::mdl_builder>(dev_->memory().host());
        memory_builder_->add(buffer_.data(), k_buffer);
        ASSERT_EQ(
            dev_->memory().register_region(
                mr_->region(), memory_builder_->chain(), k_buffer,
                mem::access::local_write | mem::access::remote_read | mem::access::remote_write),
            status::success);
        token_ = dev_->memory().remote_token(mr_->region());
    }

    void TearDown() override {
        if (!dev_) {
            return;
        }
        release_held();
        loop_.run_until_idle();
        (void)qp_->close([] {});
        loop_.run_until_idle();
        (void)dev_->memory().deregister_region(mr_->region());
        for (core::object* o : {static_cast<core::object*>(mr_), static_cast<core::object*>(cq_),
                                static_cast<core::object*>(pd_)}) {
            (void)o->close([] {});
            loop_.run_until_idle();
        }
        memory_builder_.reset();
        handle_->close_blocking();
        loop_.run_until_idle();
        EXPECT_EQ(dev_->leaked_objects(), 0U);
        engine_.reset();
        dev_.reset();
    }

    engine& e() { return *engine_; }
    core::qp& q() { return *qp_; }
    qp_context& ctx() { return context_of(*qp_); }
    engine_counters& counters() { return engine_->counters(); }
    std::uint64_t address(std::size_t offset = 0) const { return buffer_.address() + offset; }

    /// An SGE over the registered buffer.
    core::sge sge(std::size_t offset, std::uint32_t length) const {
        return core::sge{address(offset), length, dev_->memory().local_token(mr_->region())};
    }

    /// Posts a transfer of `length` bytes at `offset` of the buffer (and the same offset of the
    /// peer's address space), with request context `id`.
    status post(core::wr_kind kind, std::uintptr_t id, std::size_t offset, std::uint32_t length,
                std::uint32_t flags = 0) {
        const core::sge s = sge(offset, length);
        transfer_args a;
        a.context = reinterpret_cast<void*>(id);
        a.sges = &s;
        a.sge_count = 1;
        a.flags = flags;
        a.remote_address = 0x10000 + offset;
        a.remote_token = 0x1234;
        return post_transfer(*engine_, *qp_, kind, a);
    }

    /// An ACK (or, with another syndrome, a NAK) for `psn`.
    void ack(std::uint32_t psn, std::uint8_t syndrome = wire::ack_syndrome()) {
        wire::packet_headers h;
        h.bth.op = wire::opcode::rc_ack;
        h.bth.psn = psn;
        h.aeth.syndrome = syndrome;
        response(h);
    }

    /// Runs every engine task that is due (the loop's time moves only for timers).
    void run() { loop_.run_until_idle(); }

    /// Hands the responder one request packet with `payload` (dest QP and flow filled in).
    void request(wire::packet_headers h, std::span<const std::byte> payload = {}) {
        h.bth.dest_qp = qp_->qpn();
        deliver(h, payload, true);
    }

    /// Hands the completer one response packet.
    void response(wire::packet_headers h, std::span<const std::byte> payload = {}) {
        h.bth.dest_qp = qp_->qpn();
        deliver(h, payload, false);
    }

    /// The frames sent so far, decoded; clears the capture.
    std::deque<sent_frame> take_sent() {
        for (sent_frame& s : sent_) {
            const wire::decode_result r =
                wire::decode_frame(s.bytes, wire::flow{local_, peer_}, false);
            EXPECT_TRUE(r.ok());
            s.packet = r.packet;
        }
        std::deque<sent_frame> out;
        out.swap(sent_);
        return out;
    }

    /// Gives the frames the link holds in flight back to their pool (as a receiver that
    /// consumed them would).
    void release_held() {
        for (wire::frame* f : held_) {
            wire::frame_pool::release(f);
        }
        held_.clear();
    }

    /// The completions queued so far.
    std::vector<core::completion> completions() {
        std::vector<core::completion> out;
        cq_->poll(256, [&](std::uint32_t, const core::completion& c) { out.push_back(c); });
        return out;
    }

    timing::scheduler loop_{timing::scheduler::options{timing::run_mode::deterministic,
                                                       timing::poll_policy::block, "stage"}};
    wire::ip_address local_ = wire::ip_address::v4(10, 0, 0, 1);
    wire::ip_address peer_ = wire::ip_address::v4(10, 0, 0, 2);
    std::deque<sent_frame> sent_;
    bool link_unread_ = false;  ///< the link reports input waiting unread (input_pending)
    bool link_behind_ = false;  ///< the link reports the peer's engine behind (output_pending)
    /// The peer engine's earliest event not yet run (transport::peer_behind): none by default.
    timing::sim_time link_peer_mark_ = timing::scheduler::progress_mark::k_none;
    bool link_shared_ = false;        ///< the link shares the sender's timeline (shares_timeline)
    bool link_lends_ = false;         ///< with link_shared_: the link lends (lends_payload)
    std::vector<wire::frame*> held_;  ///< lent frames the link holds in flight
    std::unique_ptr<core::device> dev_;
    std::unique_ptr<engine> engine_;
    core::adapter* handle_ = nullptr;
    core::pd* pd_ = nullptr;
    core::cq* cq_ = nullptr;
    core::qp* qp_ = nullptr;
    core::mr* mr_ = nullptr;
    mem::test::guarded_buffer buffer_{k_buffer};
    std::unique_ptr<mem::test::mdl_builder> memory_builder_;
    std::uint32_t token_ = 0;

  private:
    void deliver(const wire::packet_headers& h, std::span<const std::byte> payload, bool req) {
        std::byte buffer[wire::k_max_frame_bytes];
        const std::span<std::byte> frame(buffer, sizeof buffer);
        const wire::encode_result layout = wire::encode_headers(h, payload.size(), frame);
        ASSERT_TRUE(layout.ok());
        std::copy(payload.begin(), payload.end(), layout.payload(frame).begin());
        const std::size_t length = wire::finish_frame(frame, layout, wire::flow{peer_, local_});
        const wire::decode_result r =
            wire::decode_frame(frame.first(length), wire::flow{peer_, local_}, false);
        ASSERT_TRUE(r.ok()) << wire::decode_error_name(r.error);
        if (req) {
            on_request(*engine_, *qp_, r.packet);
        } else {
            on_response(*engine_, *qp_, r.packet);
        }
    }
};

}  // namespace ndksim::nic::test
