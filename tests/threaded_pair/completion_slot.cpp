// SPDX-License-Identifier: MIT
#include "threaded_pair/completion_slot.hpp"

namespace ndksim::threaded {

void completion_slot::on_request(PVOID c, NTSTATUS s) {
    auto* self = static_cast<completion_slot*>(c);
    std::lock_guard lock(self->b->m);
    self->b->touched();
    ++self->calls;
    self->status = s;
    self->b->cv.notify_all();
}

void completion_slot::on_create(PVOID c, NTSTATUS s, NDK_OBJECT_HEADER* o) {
    auto* self = static_cast<completion_slot*>(c);
    std::lock_guard lock(self->b->m);
    self->b->touched();
    ++self->calls;
    self->status = s;
    self->object = o;
    self->b->cv.notify_all();
}

}  // namespace ndksim::threaded
