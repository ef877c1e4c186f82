// SPDX-License-Identifier: MIT
#include "threaded_pair/pair_side.hpp"

namespace ndksim::threaded {

void pair_side::on_cq(PVOID c, NTSTATUS s) {
    auto* self = static_cast<pair_side*>(c);
    // Drained and re-armed before taking the board's mutex: the CQ calls never block on the
    // test thread.
    NDK_RESULT_EX batch[16];
    std::vector<NDK_RESULT_EX> got;
    ULONG n = 0;
    while ((n = self->cq->Dispatch->NdkGetCqResultsEx(self->cq, batch, 16)) > 0) {
        got.insert(got.end(), batch, batch + n);
    }
    self->cq->Dispatch->NdkArmCq(self->cq, NDK_CQ_NOTIFY_ANY);
    std::lock_guard lock(self->b->m);
    self->b->touched();
    EXPECT_NT_SUCCESS(s);
    self->results.insert(self->results.end(), got.begin(), got.end());
    self->b->cv.notify_all();
}

void pair_side::on_disconnect(PVOID c) {
    auto* self = static_cast<pair_side*>(c);
    std::lock_guard lock(self->b->m);
    self->b->touched();
    ++self->disconnect_events;
    self->b->cv.notify_all();
}

}  // namespace ndksim::threaded
