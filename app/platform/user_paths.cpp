#include "platform/user_paths.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace app {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

std::string home() {
    const std::string h = env("HOME");
    return h.empty() ? "." : h;
}

// XDG_PICTURES_DIR="$HOME/Pictures" from ~/.config/user-dirs.dirs (xdg-user-dirs).
std::string picturesFromUserDirs(const std::string& configHome) {
    std::ifstream in(configHome + "/user-dirs.dirs");
    std::string line;
    const std::string key = "XDG_PICTURES_DIR=\"";
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0 || line.back() != '"') continue;
        std::string value = line.substr(key.size(), line.size() - key.size() - 1);
        if (value.rfind("$HOME", 0) == 0) value = home() + value.substr(5);
        return value;
    }
    return {};
}

std::string configHome() {
    const std::string xdg = env("XDG_CONFIG_HOME");
    return xdg.empty() ? home() + "/.config" : xdg;
}

} // namespace

std::string imguiIniPath() {
    const fs::path dir = fs::path(configHome()) / "mha-viz";
    std::error_code ec;
    fs::create_directories(dir, ec);
    return (dir / "imgui.ini").string();
}

std::string recentModelsPath() {
    return (fs::path(configHome()) / "mha-viz" / "recent-models.json").string();
}

std::string defaultExportDir() {
    std::string pictures = env("XDG_PICTURES_DIR");
    if (pictures.empty()) pictures = picturesFromUserDirs(configHome());
    if (pictures.empty()) pictures = home() + "/Pictures";
    return (fs::path(pictures) / "mha-viz").string();
}

} // namespace app
