// The models the window opened last (the "Open model" dialog's recent list): a small JSON file,
// {"recent": ["path or name", ...]}, newest first. A missing or damaged file is an empty list,
// never an error: the list is a convenience, and opening a model must not depend on it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace core::models {

inline constexpr std::size_t kMaxRecentModels = 8;

// The list in the file at `path`; empty when it is missing or not such a file (entries that
// are not non-empty strings are skipped; at most kMaxRecentModels).
std::vector<std::string> readRecentModels(const std::string& path);

// `opened` first, once, then the others in their order, cut to kMaxRecentModels.
std::vector<std::string> withRecentModel(std::vector<std::string> recent,
                                         const std::string& opened);

// Writes the list atomically (the folder is created); throws std::runtime_error like
// core::writeFileAtomically.
void writeRecentModels(const std::string& path, const std::vector<std::string>& recent);

} // namespace core::models
