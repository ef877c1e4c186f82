// SPDX-License-Identifier: MIT
#include "mem/sge_cursor.hpp"

#include <algorithm>
#include <cstring>

#include "mem/placement.hpp"
#include "mem/translation_unit.hpp"

namespace ndksim::mem {

sge_cursor::sge_cursor(const translation_unit& unit, pd_id pd, access_op op,
                       std::span<const sge> list) noexcept
    : unit_(unit), pd_(pd), op_(op), list_(list) {
    for (const sge& e : list_) {
        total_ += e.length;
    }
}

sge_cursor::sge_cursor(const translation_unit& unit, pd_id pd, access_op op,
                       std::span<const sge> list, bool touch_cache) noexcept
    : sge_cursor(unit, pd, op, list) {
    touch_cache_ = touch_cache;
}

copy_result sge_cursor::validate(const read_guard& guard) noexcept {
    copy_result out;
    for (std::size_t i = index_; i < list_.size(); ++i) {
        const sge& e = list_[i];
        if (e.length == 0) {
            continue;
        }
        const lookup_result r =
            unit_.lookup(guard, {e.token, pd_, op_, e.address, e.length}, touch_cache_);
        out.cache_misses += r.cache_misses;
        if (!r.ok()) {
            out.failed = r.failed;
            out.sge_index = i;
            return out;
        }
        if (i == index_ && !resolved_) {
            current_ = r.range;
            resolved_ = true;
        }
    }
    return out;
}

template <class Move>
copy_result sge_cursor::walk(const read_guard& guard, std::uint64_t bytes, Move&& move) noexcept {
    copy_result out;
    const std::uint64_t generation = unit_.generation(guard);
    std::uint64_t done = 0;
    while (done < bytes && index_ < list_.size()) {
        const sge& e = list_[index_];
        if (offset_ == e.length) {
            ++index_;
            offset_ = 0;
            resolved_ = false;
            continue;
        }
        if (!resolved_ || current_.generation != generation) {
            const lookup_result r =
                unit_.lookup(guard, {e.token, pd_, op_, e.address, e.length}, touch_cache_);
            out.cache_misses += r.cache_misses;
            if (!r.ok()) {
                out.failed = r.failed;
                out.sge_index = index_;
                break;
            }
            current_ = r.range;
            resolved_ = true;
        }
        const std::uint64_t want = std::min<std::uint64_t>(bytes - done, e.length - offset_);
        const std::span<std::byte> run = unit_.host_run(guard, current_, offset_, want);
        if (run.empty()) {
            out.failed = fault::unmapped;
            out.sge_index = index_;
            break;
        }
        move(run, done);
        done += run.size();
        offset_ += run.size();
        position_ += run.size();
    }
    out.bytes = done;
    return out;
}

template <bool ToHost, class Byte>
copy_result sge_cursor::transfer(const read_guard& guard, std::span<Byte> buffer) noexcept {
    // The copy direction must be the one the operation's rights cover.
    if (op_traits(op_).writes_host != ToHost) {
        copy_result out;
        out.failed = fault::access_denied;
        out.sge_index = index_;
        return out;
    }
    return walk(guard, buffer.size(), [&](std::span<std::byte> run, std::uint64_t done) {
        if constexpr (ToHost) {
            place_bytes(run.data(), buffer.data() + done, run.size());
        } else {
            std::memmove(buffer.data() + done, run.data(), run.size());
        }
    });
}

copy_result sge_cursor::borrow_from_host(const read_guard& guard, std::span<std::byte> dst,
                                         const std::byte*& borrowed) noexcept {
    borrowed = nullptr;
    if (op_traits(op_).writes_host) {
        copy_result out;
        out.failed = fault::access_denied;
        out.sge_index = index_;
        return out;
    }
    // A run as long as the whole request can only be the first and only one.
    return walk(guard, dst.size(), [&](std::span<std::byte> run, std::uint64_t done) {
        if (run.size() == dst.size()) {
            borrowed = run.data();
        } else {
            std::memmove(dst.data() + done, run.data(), run.size());
        }
    });
}

copy_result sge_cursor::skip(const read_guard& guard, std::uint64_t bytes) noexcept {
    return walk(guard, bytes, [](std::span<std::byte>, std::uint64_t) {});
}

copy_result sge_cursor::skip(const read_guard& guard, std::uint64_t bytes,
                             const std::byte*& contiguous) noexcept {
    contiguous = nullptr;
    // A run as long as the whole request can only be the first and only one.
    return walk(guard, bytes, [&](std::span<std::byte> run, std::uint64_t) {
        if (run.size() == bytes) {
            contiguous = run.data();
        }
    });
}

copy_result sge_cursor::copy_to_host(const read_guard& guard,
                                     std::span<const std::byte> src) noexcept {
    return transfer<true>(guard, src);
}

copy_result sge_cursor::copy_from_host(const read_guard& guard, std::span<std::byte> dst) noexcept {
    return transfer<false>(guard, dst);
}

void sge_cursor::seek(std::uint64_t position) noexcept {
    position_ = std::min(position, total_);
    std::uint64_t left = position_;
    index_ = 0;
    while (index_ < list_.size() && left >= list_[index_].length && left != 0) {
        left -= list_[index_].length;
        ++index_;
    }
    offset_ = left;
    resolved_ = false;
}

}  // namespace ndksim::mem
