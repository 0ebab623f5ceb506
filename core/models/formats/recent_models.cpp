#include "models/formats/recent_models.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace core::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A list file is a few hundred bytes; anything much larger is not one.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

} // namespace

std::vector<std::string> readRecentModels(const std::string& path) {
    std::vector<std::string> recent;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec || size > kMaxFileBytes) return recent;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const json root = json::parse(text.str(), nullptr, false);
    if (root.is_discarded() || !root.is_object() || !root.contains("recent") ||
        !root.at("recent").is_array())
        return recent;
    for (const json& entry : root.at("recent")) {
        if (!entry.is_string()) continue;
        const std::string name = entry.get<std::string>();
        if (name.empty() || std::find(recent.begin(), recent.end(), name) != recent.end()) continue;
        recent.push_back(name);
        if (recent.size() == kMaxRecentModels) break;
    }
    return recent;
}

std::vector<std::string> withRecentModel(std::vector<std::string> recent,
                                         const std::string& opened) {
    recent.erase(std::remove(recent.begin(), recent.end(), opened), recent.end());
    recent.insert(recent.begin(), opened);
    if (recent.size() > kMaxRecentModels) recent.resize(kMaxRecentModels);
    return recent;
}

void writeRecentModels(const std::string& path, const std::vector<std::string>& recent) {
    std::error_code ec;
    if (const fs::path dir = fs::path(path).parent_path(); !dir.empty())
        fs::create_directories(dir, ec); // a failure shows in the write's message
    json root = json::object();
    root["recent"] = recent;
    writeFileAtomically(path, root.dump(2) + "\n");
}

} // namespace core::models
