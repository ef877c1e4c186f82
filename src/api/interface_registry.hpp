// SPDX-License-Identifier: MIT
#pragma once
// The process-wide registry of live simulated adapters as network interfaces: each has an
// interface index, a LUID, an alias and the IP address it owns, as a host's TCP/IP stack
// keeps them. netioapi.h's lookups and WskOpenNdkAdapter (src/kernel) find adapters here.
//
// Lifetime: ndksim_adapter_create reserves an identity (so a clash is refused before the
// adapter exists), publishes it once the adapter works, and ndksim_adapter_destroy withdraws it
// before anything is torn down. A lookup that needs the adapter itself returns an adapter_ref,
// a counted reference; withdraw() waits until every adapter_ref to the adapter is gone, so a
// lookup never hands out a pointer to an adapter being destroyed. Lookups that only need the
// identity copy it under the registry's lock.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/net_address.hpp"
#include "util/status.hpp"

struct ndksim_adapter;

namespace ndksim::api {

/// IF_TYPE_ETHERNET_CSMACD, the IfType of every simulated adapter's LUID (RoCE runs on
/// Ethernet).
inline constexpr std::uint64_t k_if_type_ethernet = 6;

/// What netioapi.h reports about one adapter.
struct interface_identity {
    std::uint32_t index = 0;
    std::uint64_t luid = 0;  ///< a NET_LUID's Value
    std::u16string alias;
    core::net_address address;
    std::int64_t created = 0;  ///< system time of creation [100 ns since 1601-01-01 UTC]
};

/// One registered adapter; opaque outside the registry.
struct interface_entry;

/// A counted reference to a live adapter (see the file comment). Move-only; empty when the
/// lookup found nothing.
class adapter_ref {
  public:
    adapter_ref() noexcept = default;
    explicit adapter_ref(std::shared_ptr<interface_entry> entry) noexcept;
    adapter_ref(adapter_ref&& other) noexcept = default;
    adapter_ref& operator=(adapter_ref&& other) noexcept;
    adapter_ref(const adapter_ref&) = delete;
    adapter_ref& operator=(const adapter_ref&) = delete;
    ~adapter_ref();

    explicit operator bool() const noexcept { return entry_ != nullptr; }
    ndksim_adapter* get() const noexcept;
    const interface_identity& identity() const noexcept;

  private:
    void reset() noexcept;
    std::shared_ptr<interface_entry> entry_;
};

namespace interfaces {

/// Converts a UTF-8 alias to UTF-16; false when it is not valid UTF-8.
bool utf8_to_utf16(const std::string& text, std::u16string& out);

/// Reserves an identity: `index` 0 picks one (see ndksim.h), `alias` is the UTF-16 alias.
/// Returns nullptr after logging why when the index or alias is taken by a live adapter or
/// the alias is empty or longer than 256 units. A `default_alias` (derived from the adapter's
/// name, which need not be unique) that is taken gets " #<index>" appended instead.
std::shared_ptr<interface_entry> reserve(std::uint32_t index, std::u16string alias,
                                         bool default_alias, const core::net_address& address);

/// Makes a reserved identity visible to lookups, bound to `adapter`.
void publish(const std::shared_ptr<interface_entry>& entry, ndksim_adapter& adapter);

/// Removes the identity (reserved or published) and waits until no adapter_ref to it is held.
void withdraw(const std::shared_ptr<interface_entry>& entry);

/// The identity of a reserved or published entry.
const interface_identity& identity_of(const interface_entry& entry) noexcept;

/// The published adapter with this index, or an empty reference.
adapter_ref find_by_index(std::uint32_t index);

/// The published adapter with this LUID, or an empty reference. LUIDs are never reused in a
/// process (indexes may be, when configured explicitly), so a LUID names one adapter instance.
adapter_ref find_by_luid(std::uint64_t luid);

/// Identity lookups over published adapters.
std::optional<interface_identity> by_index(std::uint32_t index);
std::optional<interface_identity> by_luid(std::uint64_t luid);
std::optional<interface_identity> by_alias(const std::u16string& alias);

/// Every published adapter's identity, in index order.
std::vector<interface_identity> snapshot();

/// True while at least one adapter is published.
bool any() noexcept;

/// Sets a function called (without any registry lock held) after every publish and withdraw;
/// the WSK provider uses it to wake captures waiting for an adapter. nullptr removes it.
void set_change_listener(void (*listener)());

}  // namespace interfaces
}  // namespace ndksim::api
