// SPDX-License-Identifier: MIT
#pragma once
// A live responder to feed hostile frames into, for fuzzing (fuzz_live_responder.cpp under
// libFuzzer, live_responder_driver.cpp as a bounded run in ctest).
//
// Three adapters share one deterministic loop:
//   a 10.0.0.1 -- victim connection -- b 10.0.0.2 -- bystander connection -- c 10.0.0.3
// Every input is injected into b as a frame from a (or from a stranger). b holds a window
// registered for remote read and write between two canary pages, and a READ it issued to a that
// stays outstanding (a's link is cut and b runs no transport timer), so forged READ responses
// have a request to be matched against. After every input the harness checks that no byte of b
// outside its window changed, that the canaries hold, and that a SEND from c on the bystander
// connection still arrives intact. An input that kills the victim connection is allowed (it is
// the one the frame claims); the harness then builds it again.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <ndkpi.h>
#include <ndksim/ndksim.h>

namespace ndksim::fuzz {

class live_responder {
  public:
    /// Builds the three adapters and both connections; aborts with a message if it cannot.
    live_responder();
    ~live_responder();

    live_responder(const live_responder&) = delete;
    live_responder& operator=(const live_responder&) = delete;

    /// Feeds one input. Its first byte says how the rest is sent:
    ///   0: as it is, from a;  1: as it is, from a stranger (10.0.0.9);
    ///   2: aimed at b's victim QP at the PSN it expects next, a RETH's key set to the
    ///      window's and its address moved to within a page of it, ICRC recomputed;
    ///   3: aimed at b's victim QP with the input's own PSN, ICRC recomputed.
    /// Returns "" when every check held, otherwise what broke.
    std::string feed(std::span<const std::uint8_t> input);

    /// Inputs fed, and victim connections rebuilt after an input killed one.
    std::uint64_t inputs() const { return inputs_; }
    std::uint64_t rebuilt() const { return rebuilt_; }

  private:
    struct side {
        ndksim_adapter* nic = nullptr;
        NDK_ADAPTER* adapter = nullptr;
        NDK_PD* pd = nullptr;
        NDK_CQ* cq = nullptr;
        std::byte* bytes = nullptr;  ///< page-aligned, registered for local and remote access
        MDL* mdl = nullptr;
        NDK_MR* mr = nullptr;
        UINT32 token = 0;
    };
    struct link {
        NDK_QP* active = nullptr;   ///< on the connecting side
        NDK_QP* passive = nullptr;  ///< on b
        NDK_CONNECTOR* active_connector = nullptr;
        NDK_CONNECTOR* passive_connector = nullptr;
    };

    void make_side(side& s, const char* address, ULONG ack_timeout_us);
    NDK_QP* make_qp(side& s);
    void connect(side& from, link& l);
    void close_link(side& from, link& l);
    void build_victim();
    void drain_cq(side& s);
    std::vector<std::byte> aim(std::span<const std::uint8_t> frame, bool at_expected_psn) const;
    std::string check();
    bool victim_dead() const;

    ndksim_loop* loop_ = nullptr;
    side a_;
    side b_;
    side c_;
    NDK_LISTENER* listener_ = nullptr;
    USHORT port_ = 0;
    NDK_CONNECTOR* incoming_ = nullptr;
    link victim_;
    link bystander_;
    NDK_MR* window_mr_ = nullptr;  ///< b's window: the one page peers may read and write
    MDL* window_mdl_ = nullptr;
    UINT32 window_token_ = 0;
    std::uint64_t inputs_ = 0;
    std::uint64_t rebuilt_ = 0;
    std::uint32_t bystander_round_ = 0;

    static void on_connect(PVOID context, NDK_CONNECTOR* connector);
};

}  // namespace ndksim::fuzz
