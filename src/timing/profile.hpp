// SPDX-License-Identifier: MIT
#pragma once
// NIC profiles: the cost model's parameters in a TOML file (docs/profiles.md describes the
// format). A profile is named by its file's stem ("cx4-edr" is cx4-edr.toml) and looked up in
// the profile search path, or given as a path to a file.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "timing/cost_model.hpp"

namespace ndksim::timing {

/// The profile every adapter uses when its configuration names none.
inline constexpr std::string_view default_profile_name = "cx4-edr";

/// A loaded profile.
struct nic_profile {
    std::string name;         ///< [profile] name, else the file's stem
    std::string description;  ///< [profile] description (may be empty)
    std::string source;       ///< the file it came from ("<built-in>" for the defaults)
    cost_model costs;         ///< the parameters, derived values computed
};

/// Why a profile could not be loaded.
enum class profile_error : std::uint8_t {
    none,
    not_found,  ///< no file of that name in the search path
    invalid,    ///< the file is unreadable, not TOML, or a field is unknown, mistyped or out of
                ///< range
};

/// The outcome of a load: the profile, or the error and a message naming the file, the line
/// and the field (dotted path).
struct profile_result {
    profile_error error = profile_error::none;
    std::string message;
    nic_profile profile;

    bool ok() const noexcept { return error == profile_error::none; }
};

/// True when `spec` is a path to a file (it contains a '/' or ends in ".toml"), false when it
/// is a profile name.
bool is_profile_path(std::string_view spec) noexcept;

/// The directories searched for a profile name, in order: each entry of NDKSIM_PROFILE_PATH
/// (colon-separated), share/ndksim/profiles of the prefix the library lies in, the build tree's
/// profiles directory, the configured prefix's share/ndksim/profiles.
std::vector<std::filesystem::path> profile_search_path();

/// Loads a profile by name (searched in profile_search_path(); the default profile falls back
/// to the built-in defaults when no file is found) or by path (is_profile_path()).
profile_result load_profile(std::string_view spec);

/// Loads the profile file at `file`.
profile_result load_profile_file(const std::filesystem::path& file);

/// Parses profile text; `source` names it in messages. Missing fields keep the cx4-edr
/// defaults of cost_model.
profile_result parse_profile(std::string_view text, std::string_view source);

}  // namespace ndksim::timing
