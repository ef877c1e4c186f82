// SPDX-License-Identifier: MIT
#pragma once
// Access rights, the operations the NIC performs on host memory, the rights each operation
// needs, and the conversions from the NDKPI flag words (the api layer passes the raw ULONGs).

#include <cstdint>
#include <string_view>

namespace ndksim::mem {

/// A set of access rights recorded on a region, window or privileged token.
enum class access : std::uint8_t {
    none = 0,
    local_read = 1u << 0,
    local_write = 1u << 1,
    remote_read = 1u << 2,
    remote_write = 1u << 3,
    read_sink = 1u << 4,
};

/// Union of two rights sets.
constexpr access operator|(access a, access b) noexcept {
    return static_cast<access>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
/// Intersection of two rights sets.
constexpr access operator&(access a, access b) noexcept {
    return static_cast<access>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
/// The rights not in `a` (within the five defined rights).
constexpr access operator~(access a) noexcept {
    return static_cast<access>(~static_cast<std::uint8_t>(a) & 0x1Fu);
}

/// True when `set` contains every right in `wanted`.
constexpr bool has(access set, access wanted) noexcept {
    return (set & wanted) == wanted;
}

/// Rights that only a peer uses.
inline constexpr access remote_rights = access::remote_read | access::remote_write;

/// Rights of a privileged token: local read and write of logical addresses, never remote
/// (ddi/nc-ndkpi-ndk_fn_get_privileged_memory_region_token.md; REFERENCE.md rule 21). Reading
/// into its pages as an RDMA read sink is a local write.
inline constexpr access privileged_rights =
    access::local_read | access::local_write | access::read_sink;

/// What the NIC is about to do with host memory.
enum class access_op : std::uint8_t {
    local_read,    ///< gather a local SGE (send, write source, read-response source on the wire)
    local_write,   ///< scatter into a local SGE (receive)
    remote_read,   ///< serve a peer's RDMA read from a remote token range
    remote_write,  ///< place a peer's RDMA write into a remote token range
    read_sink,     ///< place an RDMA read response into a local SGE
};

/// Static facts about one access_op.
struct op_info {
    access_op op;
    std::string_view name;
    access required;   ///< rights needed; read_sink is dropped when the adapter does not need it
    bool remote;       ///< performed on behalf of a peer
    bool writes_host;  ///< stores into host memory (otherwise loads)
};

/// The facts about `op` (a table lookup).
const op_info& op_traits(access_op op) noexcept;

/// Rights an access of kind `op` needs. `read_sink_not_required` mirrors
/// NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED: when true, a read sink needs local write only and
/// the READ_SINK flag is accepted and ignored (REFERENCE.md rule 23).
access required_rights(access_op op, bool read_sink_not_required) noexcept;

/// True when `granted` allows an access of kind `op` (REFERENCE.md rules 21 and 23).
[[nodiscard]] bool rights_allow(access granted, access_op op, bool read_sink_not_required) noexcept;

/// Completes a rights set: local read is always granted (NDK_MR_FLAG_ALLOW_LOCAL_READ is 0), and
/// remote write implies local write (the NDK remote-write flag values contain the local-write bit,
/// REFERENCE.md 2.3/2.4 and rule 19).
constexpr access normalize(access rights) noexcept {
    access r = rights | access::local_read;
    if (has(r, access::remote_write)) {
        r = r | access::local_write;
    }
    return r;
}

/// NDK flag values this module interprets (REFERENCE.md 2.3 NDK_OP_FLAG_*, 2.4 NDK_MR_FLAG_*).
/// Copied here as plain numbers so that mem never includes the C ABI headers.
namespace ndk_flags {
inline constexpr std::uint32_t mr_allow_local_read = 0x00000000;
inline constexpr std::uint32_t mr_allow_local_write = 0x00000001;
inline constexpr std::uint32_t mr_allow_remote_read = 0x00000002;
inline constexpr std::uint32_t mr_allow_remote_write = 0x00000005;  // includes local write (0x1)
inline constexpr std::uint32_t mr_rdma_read_sink = 0x00000008;
inline constexpr std::uint32_t mr_known = 0x0000000F;

inline constexpr std::uint32_t op_allow_remote_read = 0x00000008;
inline constexpr std::uint32_t op_allow_local_write = 0x00000010;
inline constexpr std::uint32_t op_allow_remote_write = 0x00000030;  // includes local write (0x10)
inline constexpr std::uint32_t op_rdma_read_sink = 0x00000080;
inline constexpr std::uint32_t op_access_bits = 0x000000B8;
}  // namespace ndk_flags

/// False when an NDK_MR_FLAG_* word asks for remote write without local write: the distinct
/// remote-write bit 0x4 without 0x1. IBA memory registration requires local write with remote
/// write, and verbs providers refuse the combination (ibv_reg_mr(3): EINVAL), so the api layer
/// answers STATUS_INVALID_PARAMETER (docs/rules-beyond-reference.md).
constexpr bool mr_write_flags_consistent(std::uint32_t flags) noexcept {
    return (flags & ndk_flags::mr_allow_remote_write) !=
           (ndk_flags::mr_allow_remote_write & ~ndk_flags::mr_allow_local_write);
}

/// The same rule for an NDK_OP_FLAG_* word of NdkFastRegister and NdkBind: bit 0x20 without 0x10.
constexpr bool op_write_flags_consistent(std::uint32_t flags) noexcept {
    return (flags & ndk_flags::op_allow_remote_write) !=
           (ndk_flags::op_allow_remote_write & ~ndk_flags::op_allow_local_write);
}

/// Rights of an NdkRegisterMr `Flags` word (NDK_MR_FLAG_*). Bit 0x4 (the distinct bit of
/// ALLOW_REMOTE_WRITE) grants remote and local write; bits outside mr_known are ignored (the
/// api layer may reject them first). The result is normalized.
access access_from_mr_flags(std::uint32_t flags) noexcept;

/// Rights of a work-request `Flags` word (NDK_OP_FLAG_* of NdkFastRegister and NdkBind). Bit 0x20
/// (the distinct bit of ALLOW_REMOTE_WRITE) grants remote and local write; non-access flags
/// (SILENT_SUCCESS, READ_FENCE, DEFER, ...) are ignored. The result is normalized.
access access_from_op_flags(std::uint32_t flags) noexcept;

}  // namespace ndksim::mem
