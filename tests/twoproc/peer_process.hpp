// SPDX-License-Identifier: MIT
#pragma once
// A loopback peer for the two-process tests: the listener side of ndksim-loopback's protocol
// (loopback/service.hpp) running in a forked child (UDP, TCP wires) or, for the in-process
// wire, in a thread of the test. The test itself is the connector.
//
// Port choice: tests run in parallel, so the test picks a wire port from its pid and retries
// the next one while its adapter's create says STATUS_ADDRESS_ALREADY_EXISTS; only then does it
// hand the port to the peer (through a pipe). A peer whose own address is taken on that port
// says so, and both move to the next port. The test connects only once the peer reported that
// it listens. Every wait has a bound and fails loudly.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "loopback/endpoint.hpp"

namespace ndksim::twoproc {

class peer_process {
  public:
    static constexpr const char* k_local = "127.0.0.1";
    static constexpr const char* k_peer = "127.0.0.2";
    /// ACK timeout of both sides unless a test asks for a short one. In threaded mode the
    /// simulated clock keeps up with the wall clock, so the adapter's 16 ms default measures the
    /// host's speed: under a sanitizer on a loaded 2-core host a 1 MiB go-back-N resend alone
    /// outlasts it and the write fails with STATUS_IO_TIMEOUT although nothing was lost.
    static constexpr ULONG k_patient_ack_timeout_us = 100'000;
    /// The bound on every wait of both endpoints (loopback::endpoint_options::timeout), which
    /// also bounds their connection handshakes: the other process may not run for seconds on a
    /// loaded host under a sanitizer.
    static constexpr std::chrono::milliseconds k_patient_wait{30'000};

    peer_process(ndksim_wire wire, std::uint64_t data_size);
    ~peer_process();

    /// Opens `self` (the connector's endpoint) on a free port, starts the peer on that port and
    /// waits until it listens. Returns an empty string or what failed.
    std::string start(loopback::endpoint_options self_options,
                      std::unique_ptr<loopback::endpoint>* self);
    /// Waits for the peer to finish; true if it passed every check. Kills it after `timeout`.
    bool join(std::chrono::milliseconds timeout);
    /// Stops the peer at once: SIGKILLs and reaps a forked peer; a peer thread abandons its
    /// connection (it may never hear from the test again) and is joined.
    void kill_now();
    bool forked() const { return wire_ != NDKSIM_WIRE_INPROC; }

  private:
    /// What the peer writes on the ready pipe when its address is taken on the port offered.
    static constexpr char k_busy = 'B';
    /// Runs the peer on `port`; false, after telling the test (k_busy), when the peer's address
    /// is taken on that port, so it may be offered another.
    bool run_peer(std::uint16_t port, int ready_fd);

    ndksim_wire wire_;
    std::uint64_t data_size_;
    tools::child_process child_;  ///< the forked peer
    std::thread thread_;
    int thread_result_ = -1;
    std::atomic<bool> abandoned_{false};
    bool joined_ = false;
};

}  // namespace ndksim::twoproc
