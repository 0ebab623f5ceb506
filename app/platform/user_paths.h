// Where the window keeps its files (XDG base directories, never the working directory).
#pragma once

#include <string>

namespace app {

// $XDG_CONFIG_HOME/mha-viz/imgui.ini, else ~/.config/mha-viz/imgui.ini (folder created).
std::string imguiIniPath();

// $XDG_CONFIG_HOME/mha-viz/recent-models.json, else ~/.config/mha-viz/recent-models.json (the
// "Open model" dialog's recent list; the folder is created when the list is written).
std::string recentModelsPath();

// $XDG_PICTURES_DIR/mha-viz, else the Pictures folder from user-dirs.dirs, else ~/Pictures/mha-viz.
std::string defaultExportDir();

} // namespace app
