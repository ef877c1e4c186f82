// SPDX-License-Identifier: MIT
#pragma once
// The SGE cursor: walks a scatter-gather list (local SGEs, or a single remote range) and moves
// payload between it and a NIC-side buffer, in host-contiguous runs (one memmove per run, never
// per byte), crossing page and SGE boundaries. Every SGE goes through the lookup once, over its
// whole length, before any of its bytes move, so a refused SGE is never touched; bytes of
// earlier SGEs may already have moved (use validate() first for all-or-nothing over a list).
// Zero-length SGEs are skipped without a lookup.
//
// A cursor keeps its position between calls, so the engine can move a message packet by
// packet, each packet under its own read_guard; when a control operation ran in between (the
// unit's generation moved), the current SGE is looked up again before more bytes move.

#include <cstddef>
#include <cstdint>
#include <span>

#include "mem/access.hpp"
#include "mem/ids.hpp"
#include "mem/lookup.hpp"

namespace ndksim::mem {

class translation_unit;
class read_guard;

/// One scatter-gather element (the fields of NDK_SGE, or a remote address/length/token).
struct sge {
    std::uint64_t address = 0;  ///< virtual address, or logical address with the privileged token
    std::uint32_t length = 0;   ///< bytes
    std::uint32_t token = 0;    ///< memory token
};

/// Outcome of a cursor operation.
struct copy_result {
    fault failed = fault::none;      ///< first refusal; none on success
    std::uint64_t bytes = 0;         ///< bytes moved by this call
    std::uint32_t cache_misses = 0;  ///< translation-cache misses of the lookups this call made
    std::size_t sge_index = 0;       ///< index of the refused SGE when failed != none

    bool ok() const noexcept { return failed == fault::none; }
    status st() const noexcept { return fault_status(failed); }
};

class sge_cursor {
  public:
    /// A cursor over `list` for accesses of kind `op` on behalf of a QP of PD `pd`. The list and
    /// the unit must outlive the cursor.
    sge_cursor(const translation_unit& unit, pd_id pd, access_op op,
               std::span<const sge> list) noexcept;

    /// The same cursor over a list whose accesses the translation cache has already seen: its
    /// lookups check again without touching the cache (`touch_cache` false). The engine uses
    /// one to read a payload it validated earlier, so the modelled misses count once.
    sge_cursor(const translation_unit& unit, pd_id pd, access_op op, std::span<const sge> list,
               bool touch_cache) noexcept;

    /// Looks up every SGE from the current position on without moving bytes. Returns the first
    /// refusal (failed, sge_index) or success. The current SGE's translation is kept, so the
    /// copy that follows under the same generation neither looks it up nor touches the
    /// translation cache again: a NIC fetches each page's translation once per access.
    [[nodiscard]] copy_result validate(const read_guard& guard) noexcept;

    /// Stores src into host memory at the cursor and advances (receive, RDMA write placement,
    /// read-response placement). Moves min(src.size(), remaining()) bytes unless an SGE is
    /// refused; access_denied when op does not write host memory.
    copy_result copy_to_host(const read_guard& guard, std::span<const std::byte> src) noexcept;

    /// Loads host memory at the cursor into dst and advances (send, RDMA write source, serving
    /// an RDMA read). Moves min(dst.size(), remaining()) bytes unless an SGE is refused;
    /// access_denied when op does not read host memory.
    copy_result copy_from_host(const read_guard& guard, std::span<std::byte> dst) noexcept;

    /// copy_from_host into `dst`, except where the bytes form one host-contiguous run: then
    /// none is copied, and `borrowed` is set to the run's first byte (a lent frame's payload,
    /// wire/lent_frames.hpp); otherwise it is nullptr. The lookups, refusals and cursor moves
    /// are those of copy_from_host.
    copy_result borrow_from_host(const read_guard& guard, std::span<std::byte> dst,
                                 const std::byte*& borrowed) noexcept;

    /// Checks the next `bytes` bytes as copy_from_host or copy_to_host would, and advances over
    /// them without moving any: the lookups, and so the refusals and translation-cache touches,
    /// are the same as those of the copy. copy_result::bytes is the bytes passed over.
    copy_result skip(const read_guard& guard, std::uint64_t bytes) noexcept;

    /// skip(), and `contiguous` receives the first byte of the bytes passed over when they
    /// form one host-contiguous run (valid while the unit's generation stays the one read
    /// under `guard`), or nullptr.
    copy_result skip(const read_guard& guard, std::uint64_t bytes,
                     const std::byte*& contiguous) noexcept;

    /// Moves the cursor to byte `position` of the list (clamped to total_length()), e.g. to
    /// resend from a PSN.
    void seek(std::uint64_t position) noexcept;

    /// Bytes before the cursor.
    std::uint64_t position() const noexcept { return position_; }

    /// Sum of all SGE lengths [bytes].
    std::uint64_t total_length() const noexcept { return total_; }

    /// Bytes after the cursor.
    std::uint64_t remaining() const noexcept { return total_ - position_; }

  private:
    // Walks `bytes` bytes from the cursor, calling move(run, done) for each host-contiguous run
    // (done: bytes walked before the run).
    template <class Move>
    copy_result walk(const read_guard& guard, std::uint64_t bytes, Move&& move) noexcept;

    template <bool ToHost, class Byte>
    copy_result transfer(const read_guard& guard, std::span<Byte> buffer) noexcept;

    const translation_unit& unit_;
    pd_id pd_;
    access_op op_;
    std::span<const sge> list_;
    std::uint64_t total_ = 0;
    std::uint64_t position_ = 0;
    std::size_t index_ = 0;     // current SGE
    std::uint64_t offset_ = 0;  // bytes of the current SGE already moved
    grant current_;             // lookup of the current SGE
    bool resolved_ = false;
    bool touch_cache_ = true;
};

}  // namespace ndksim::mem
