// SPDX-License-Identifier: MIT
#include "mem/access.hpp"

#include <array>
#include <cstddef>

namespace ndksim::mem {
namespace {

constexpr std::array k_ops{
    op_info{access_op::local_read, "local_read", access::local_read, false, false},
    op_info{access_op::local_write, "local_write", access::local_write, false, true},
    op_info{access_op::remote_read, "remote_read", access::remote_read, true, false},
    op_info{access_op::remote_write, "remote_write", access::remote_write, true, true},
    op_info{access_op::read_sink, "read_sink", access::local_write | access::read_sink, false,
            true},
};

consteval bool ops_table_consistent() {
    for (std::size_t i = 0; i < k_ops.size(); ++i) {
        if (static_cast<std::size_t>(k_ops[i].op) != i) {
            return false;
        }
    }
    return true;
}
static_assert(ops_table_consistent(), "k_ops must be indexed by access_op");

struct flag_bit {
    std::uint32_t bit;
    access grants;
};

// REFERENCE.md 2.4: NDK_MR_FLAG_*. ALLOW_REMOTE_WRITE is 0x5; its distinct bit is 0x4.
constexpr std::array k_mr_bits{
    flag_bit{0x1, access::local_write},
    flag_bit{0x2, access::remote_read},
    flag_bit{0x4, access::remote_write | access::local_write},
    flag_bit{ndk_flags::mr_rdma_read_sink, access::read_sink},
};

// REFERENCE.md 2.3: NDK_OP_FLAG_*. ALLOW_REMOTE_WRITE is 0x30; its distinct bit is 0x20.
constexpr std::array k_op_bits{
    flag_bit{ndk_flags::op_allow_remote_read, access::remote_read},
    flag_bit{ndk_flags::op_allow_local_write, access::local_write},
    flag_bit{0x20, access::remote_write | access::local_write},
    flag_bit{ndk_flags::op_rdma_read_sink, access::read_sink},
};

template <std::size_t N>
constexpr access convert(const std::array<flag_bit, N>& table, std::uint32_t flags) noexcept {
    access r = access::local_read;
    for (const flag_bit& f : table) {
        if ((flags & f.bit) != 0) {
            r = r | f.grants;
        }
    }
    return normalize(r);
}

static_assert(convert(k_mr_bits, ndk_flags::mr_allow_remote_write) ==
              (access::local_read | access::local_write | access::remote_write));
static_assert(convert(k_op_bits, ndk_flags::op_allow_remote_write) ==
              (access::local_read | access::local_write | access::remote_write));
static_assert(convert(k_mr_bits, ndk_flags::mr_allow_local_read) == access::local_read);

}  // namespace

const op_info& op_traits(access_op op) noexcept {
    return k_ops[static_cast<std::size_t>(op)];
}

access required_rights(access_op op, bool read_sink_not_required) noexcept {
    const access r = op_traits(op).required;
    // REFERENCE.md rule 23: with RDMA_READ_SINK_NOT_REQUIRED the READ_SINK right is ignored.
    return read_sink_not_required ? (r & ~access::read_sink) : r;
}

bool rights_allow(access granted, access_op op, bool read_sink_not_required) noexcept {
    return has(granted, required_rights(op, read_sink_not_required));
}

access access_from_mr_flags(std::uint32_t flags) noexcept {
    return convert(k_mr_bits, flags);
}

access access_from_op_flags(std::uint32_t flags) noexcept {
    return convert(k_op_bits, flags);
}

}  // namespace ndksim::mem
