#include "models/formats/recent_models.h"
#include "io/text_file.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace core::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {} // namespace

std::vector<std::string> readRecentModels(const std::string& path) {
    std::vector<std::string> recent;
    const TextFile file = readTextFile(path, kListFileCap); // a bad list is an empty one
    if (!file.ok()) return recent;
    const json root = json::parse(file.text, nullptr, false);
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
