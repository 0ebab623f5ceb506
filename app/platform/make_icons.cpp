// make_icons OUTDIR: writes the app icon into a hicolor icon theme tree under OUTDIR,
//   OUTDIR/hicolor/scalable/apps/mha-viz.svg and OUTDIR/hicolor/NxN/apps/mha-viz.png,
// all drawn from core/figures/app_icon.h. Run by the build; the files stay in the build folder.
#include "figures/app_icon.h"
#include "figures/image.h"
#include "io/atomic_file.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace {

namespace fs = std::filesystem;

// Creates OUTDIR/hicolor/<subdir>/apps and returns the icon's path in it.
std::string iconPath(const fs::path& outDir, const std::string& subdir, const char* extension) {
    const fs::path dir = outDir / "hicolor" / subdir / "apps";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create '" + dir.string() + "': " + ec.message());
    return (dir / (std::string("mha-viz") + extension)).string();
}

void writeIcons(const fs::path& outDir) {
    core::writeFileAtomically(iconPath(outDir, "scalable", ".svg"), core::appIconSvg());
    for (int size : core::kAppIconSizes) {
        const std::string name = std::to_string(size) + "x" + std::to_string(size);
        core::writePng(iconPath(outDir, name, ".png"), core::appIcon(size));
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2 || std::string(argv[1]).empty()) {
        std::cerr << "usage: make_icons OUTDIR\n";
        return 1;
    }
    try {
        writeIcons(argv[1]);
    } catch (const std::exception& e) {
        std::cerr << "make_icons: error: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
