// SPDX-License-Identifier: MIT
#include "reliability_support.hpp"

#include <cstdint>
#include <vector>

namespace ndksim::testkit {
namespace {

constexpr ULONG k_flags =
    NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;

enum class op_kind : std::uint8_t { write, read, send };

std::byte pattern(std::uint64_t op, std::size_t j) {
    return static_cast<std::byte>(op * 0x9E + j * 13 + (j >> 8));
}

void fill_pattern(std::byte* p, std::uint64_t op, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        p[j] = pattern(op, j);
    }
}

bool has_pattern(const std::byte* p, std::uint64_t op, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        if (p[j] != pattern(op, j)) {
            return false;
        }
    }
    return true;
}

void* context_of_op(std::uint64_t op) {
    return reinterpret_cast<void*>(op + 1);
}

}  // namespace

void Reliability::SetUp() {
    RcPair::SetUp();
    a_source_ = register_buffer(a_, k_area, k_flags);
    a_sink_ = register_buffer(a_, k_area, k_flags);
    b_target_ = register_buffer(b_, k_area, k_flags);
    b_receive_ = register_buffer(b_, k_area, k_flags);
    at_teardown([this] {
        release_buffer(a_, a_source_);
        release_buffer(a_, a_sink_);
        release_buffer(b_, b_target_);
        release_buffer(b_, b_receive_);
    });
}

void Reliability::set_faults(ULONG drop, ULONG duplicate, ULONG reorder, ULONG corrupt,
                             ULONG64 seed) {
    ndksim_link_faults f{};
    f.drop_ppm = drop;
    f.duplicate_ppm = duplicate;
    f.reorder_ppm = reorder;
    f.corrupt_ppm = corrupt;
    f.seed = seed;
    ASSERT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &f));
    f.seed = seed == 0 ? 0 : seed + 1;
    ASSERT_NT_SUCCESS(ndksim_adapter_set_faults(b_.nic, &f));
}

