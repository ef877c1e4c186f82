// SPDX-License-Identifier: MIT
#include "api/interface_registry.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

#include "util/log.hpp"

namespace ndksim::api {

// Registry design: one mutex guards the entry list, the index bookkeeping and every entry's
// reference count; one condition variable wakes withdraw() when a count drops. Entries are
// shared_ptrs so an adapter_ref keeps its entry (not the adapter) alive on its own.
struct interface_entry {
    interface_identity identity;
    ndksim_adapter* adapter = nullptr;  ///< set by publish; nullptr while only reserved
    std::uint32_t refs = 0;             ///< adapter_refs held; guarded by the registry mutex
};

namespace {

constexpr std::size_t k_max_alias_units = 256;  // IF_MAX_STRING_SIZE

// 100 ns units between 1601-01-01 and 1970-01-01 (KeQuerySystemTime's epoch).
constexpr std::int64_t k_epoch_1601_offset = 116444736000000000LL;

struct registry {
    std::mutex mutex;
    std::condition_variable released;
    std::vector<std::shared_ptr<interface_entry>> entries;
    std::set<std::uint32_t> ever_given;  ///< every index handed out, so auto never reuses one
    std::uint32_t next_auto = 1;
    std::uint64_t next_luid_index = 1;
    std::atomic<std::size_t> published{0};
    std::atomic<void (*)()> listener{nullptr};
};

// Never destroyed: adapters a process leaks are still withdrawn from it at exit.
registry& reg() {
    static registry* r = new registry();
    return *r;
}

void notify_listener() {
    if (auto* fn = reg().listener.load(std::memory_order_acquire)) {
        fn();
    }
}

std::int64_t system_time_now() {
    const auto since_1970 = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    return k_epoch_1601_offset + since_1970.count() / 100;
}

// Finds a published entry; requires the registry mutex.
template <class Pred>
std::shared_ptr<interface_entry> find_locked(Pred pred) {
    for (const auto& e : reg().entries) {
        if (e->adapter != nullptr && pred(e->identity)) {
            return e;
        }
    }
    return nullptr;
}

template <class Pred>
std::optional<interface_identity> identity_where(Pred pred) {
    std::lock_guard lock(reg().mutex);
    if (auto e = find_locked(pred)) {
        return e->identity;
    }
    return std::nullopt;
}

std::string to_utf8_for_log(const std::u16string& text) {
    std::string out;
    for (char16_t c : text) {
        out.push_back(c < 0x80 ? static_cast<char>(c) : '?');
    }
    return out;
}

}  // namespace

adapter_ref::adapter_ref(std::shared_ptr<interface_entry> entry) noexcept
    : entry_(std::move(entry)) {}

adapter_ref& adapter_ref::operator=(adapter_ref&& other) noexcept {
    if (this != &other) {
        reset();
        entry_ = std::move(other.entry_);
    }
    return *this;
}

adapter_ref::~adapter_ref() {
    reset();
}

void adapter_ref::reset() noexcept {
    if (entry_ == nullptr) {
        return;
    }
    {
        std::lock_guard lock(reg().mutex);
        --entry_->refs;
    }
    reg().released.notify_all();
    entry_.reset();
}

ndksim_adapter* adapter_ref::get() const noexcept {
    return entry_ == nullptr ? nullptr : entry_->adapter;
}

const interface_identity& adapter_ref::identity() const noexcept {
    return entry_->identity;
}

namespace interfaces {

bool utf8_to_utf16(const std::string& text, std::u16string& out) {
    out.clear();
    std::size_t i = 0;
    while (i < text.size()) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        std::uint32_t cp = 0;
        std::size_t extra = 0;
        if (b0 < 0x80) {
            cp = b0;
        } else if ((b0 & 0xE0) == 0xC0) {
            cp = b0 & 0x1F;
            extra = 1;
        } else if ((b0 & 0xF0) == 0xE0) {
            cp = b0 & 0x0F;
            extra = 2;
        } else if ((b0 & 0xF8) == 0xF0) {
            cp = b0 & 0x07;
            extra = 3;
        } else {
            return false;
        }
        if (i + extra >= text.size()) {
            return false;
        }
        for (std::size_t k = 1; k <= extra; ++k) {
            const auto b = static_cast<unsigned char>(text[i + k]);
            if ((b & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (b & 0x3F);
        }
        // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
        constexpr std::uint32_t k_min[] = {0, 0x80, 0x800, 0x10000};
        if (cp < k_min[extra] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
            return false;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
            out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
        } else {
            out.push_back(static_cast<char16_t>(cp));
        }
        i += extra + 1;
    }
    return true;
}

std::shared_ptr<interface_entry> reserve(std::uint32_t index, std::u16string alias,
                                         bool default_alias, const core::net_address& address) {
    if (default_alias && alias.size() > k_max_alias_units - 12) {
        alias.resize(k_max_alias_units - 12);  // room for " #<index>"
    }
    if (alias.empty() || alias.size() > k_max_alias_units) {
        NDKSIM_ERROR("ndksim_adapter_create: interface alias must have 1 to {} UTF-16 units",
                     k_max_alias_units);
        return nullptr;
    }
    registry& r = reg();
    std::lock_guard lock(r.mutex);
    const auto alias_taken = [&r](const std::u16string& a) {
        return std::any_of(r.entries.begin(), r.entries.end(),
                           [&a](const auto& e) { return e->identity.alias == a; });
    };
    for (const auto& e : r.entries) {
        if (index != 0 && e->identity.index == index) {
            NDKSIM_ERROR("ndksim_adapter_create: interface index {} belongs to another adapter",
                         index);
            return nullptr;
        }
    }
    if (!default_alias && alias_taken(alias)) {
        NDKSIM_ERROR("ndksim_adapter_create: interface alias '{}' belongs to another adapter",
                     to_utf8_for_log(alias));
        return nullptr;
    }
    if (index == 0) {
        while (r.ever_given.contains(r.next_auto) || r.next_auto == 0) {
            ++r.next_auto;
        }
        index = r.next_auto++;
    }
    if (default_alias && alias_taken(alias)) {
        for (char c : " #" + std::to_string(index)) {
            alias.push_back(static_cast<char16_t>(c));
        }
    }
    r.ever_given.insert(index);
    auto entry = std::make_shared<interface_entry>();
    entry->identity.index = index;
    // NET_LUID: Reserved in bits 0-23, NetLuidIndex in 24-47, IfType in 48-63.
    entry->identity.luid = (k_if_type_ethernet << 48) | ((r.next_luid_index++ & 0xFFFFFF) << 24);
    entry->identity.alias = std::move(alias);
    entry->identity.address = address;
    entry->identity.created = system_time_now();
    r.entries.push_back(entry);
    return entry;
}

void publish(const std::shared_ptr<interface_entry>& entry, ndksim_adapter& adapter) {
    {
        std::lock_guard lock(reg().mutex);
        entry->adapter = &adapter;
    }
    reg().published.fetch_add(1, std::memory_order_acq_rel);
    notify_listener();
}

void withdraw(const std::shared_ptr<interface_entry>& entry) {
    registry& r = reg();
    bool was_published = false;
    {
        std::unique_lock lock(r.mutex);
        auto it = std::find(r.entries.begin(), r.entries.end(), entry);
        if (it == r.entries.end()) {
            return;
        }
        r.entries.erase(it);
        was_published = entry->adapter != nullptr;
        r.released.wait(lock, [&] { return entry->refs == 0; });
        entry->adapter = nullptr;
    }
    if (was_published) {
        r.published.fetch_sub(1, std::memory_order_acq_rel);
        notify_listener();
    }
}

const interface_identity& identity_of(const interface_entry& entry) noexcept {
    return entry.identity;
}

template <class Pred>
adapter_ref ref_where(Pred pred) {
    std::lock_guard lock(reg().mutex);
    auto e = find_locked(pred);
    if (e == nullptr) {
        return {};
    }
    ++e->refs;
    return adapter_ref(std::move(e));
}

adapter_ref find_by_index(std::uint32_t index) {
    return ref_where([index](const interface_identity& id) { return id.index == index; });
}

adapter_ref find_by_luid(std::uint64_t luid) {
    return ref_where([luid](const interface_identity& id) { return id.luid == luid; });
}

std::optional<interface_identity> by_index(std::uint32_t index) {
    return identity_where([index](const interface_identity& id) { return id.index == index; });
}

std::optional<interface_identity> by_luid(std::uint64_t luid) {
    return identity_where([luid](const interface_identity& id) { return id.luid == luid; });
}

std::optional<interface_identity> by_alias(const std::u16string& alias) {
    return identity_where([&alias](const interface_identity& id) { return id.alias == alias; });
}

std::vector<interface_identity> snapshot() {
    std::vector<interface_identity> out;
    {
        std::lock_guard lock(reg().mutex);
        for (const auto& e : reg().entries) {
            if (e->adapter != nullptr) {
                out.push_back(e->identity);
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const interface_identity& a, const interface_identity& b) {
        return a.index < b.index;
    });
    return out;
}

bool any() noexcept {
    return reg().published.load(std::memory_order_acquire) != 0;
}

void set_change_listener(void (*listener)()) {
    reg().listener.store(listener, std::memory_order_release);
}

}  // namespace interfaces
}  // namespace ndksim::api
