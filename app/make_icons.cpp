// make_icons OUTDIR: writes the app icon into a hicolor icon theme tree under OUTDIR,
//   OUTDIR/hicolor/scalable/apps/mha-viz.svg and OUTDIR/hicolor/NxN/apps/mha-viz.png,
// all drawn from core/app_icon.h. Run by the build; the files stay in the build folder.
#include "figures/app_icon.h"
#include "io/atomic_file.h"
#include "figures/image.h"

#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

namespace {

namespace fs = std::filesystem;

// Creates OUTDIR/hicolor/<subdir>/apps and returns the icon's path in it ("" on failure).
std::string iconPath(const fs::path& outDir, const std::string& subdir, const char* extension,
                     std::string& error) {
    const fs::path dir = outDir / "hicolor" / subdir / "apps";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        error = "cannot create '" + dir.string() + "': " + ec.message();
        return {};
    }
    return (dir / (std::string("mha-viz") + extension)).string();
}

std::string writeIcons(const fs::path& outDir) {
    std::string error;
    const std::string svgPath = iconPath(outDir, "scalable", ".svg", error);
    if (svgPath.empty()) return error;
    if (error = core::writeFileAtomically(svgPath, core::appIconSvg()); !error.empty())
        return error;
    for (int size : core::kAppIconSizes) {
        const std::string name = std::to_string(size) + "x" + std::to_string(size);
        const std::string pngPath = iconPath(outDir, name, ".png", error);
        if (pngPath.empty()) return error;
        if (error = core::writePng(pngPath, core::appIcon(size)); !error.empty()) return error;
    }
    return {};
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2 || std::string(argv[1]).empty()) {
        std::cerr << "usage: make_icons OUTDIR\n";
        return 1;
    }
    if (const std::string error = writeIcons(argv[1]); !error.empty()) {
        std::cerr << "make_icons: error: " << error << '\n';
        return 1;
    }
    return 0;
}