void Reliability::run_mixed(std::uint32_t ops, std::uint64_t seed) {
    struct posted_op {
        op_kind kind;
        std::uint32_t length;
        std::uint64_t send_index;
    };
    std::array<posted_op, k_window> ring{};
    std::vector<std::uint64_t> send_ops;  // op number of each send, by send index
    workload_rng rng{seed};
    std::uint64_t posted = 0;
    std::uint64_t completed = 0;
    std::uint64_t receives = 0;

    const auto drain_receives = [&]() -> bool {
        NDK_RESULT_EX r[16];
        for (;;) {
            const ULONG n = b_.cq->Dispatch->NdkGetCqResultsEx(b_.cq, r, 16);
            for (ULONG i = 0; i < n; ++i) {
                if (r[i].Status != STATUS_SUCCESS ||
                    r[i].RequestContext != context_of_op(receives) || receives >= send_ops.size()) {
                    ADD_FAILURE() << "receive " << receives << ": " << status_string(r[i].Status)
                                  << ", context " << r[i].RequestContext;
                    return false;
                }
                const std::uint64_t op = send_ops[receives];
                const posted_op& p = ring[op % k_window];
                const std::byte* data = b_receive_.bytes + (receives % k_window) * k_slot;
                if (r[i].BytesTransferred != p.length || !has_pattern(data, op, p.length)) {
                    ADD_FAILURE() << "receive " << receives << " (op " << op << ") carries "
                                  << r[i].BytesTransferred << " bytes, not the " << p.length
                                  << " sent, or other data";
                    return false;
                }
                ++receives;
            }
            if (n < 16) {
                return true;
            }
        }
    };

    const auto post_one = [&]() -> bool {
        const std::uint64_t op = posted;
        const std::size_t slot = op % k_window;
        const std::uint32_t size_class = rng.below(100);
        const std::uint32_t length = size_class < 80   ? 1 + rng.below(256)
                                     : size_class < 95 ? 1 + rng.below(4096)
                                                       : 1 + rng.below(65536);
        const auto kind = static_cast<op_kind>(rng.below(3));
        ring[slot] = posted_op{kind, length, 0};
        NTSTATUS s = STATUS_SUCCESS;
        NDK_QP* qp = a_.qp;
        switch (kind) {
            case op_kind::write: {
                fill_pattern(a_source_.bytes + slot * k_slot, op, length);
                NDK_SGE sge = a_source_.sge(slot * k_slot, length);
                s = qp->Dispatch->NdkWrite(qp, context_of_op(op), &sge, 1,
                                           b_target_.address() + slot * k_slot,
                                           b_target_.remote_token, 0);
                break;
            }
            case op_kind::read: {
                fill_pattern(b_target_.bytes + slot * k_slot, op, length);
                std::memset(a_sink_.bytes + slot * k_slot, 0, length);
                NDK_SGE sge = a_sink_.sge(slot * k_slot, length);
                s = qp->Dispatch->NdkRead(qp, context_of_op(op), &sge, 1,
                                          b_target_.address() + slot * k_slot,
                                          b_target_.remote_token, 0);
                break;
            }
            case op_kind::send: {
                const std::uint64_t index = send_ops.size();
                ring[slot].send_index = index;
                send_ops.push_back(op);
                // The receive goes first, so the send never meets "receiver not ready".
                NDK_SGE rsge = b_receive_.sge((index % k_window) * k_slot, k_slot);
                s = b_.qp->Dispatch->NdkReceive(b_.qp, context_of_op(index), &rsge, 1);
                if (s != STATUS_SUCCESS) {
                    break;
                }
                fill_pattern(a_source_.bytes + slot * k_slot, op, length);
                NDK_SGE sge = a_source_.sge(slot * k_slot, length);
                s = qp->Dispatch->NdkSend(qp, context_of_op(op), &sge, 1, 0);
                break;
            }
        }
        if (s != STATUS_SUCCESS) {
            ADD_FAILURE() << "posting op " << op << " failed inline: " << status_string(s);
            return false;
        }
        ++posted;
        return true;
    };

    const auto check = [&](const NDK_RESULT_EX& r) -> bool {
        const std::uint64_t op = completed;
        const posted_op& p = ring[op % k_window];
        if (r.RequestContext != context_of_op(op)) {
            ADD_FAILURE() << "completion out of order or repeated: expected op " << op
                          << ", got context " << r.RequestContext;
            return false;
        }
        if (r.Status != STATUS_SUCCESS) {
            ADD_FAILURE() << "op " << op << " completed with " << status_string(r.Status);
            return false;
        }
        const std::size_t offset = (op % k_window) * k_slot;
        bool data_ok = true;
        if (p.kind == op_kind::write) {
            data_ok = has_pattern(b_target_.bytes + offset, op, p.length);
        } else if (p.kind == op_kind::read) {
            data_ok = has_pattern(a_sink_.bytes + offset, op, p.length);
        }
        if (!data_ok) {
            ADD_FAILURE() << "op " << op << " (kind " << static_cast<int>(p.kind) << ", "
                          << p.length << " bytes) completed without its data in place";
            return false;
        }
        ++completed;
        return true;
    };

    while (completed < ops) {
        if (!drain_receives()) {
            return;
        }
        while (posted < ops && posted - completed < k_window) {
            if (!post_one()) {
                return;
            }
        }
        NDK_RESULT_EX r[16];
        const ULONG n = a_.cq->Dispatch->NdkGetCqResultsEx(a_.cq, r, 16);
        for (ULONG i = 0; i < n; ++i) {
            if (!check(r[i])) {
                return;
            }
        }
        if (n == 0 && ndksim_loop_run_one(loop_) == FALSE) {
            ADD_FAILURE() << "the simulation went idle with " << posted - completed
                          << " operations outstanding (op " << completed << " next)";
            return;
        }
    }
    settle();
    ASSERT_TRUE(drain_receives());
    EXPECT_EQ(send_ops.size(), receives) << "every send landed in exactly one receive";
    EXPECT_TRUE(cq_empty(a_.cq)) << "a completion beyond the operations posted";
    EXPECT_TRUE(cq_empty(b_.cq)) << "a receive completion beyond the sends posted";
}

run_figures Reliability::figures() {
    run_figures f;
    f.sim_time = ndksim_loop_now(loop_);
    std::size_t i = 0;
    for (side* s : {&a_, &b_}) {
        nic::engine_counters& c = counters(*s);
        const wire::fault_counters& w = faults(*s);
        f.values[i++] = c.packets_sent.load();
        f.values[i++] = c.retransmitted_packets.load();
        f.values[i++] = c.ack_timeouts.load();
        f.values[i++] = c.acks_coalesced.load();
        f.values[i++] = c.duplicate_packets.load();
        f.values[i++] = w.dropped.load();
        f.values[i++] = w.duplicated.load() + w.reordered.load() * 1000;
    }
    return f;
}

}  // namespace ndksim::testkit
