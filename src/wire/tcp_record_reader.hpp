// SPDX-License-Identifier: MIT
#pragma once
// The receiving end of a TCP connection's record stream: the transport reads whatever the
// kernel holds, up to 64 KiB, into one buffer (one system call for many small records, or for
// a run of 4 KiB frames), and the reader splits the records out of it; a record cut by the end
// of a read waits at the front of the buffer for the rest. The buffer is allocated once per
// connection, so splitting allocates nothing.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wire/proto.hpp"
#include "wire/socket_common.hpp"
#include "wire/tcp_record_writer.hpp"

namespace ndksim::wire {

class tcp_record_reader {
  public:
    /// Bytes one read asks for at most [bytes].
    static constexpr std::size_t k_read_size = 64 * 1024;

    /// What split() found.
    enum class outcome : std::uint8_t {
        more,        ///< every whole record was handed on; the rest waits for more bytes
        bad_length,  ///< a length prefix out of [min_socket_body, max_socket_body]
        stopped,     ///< the record handler asked to stop
    };

    tcp_record_reader();
    tcp_record_reader(const tcp_record_reader&) = delete;
    tcp_record_reader& operator=(const tcp_record_reader&) = delete;

    /// Where the next read goes: the free space after the bytes held (at least k_read_size
    /// bytes, since a partial record is shorter than a record).
    std::span<std::byte> space() noexcept { return {buffer_.get() + held_, k_capacity - held_}; }

    /// `n` bytes were read into space().
    void filled(std::size_t n) noexcept { held_ += n; }

    /// Hands each whole record's body to `on_record(const std::byte* body, std::size_t
    /// length)`, which returns false to stop; keeps a partial record for the next read.
    /// `bad_length` reports the length prefix out of bounds in `length`; the connection that
    /// sent it is not to be read further.
    template <class OnRecord>
    outcome split(OnRecord&& on_record, std::size_t& length) noexcept {
        std::size_t at = 0;
        outcome result = outcome::more;
        while (held_ - at >= tcp_prefix_size) {
            length = static_cast<std::size_t>(load_be<tcp_prefix_size>(buffer_.get() + at));
            if (length < min_socket_body || length > max_socket_body) {
                return outcome::bad_length;
            }
            if (held_ - at - tcp_prefix_size < length) {
                break;
            }
            const std::byte* body = buffer_.get() + at + tcp_prefix_size;
            at += tcp_prefix_size + length;
            if (!on_record(body, length)) {
                result = outcome::stopped;
                break;
            }
        }
        keep_from(at);
        return result;
    }

    /// Bytes held: a partial record waiting for the rest.
    std::size_t held() const noexcept { return held_; }

  private:
    void keep_from(std::size_t at) noexcept;

    // A read never starts with less than k_read_size free: the partial record kept at the
    // front is shorter than the longest record.
    static constexpr std::size_t k_capacity = k_read_size + tcp_prefix_size + max_socket_body;
    std::unique_ptr<std::byte[]> buffer_;
    std::size_t held_ = 0;
};

}  // namespace ndksim::wire
