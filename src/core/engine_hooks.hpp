// SPDX-License-Identifier: MIT
#pragma once
// What core objects need from the NIC engine without depending on it (core sits below nic in
// the module order). The engine implements this interface and registers it with the device;
// core calls it at the points where an object's lifetime meets the data path.

namespace ndksim::core {

class qp;
class connector;
class listener;

class engine_hooks {
  public:
    virtual ~engine_hooks() = default;

    /// A QP's close was requested: flush its outstanding requests (their completions must be
    /// delivered before the close can complete) and stop its traffic.
    virtual void qp_closing(qp& q) = 0;

    /// A connector's close was requested: abandon its handshake or connection (REFERENCE.md
    /// rule 4: the close must cancel pending requests).
    virtual void connector_closing(connector& c) = 0;

    /// A listener's close was requested: refuse new connection requests at once (rule 25).
    virtual void listener_closing(listener& l) = 0;
};

}  // namespace ndksim::core
