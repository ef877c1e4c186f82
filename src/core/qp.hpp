// SPDX-License-Identifier: MIT
#pragma once
// A queue pair (NDK_QP): its PD, its receive and initiator CQs, an optional SRQ, the limits
// fixed at creation (ddi/nc-ndkpi-ndk_fn_create_qp.md, create_qp_with_srq.md), its two work
// queues, its QP number and its connection state. The engine keeps its per-QP pipeline state
// (PSNs, cursors, retry state) in the engine-state slot.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/object.hpp"
#include "core/receive_queue.hpp"
#include "core/send_queue.hpp"
#include "mem/ids.hpp"
#include "util/verifier.hpp"

namespace ndksim::core {

struct adapter_limits;
class pd;
class cq;
class srq;
class connector;

struct qp_params {
    void* qp_context = nullptr;             ///< returned in every NDK_RESULT of this QP
    std::uint32_t receive_queue_depth = 0;  ///< 0 with an SRQ
    std::uint32_t initiator_queue_depth = 0;
    std::uint32_t max_receive_request_sge = 0;
    std::uint32_t max_initiator_request_sge = 0;
    std::uint32_t inline_data_size = 0;  ///< [bytes]
};

/// Connection state of a QP, as work-request posting sees it (REFERENCE.md rule 10).
/// idle -> connecting -> connected -> error; error is final (a disconnected QP is not reused).
enum class qp_state : std::uint8_t {
    idle,        ///< created, not connected: initiator posts fail with connection_invalid
    connecting,  ///< Connect/Accept in progress: initiator posts still fail
    connected,   ///< traffic flows
    error,       ///< flushed, disconnected or failed: initiator posts fail, receives are flushed
};

/// Name of a state ("connected"), for logs.
const char* qp_state_name(qp_state s) noexcept;

/// Per-QP state owned by the NIC engine (src/nic); core only stores and destroys it.
class qp_engine_state {
  public:
    virtual ~qp_engine_state() = default;
};

class qp final : public object {
  public:
    /// NdkCreateQp / NdkCreateQpWithSrq limits (rule 11): each depth, SGE count and the inline
    /// size must be within NDK_ADAPTER_INFO, else invalid_parameter. A QP without an SRQ needs a
    /// receive queue depth of at least 1, and the CQs and SRQ must be on the PD's device (any
    /// of its adapter handles).
    [[nodiscard]] static status check_create(const adapter_limits& limits, const pd& owner,
                                             const cq& receive_cq, const cq& initiator_cq,
                                             const srq* shared_rq, const qp_params& p) noexcept;

    /// Creates the QP; it depends on its PD, both CQs and the SRQ (rule 6). Returns success,
    /// or insufficient_resources when the adapter has no free QP number.
    [[nodiscard]] static status create(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq,
                                       const qp_params& p, ref<qp>& out);

    const qp_params& params() const noexcept { return params_; }
    pd& owner_pd() const noexcept { return *pd_; }
    mem::pd_id memory_pd() const noexcept;
    cq& receive_cq() const noexcept { return *receive_cq_; }
    cq& initiator_cq() const noexcept { return *initiator_cq_; }
    srq* shared_rq() const noexcept { return srq_; }

    /// The QP number packets carry in their destination QP field (24 bits).
    std::uint32_t qpn() const noexcept { return qpn_; }

    /// The initiator queue.
    send_queue& sq() noexcept { return sq_; }

    /// The receive queue; nullptr for a QP created with an SRQ.
    receive_queue* rq() noexcept { return rq_ ? &*rq_ : nullptr; }

    /// The device's ids of the initiator queue and of the queue receives are posted to (the
    /// SRQ's with an SRQ), which the QP's completions carry (completion::queue).
    std::uint32_t initiator_queue_id() const noexcept { return initiator_queue_id_; }
    std::uint32_t receive_queue_id() const noexcept;

    qp_state state() const noexcept { return state_.load(std::memory_order_acquire); }
    void set_state(qp_state s) noexcept;

    /// The engine's per-QP state (nullptr until the engine attaches it).
    qp_engine_state* engine_state() const noexcept { return engine_.get(); }
    void set_engine_state(std::unique_ptr<qp_engine_state> s) noexcept { engine_ = std::move(s); }

    /// The connector bound by Connect/Accept, if any (REFERENCE.md section 9: QP -> connector).
    connector* bound_connector() const noexcept {
        return connector_.load(std::memory_order_acquire);
    }
    void set_bound_connector(connector* c) noexcept {
        connector_.store(c, std::memory_order_release);
    }

    /// The consumer serializes the posts of each queue (rule 8); the verifier checks it.
    verifier::serial_section initiator_section;
    verifier::serial_section receive_section;

  private:
    qp(pd& owner, cq& receive_cq, cq& initiator_cq, srq* shared_rq, const qp_params& p,
       std::uint32_t qpn);
    ~qp() override;
    void on_close_requested() override;

    // What every post and every received packet reads first, side by side (56 bytes): with
    // thousands of QPs a QP's state is cold at each packet, and each line it spans is a miss.
    // Not aligned to a cache line: an over-aligned QP goes through the allocator's aligned
    // path, which spread QPs irregularly and made the many-QP benchmark slower, not faster.
    std::atomic<qp_state> state_{qp_state::idle};
    std::uint32_t qpn_;
    std::uint32_t initiator_queue_id_;
    std::uint32_t receive_queue_id_;  // 0 with an SRQ
    std::unique_ptr<qp_engine_state> engine_;
    pd* pd_;
    cq* receive_cq_;
    cq* initiator_cq_;
    srq* srq_;
    // Then what a post reads next (the limits, the initiator queue's indices), in the lines
    // that follow.
    qp_params params_;
    send_queue sq_;
    std::atomic<connector*> connector_{nullptr};
    std::optional<receive_queue> rq_;
};

}  // namespace ndksim::core
